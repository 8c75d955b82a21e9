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
}
