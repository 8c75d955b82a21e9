/// Dependencies by (observer table, field): open addressing with linear probing over a power-of-two
/// table, hashed by a multiply-shift of the two identities. Cheaper than `Dictionary`, whose SipHash
/// dominated reads of many fields. Holds the first dependency recorded for each pair.
internal struct DependencyIndex {
  /// Unretained: the recorder's array owns the dependencies (no reference counting per probe).
  private var slots: ContiguousArray<Unmanaged<Dependency>?> = []
  private var shift = 64
  private var used = 0

  var isEmpty: Bool { slots.isEmpty }

  private func slot(_ table: ObserverTable, _ key: FieldKey) -> Int {
    slot(UInt(bitPattern: ObjectIdentifier(table)), key)
  }

  private func slot(_ address: UInt, _ key: FieldKey) -> Int {
    let mixed = (address ^ (key.rawValue &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
    return Int(truncatingIfNeeded: mixed >> UInt(shift))
  }

  func find(_ tableWord: UInt, _ key: FieldKey) -> Dependency? {
    let mask = slots.count - 1
    var position = slot(tableWord, key)
    while let entry = slots[position] {
      let found = entry._withUnsafeGuaranteedRef {
        UInt(bitPattern: ObjectIdentifier($0.table)) == tableWord && $0.key == key
      }
      if found { return entry.takeUnretainedValue() }
      position = (position + 1) & mask
    }
    return nil
  }

  mutating func insert(_ dependency: Dependency) {
    if (used + 1) * 2 > slots.count {
      var all = slots.compactMap { $0?.takeUnretainedValue() }
      all.append(dependency)
      rebuild(all)
      return
    }
    place(dependency)
  }

  mutating func rebuild<Dependencies: Collection<Dependency>>(_ dependencies: Dependencies) {
    var capacity = 16
    while capacity < dependencies.count * 2 { capacity *= 2 }
    slots = ContiguousArray(repeating: nil, count: capacity)
    shift = 64 - capacity.trailingZeroBitCount
    used = 0
    for dependency in dependencies { place(dependency) }
  }

  private mutating func place(_ dependency: Dependency) {
    let mask = slots.count - 1
    var position = slot(dependency.table, dependency.key)
    while let entry = slots[position] {
      let same = entry._withUnsafeGuaranteedRef { $0.table === dependency.table && $0.key == dependency.key }
      if same { return }  // keep the first
      position = (position + 1) & mask
    }
    slots[position] = Unmanaged.passUnretained(dependency)
    used += 1
  }

  mutating func removeAll() {
    if !slots.isEmpty { slots = [] }
    used = 0
  }

  /// Checks the index against the dependencies it indexes: every entry is one of them, at the
  /// position it knows; every field they read is found; the count and the load factor.
  ///
  /// - Complexity: O(*n*) in the slots and the dependencies.
  func _checkInvariants(indexing dependencies: ContiguousArray<Dependency>) {
    var entries = 0
    for entry in slots {
      guard let entry else { continue }
      entries += 1
      let dependency = entry.takeUnretainedValue()
      let position = Int(dependency.position)
      guard dependencies.indices.contains(position), dependencies[position] === dependency else {
        _invariantViolated("the dependency index holds a dependency the recorder does not")
      }
    }
    if entries != used { _invariantViolated("dependency index counts \(used) entries, holds \(entries)") }
    if used * 2 > slots.count { _invariantViolated("dependency index over half full (\(used) of \(slots.count))") }
    for dependency in dependencies {
      guard let found = find(UInt(bitPattern: ObjectIdentifier(dependency.table)), dependency.key) else {
        _invariantViolated("a dependency's field is missing from the index")
      }
      if found.table !== dependency.table || found.key != dependency.key {
        _invariantViolated("the index finds another field")
      }
    }
  }
}
