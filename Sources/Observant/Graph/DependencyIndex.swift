/// Dependencies by (observer table, field): open addressing with linear probing over a power-of-two
/// table, hashed by a multiply-shift of the two identities. Cheaper than `Dictionary`, whose SipHash
/// dominated reads of many fields. Holds the first dependency recorded for each pair.
///
/// Each entry keeps the pair it stands for beside the dependency, so a probe compares two words in
/// the entry itself (no load from the dependency, no reference counting); the dependency is read
/// only on a hit.
///
/// Emptied in O(1) and without freeing its storage (a recorder is reused from one tracking scope
/// to the next): an entry counts only if it carries the index's current epoch.
internal struct DependencyIndex {
  private struct Entry {
    /// The table's address.
    var tableWord: UInt = 0
    var key: UInt = 0
    /// Unretained: the recorder's array owns the dependencies.
    var dependency: Unmanaged<Dependency>?
    /// The index's epoch when the entry was placed; another epoch's entry is empty.
    var epoch: UInt32 = 0
  }

  private var entries: ContiguousArray<Entry> = []
  private var shift = 64
  private var used = 0
  /// The current epoch (never 0): entries of other epochs are empty.
  private var epoch: UInt32 = 1
  /// Whether the index is built (`rebuild` since the last `removeAll`).
  private var isBuilt = false

  /// Storage kept across `removeAll()` up to this many entries (more is freed).
  private static var keptCapacity: Int { 4_096 }

  var isEmpty: Bool { !isBuilt }

  private func slot(_ tableWord: UInt, _ key: UInt) -> Int {
    Self.slot(tableWord, key, shift: shift)
  }

  private static func slot(_ tableWord: UInt, _ key: UInt, shift: Int) -> Int {
    let mixed = (tableWord ^ (key &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
    return Int(truncatingIfNeeded: mixed >> UInt(shift))
  }

  func find(_ tableWord: UInt, _ key: FieldKey) -> Dependency? {
    entries.withUnsafeBufferPointer { entries in
      let mask = entries.count - 1
      var position = slot(tableWord, key.rawValue)
      while entries[position].epoch == epoch {
        if entries[position].tableWord == tableWord && entries[position].key == key.rawValue {
          return entries[position].dependency?.takeUnretainedValue()
        }
        position = (position + 1) & mask
      }
      return nil
    }
  }

  mutating func insert(_ dependency: Dependency) {
    if (used + 1) * 2 > entries.count { grow() }
    place(
      UInt(bitPattern: ObjectIdentifier(dependency.table)), dependency.key.rawValue,
      Unmanaged.passUnretained(dependency))
  }

  mutating func rebuild<Dependencies: Collection<Dependency>>(_ dependencies: Dependencies) {
    var capacity = 32
    while capacity < dependencies.count * 2 { capacity *= 2 }
    reset(capacity: capacity)
    for dependency in dependencies {
      place(
        UInt(bitPattern: ObjectIdentifier(dependency.table)), dependency.key.rawValue,
        Unmanaged.passUnretained(dependency))
    }
  }

  /// Doubles the entries, placing the ones there are again.
  private mutating func grow() {
    let old = entries
    let oldEpoch = epoch
    reset(capacity: max(32, entries.count * 2))
    for entry in old where entry.epoch == oldEpoch { place(entry.tableWord, entry.key, entry.dependency!) }
  }

  /// Empties the index with room for `capacity` entries (a power of two), reusing its storage if it
  /// has exactly that room.
  private mutating func reset(capacity requested: Int) {
    // Kept storage at least as large serves as it is (an emptier table probes less).
    let capacity = max(requested, entries.count)
    if entries.count != capacity { entries = ContiguousArray(repeating: Entry(), count: capacity) }
    nextEpoch()
    shift = 64 - capacity.trailingZeroBitCount
    used = 0
    isBuilt = true
  }

  /// Moves to a new epoch (all entries empty); past the last one, clears the entries.
  private mutating func nextEpoch() {
    epoch &+= 1
    if epoch == 0 {
      for position in entries.indices { entries[position].epoch = 0 }
      epoch = 1
    }
  }

  private mutating func place(_ tableWord: UInt, _ key: UInt, _ dependency: Unmanaged<Dependency>) {
    let shift = shift
    let epoch = epoch
    let placed = entries.withUnsafeMutableBufferPointer { entries -> Bool in
      let mask = entries.count - 1
      var position = Self.slot(tableWord, key, shift: shift)
      while entries[position].epoch == epoch {
        if entries[position].tableWord == tableWord && entries[position].key == key { return false }  // keep the first
        position = (position + 1) & mask
      }
      entries[position] = Entry(tableWord: tableWord, key: key, dependency: dependency, epoch: epoch)
      return true
    }
    if placed { used += 1 }
  }

  /// Empties the index; its storage is kept for the next scope unless it is large.
  mutating func removeAll() {
    guard isBuilt else { return }
    // Emptied by the next `rebuild`, which starts a fresh epoch over the kept storage.
    if entries.count > Self.keptCapacity { entries = [] }
    isBuilt = false
    used = 0
  }

  /// Checks the index against the dependencies it indexes: every entry is one of them, at the
  /// position it knows; every field they read is found; the count and the load factor.
  ///
  /// - Complexity: O(*n*) in the slots and the dependencies.
  func _checkInvariants(indexing dependencies: ContiguousArray<Dependency>) {
    var count = 0
    for entry in entries where entry.epoch == epoch {
      count += 1
      guard let dependency = entry.dependency?.takeUnretainedValue(),
        UInt(bitPattern: ObjectIdentifier(dependency.table)) == entry.tableWord, dependency.key.rawValue == entry.key
      else { _invariantViolated("a dependency index entry names another field than its dependency") }
      let position = Int(dependency.position)
      guard dependencies.indices.contains(position), dependencies[position] === dependency else {
        _invariantViolated("the dependency index holds a dependency the recorder does not")
      }
    }
    if count != used { _invariantViolated("dependency index counts \(used) entries, holds \(count)") }
    if used * 2 > entries.count { _invariantViolated("dependency index over half full (\(used) of \(entries.count))") }
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
