import Synchronization

/// The observers of one registrar, grouped by field: for each field a doubly linked list of the
/// dependencies that read it. Created the first time a field of the registrar is tracked.
///
/// Dependencies hold the table, never the registrar: observing an object does not keep its
/// registrar alive, so the registrar goes away with its object, and its `deinit` empties the table
/// (`ownerDidDeinit`), which tells every observer. No weak references are involved (they would
/// move every retain and release of the object to a slow path).
///
/// Linking and unlinking a dependency is O(1): no hashing per edge, no allocation (the edge is the
/// dependency itself). Finding a field's list is a look at the first slot, then a scan of a few
/// more, or one hash lookup once the object has many observed fields. Slots never move, so a
/// linked dependency can keep its slot's index. A slot whose list is empty is taken by a new
/// field: the first slot at once, the others once they outnumber twice those in use (an object's
/// fields are not always bounded: every store ever scoped over copies of one state records an
/// identity field of its own in the state's table, see `InternalField.numbered`).
///
/// Sized for the common case, an object whose readers read one of its fields (a row's count): the
/// table is one 64-byte heap block, with the first field's list inline. The lists of further
/// fields live in a second block (`Overflow`), allocated when a second field is first read.
internal class ObserverTable: @unchecked Sendable {
  // Stored properties in this order, no gaps: 54 bytes, a 64-byte heap block (every observed
  // object has a table).

  /// The owning registrar's address: its identity (for access logs and in-place frames) for the
  /// table's whole life, and the registrar itself (`withOwner(_:)`) while it is alive.
  private let ownerAddress: UnsafeMutableRawPointer

  /// Advanced (with a full barrier) every time a reader starts depending on a field's current
  /// state: a new link, or a kept dependency that now reads a newer state. A writer that compared
  /// it before announcing its write and finds it moved after storing the value knows a reader may
  /// have read the old value after the announcement (see `TrackingRegistrar._writeTicket`).
  /// Wrapping: a writer compares it for equality across one write.
  let epoch = Atomic<UInt32>(1)

  /// Guards everything below it but `isComputed`.
  private let lock = Mutex(())

  /// The first slot: the head of its field's list (the field's key is the key of any dependency in
  /// it), unretained (the observers own their dependencies); `nil` while the slot is free. Kept as
  /// a raw address, as `Dependency`'s links: see there.
  @exclusivity(unchecked) private var firstHeadAddress: UnsafeMutableRawPointer?
  /// The slots after the first, once a second field was read; retained while stored (released by
  /// `deinit`). Held as an `Unmanaged` so that using it touches no reference count.
  @exclusivity(unchecked) private var overflowReference: Unmanaged<Overflow>?
  /// Number of linked dependencies.
  @exclusivity(unchecked) private var linkedCount: UInt32 = 0
  /// Whether the owning registrar is gone (the table then holds nothing).
  @exclusivity(unchecked) private var isDeadStorage = false

  /// Whether this is a `ComputedObserverTable` (the table of a derived value). Stored here, where
  /// the table's other fields leave room, rather than the source itself: most tables belong to
  /// objects and values.
  private let isComputed: Bool

  /// One field's list, in `Overflow`.
  private struct Slot {
    /// Changed only while the list is empty (the slot is taken by a new field).
    var key: FieldKey
    /// The first dependency of the field's list, unretained (see `firstHeadAddress`).
    var headAddress: UnsafeMutableRawPointer?

    init(key: FieldKey) { self.key = key }
  }

  /// The slots after the first (slot `n` is `slots[n - 1]`), and their index once there are more
  /// than a scan should cover. Allocated once, the first time a second field of the object is
  /// read while the first slot is taken.
  private final class Overflow {
    // Used only under the table's lock.
    @exclusivity(unchecked) var slots: ContiguousArray<Slot> = []
    @exclusivity(unchecked) var slotIndex = SlotIndex()
    /// Positions of slots whose list was empty when the slots were last looked over (some may
    /// have been filled again since), for new fields to take.
    @exclusivity(unchecked) var emptySlots: ContiguousArray<Int32> = []
    /// The number of slots at which a new field looks for empty slots before adding one: twice
    /// the slots in use when they were last looked over (so the slots stay within twice the
    /// most ever in use, and looking over them costs O(1) per new field, amortized).
    @exclusivity(unchecked) var reuseAt = 16

    /// An empty slot for the new field `key` (in no slot), if the slots are many enough that one
    /// should be taken rather than a slot added; its position.
    func takeEmptySlot(for key: FieldKey) -> Int? {
      if emptySlots.isEmpty {
        guard slots.count >= reuseAt else { return nil }
        slots.withUnsafeBufferPointer { slots in
          for position in slots.indices.reversed() where slots[position].headAddress == nil {
            emptySlots.append(Int32(position))
          }
        }
        reuseAt = max(16, 2 * (slots.count - emptySlots.count))
      }
      while let last = emptySlots.popLast() {
        let position = Int(last)
        // Filled again since (its field was read again): not free.
        guard slots[position].headAddress == nil else { continue }
        slots.withUnsafeMutableBufferPointer { $0[position].key = key }
        // The index keeps the entry of the slot's previous field, which no lookup matches any
        // more (it compares the slot's key), until the next rebuild drops it.
        if !slotIndex.isEmpty { slotIndex.insert(slots, at: position, reusing: true) }
        return position
      }
      return nil
    }
  }

  /// Overflow slot positions by field key, once an object has more observed fields than a scan
  /// should cover: open addressing with linear probing over a power-of-two array, hashed by a
  /// multiply-shift of the key (cheaper than `Dictionary`'s SipHash, which dominated scopes that
  /// read many fields of one object). Entries are never removed: a slot taken by a new field
  /// leaves its previous field's entry, which matches nothing (a lookup compares the slot's key)
  /// until a rebuild.
  private struct SlotIndex {
    /// Position in `Overflow.slots` + 1 per bucket; 0 is an empty bucket.
    private var buckets: ContiguousArray<Int32> = []
    private var shift: UInt32 = 64
    private var used: UInt32 = 0

    var isEmpty: Bool { buckets.isEmpty }

    private func bucket(_ key: FieldKey) -> Int {
      Int(truncatingIfNeeded: (key.rawValue &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
    }

    func find(_ key: FieldKey, in slots: ContiguousArray<Slot>) -> Int? {
      let mask = buckets.count - 1
      var position = bucket(key)
      while true {
        let entry = buckets[position]
        if entry == 0 { return nil }
        if slots[Int(entry - 1)].key == key { return Int(entry - 1) }
        position = (position + 1) & mask
      }
    }

    /// Indexes every slot (the first time, or when the buckets fill up), with room for at least
    /// `room` more entries.
    mutating func rebuild(_ slots: ContiguousArray<Slot>, room: Int = 0) {
      var capacity = 32
      while capacity < (slots.count + room) * 2 { capacity *= 2 }
      buckets = ContiguousArray(repeating: 0, count: capacity)
      shift = UInt32(64 - capacity.trailingZeroBitCount)
      used = 0
      for position in slots.indices { place(slots[position].key, position) }
    }

    /// Indexes the slot just appended at `position`, or (`reusing`) just taken by a new field.
    mutating func insert(_ slots: ContiguousArray<Slot>, at position: Int, reusing: Bool = false) {
      if Int(used + 1) * 2 > buckets.count {
        // A slot taken again adds an entry without adding a slot: room for as many again, so
        // that rebuilds stay O(1) per slot taken, amortized.
        rebuild(slots, room: reusing ? slots.count : 0)
      } else {
        place(slots[position].key, position)
      }
    }

    private mutating func place(_ key: FieldKey, _ position: Int) {
      let mask = buckets.count - 1
      var index = bucket(key)
      while buckets[index] != 0 { index = (index + 1) & mask }
      buckets[index] = Int32(position + 1)
      used += 1
    }
  }

  /// Overflow slots scanned before an index is built.
  private static var scanLimit: Int { 8 }

  /// - Parameter isComputed: `true` only for a `ComputedObserverTable`.
  init(owner: TrackingRegistrar, isComputed: Bool = false) {
    ownerAddress = Unmanaged.passUnretained(owner).toOpaque()
    self.isComputed = isComputed
  }

  deinit {
    overflowReference?.release()
  }

  /// The owning registrar's identity, for access logs: valid after the registrar went away (it
  /// is never turned back into a reference).
  var ownerIdentity: ObjectIdentifier { unsafeBitCast(ownerAddress, to: ObjectIdentifier.self) }

  /// Calls `body` with the owner, unretained. Only under the lock and only while `!isDead`: the
  /// owner's memory is valid then (its `deinit` sets `isDead` under the same lock before the
  /// registrar is freed), but not necessarily its reference count: its last reference may go on
  /// another thread at any moment, its `deinit` then waiting for this lock. A retain taken here
  /// would make the matching release run that `deinit` on this thread, inside the lock it takes
  /// again (a recursive lock: a crash); so the owner is never retained.
  @inline(__always)
  private func withOwner<Result>(_ body: (TrackingRegistrar) -> Result) -> Result {
    Unmanaged<TrackingRegistrar>.fromOpaque(ownerAddress)._withUnsafeGuaranteedRef(body)
  }

  /// The computed value whose registrar owns this table (a derived value; see
  /// `ComputedObserverTable`), `nil` for the tables of objects and values.
  var computedSource: (any ComputedSource)? {
    guard isComputed else { return nil }
    return unsafeDowncast(self, to: ComputedObserverTable.self).source
  }

  /// Number of linked dependencies.
  var count: Int { lock.withLock { _ in Int(linkedCount) } }

  /// Whether the owning registrar is gone.
  var isDead: Bool { lock.withLock { _ in isDeadStorage } }

  // MARK: Slots (under the lock)

  /// The head of slot `slot`'s list, unretained.
  @inline(__always)
  private func headReference(ofSlot slot: Int) -> Unmanaged<Dependency>? {
    let address =
      slot == 0
      ? firstHeadAddress
      : overflowReference.unsafelyUnwrapped._withUnsafeGuaranteedRef {
        $0.slots.withUnsafeBufferPointer { $0[slot - 1].headAddress }
      }
    guard let address else { return nil }
    return Unmanaged<Dependency>.fromOpaque(address)
  }

  @inline(__always)
  private func setHead(ofSlot slot: Int, to head: Unmanaged<Dependency>?) {
    if slot == 0 {
      firstHeadAddress = head?.toOpaque()
    } else {
      overflowReference.unsafelyUnwrapped._withUnsafeGuaranteedRef {
        $0.slots.withUnsafeMutableBufferPointer { $0[slot - 1].headAddress = head?.toOpaque() }
      }
    }
  }

  /// The overflow slots, if any (under the lock; a copy of the array, for the walks that are not
  /// on a hot path).
  private var overflowSlots: ContiguousArray<Slot> {
    overflowReference?._withUnsafeGuaranteedRef { $0.slots } ?? []
  }

  /// Number of slots (the first counts, free or not).
  private var slotCount: Int { 1 + (overflowReference?._withUnsafeGuaranteedRef { $0.slots.count } ?? 0) }

  /// The slot of `key`, if one was made.
  @inline(__always)
  private func existingSlot(for key: FieldKey) -> Int? {
    if let firstHeadAddress,
      Unmanaged<Dependency>.fromOpaque(firstHeadAddress)._withUnsafeGuaranteedRef({ $0.key == key })
    {
      return 0
    }
    guard let overflowReference else { return nil }
    return overflowReference._withUnsafeGuaranteedRef { overflow in
      if !overflow.slotIndex.isEmpty { return overflow.slotIndex.find(key, in: overflow.slots).map { $0 + 1 } }
      return overflow.slots.withUnsafeBufferPointer { slots in
        for index in slots.indices where slots[index].key == key { return index + 1 }
        return nil
      }
    }
  }

  /// The slot of `key`, made if there is none: the first slot if it is free, else an empty one
  /// (once the slots are many, see `Overflow.takeEmptySlot(for:)`), else a new one at the end.
  private func slot(for key: FieldKey) -> Int {
    if let existing = existingSlot(for: key) { return existing }
    if firstHeadAddress == nil { return 0 }
    if overflowReference == nil { overflowReference = Unmanaged.passRetained(Overflow()) }
    return overflowReference.unsafelyUnwrapped._withUnsafeGuaranteedRef { overflow in
      if let position = overflow.takeEmptySlot(for: key) { return position + 1 }
      overflow.slots.append(Slot(key: key))
      let position = overflow.slots.count - 1
      if overflow.slots.count > Self.scanLimit {
        if overflow.slotIndex.isEmpty {
          overflow.slotIndex.rebuild(overflow.slots)
        } else {
          overflow.slotIndex.insert(overflow.slots, at: position)
        }
      }
      return position + 1
    }
  }

  // MARK: Linking

  /// Links `dependency` into its field's list. Returns `false` (linking nothing) if the owner is
  /// gone.
  @discardableResult
  func link(_ dependency: Dependency) -> Bool {
    lock.withLock { _ in
      guard !isDeadStorage else { return false }
      linkLive(dependency)
      return true
    }
  }

  /// Links `dependency` into its field's list unless a dependency already linked there satisfies
  /// `isEquivalent`, under one lock (so two threads cannot both find nothing and both link).
  /// Returns `.found` if an equivalent dependency is linked (linking nothing), `.linked` after
  /// linking, `.ownerGone` if the owner is gone. `isEquivalent` runs under the table's lock: it
  /// may take locks that are never held while this table's lock is taken.
  func link(_ dependency: Dependency, unlessLinked isEquivalent: (Dependency) -> Bool) -> LinkResult {
    lock.withLock { _ in
      guard !isDeadStorage else { return .ownerGone }
      if let slot = existingSlot(for: dependency.key) {
        var current = headReference(ofSlot: slot)?.takeUnretainedValue()
        while let candidate = current {
          if isEquivalent(candidate) { return .found }
          current = candidate.next
        }
      }
      linkLive(dependency)
      return .linked
    }
  }

  /// Links `dependency` under the lock, the owner being alive: publishes "has observers" for the
  /// first link and advances the epoch.
  private func linkLive(_ dependency: Dependency) {
    let slot = slot(for: dependency.key)
    dependency.slot = Int32(slot)
    dependency.previousReference = nil
    // The old head is touched through its address: no retain and release around the update.
    let reference = Unmanaged.passUnretained(dependency)
    let head = headReference(ofSlot: slot)
    dependency.nextReference = head
    head?._withUnsafeGuaranteedRef { $0.previousReference = reference }
    setHead(ofSlot: slot, to: reference)
    linkedCount += 1
    if linkedCount == 1 { withOwner { $0.publishHasObservers(true, table: self) } }
    // After the publication: the reader's load of the value cannot move before this barrier.
    epoch.wrappingAdd(1, ordering: .sequentiallyConsistent)
    if _internalChecksEnabled { checkAfterMutation(touched: dependency) }
  }

  /// What `link(_:unlessLinked:)` did.
  enum LinkResult {
    case linked
    case found
    case ownerGone
  }

  /// Unlinks each of `dependencies` that is linked (others are ignored).
  func unlink<Dependencies: Sequence<Dependency>>(_ dependencies: Dependencies) {
    lock.withLock { _ in
      let before = linkedCount
      for dependency in dependencies where dependency.isLinked { unlinkLocked(dependency) }
      afterUnlinking(countBefore: before)
    }
  }

  /// Unlinks `dependency` if it is linked: `unlink(_:andFollowingOf:)` for one dependency, without
  /// an iterator.
  func unlink(_ dependency: Dependency) {
    lock.withLock { _ in
      guard dependency.isLinked else { return }
      unlinkLocked(dependency)
      afterUnlinking(countBefore: linkedCount + 1)
    }
  }

  /// Unlinks `first` and the dependencies `rest` yields after it while they belong to this table,
  /// under one lock; returns the first dependency of another table (not unlinked), if any.
  func unlink<Rest: IteratorProtocol<Dependency>>(_ first: Dependency, andFollowingOf rest: inout Rest) -> Dependency? {
    lock.withLock { _ in
      let before = linkedCount
      var current: Dependency? = first
      var other: Dependency?
      while let dependency = current {
        guard dependency.table === self else {
          other = dependency
          break
        }
        if dependency.isLinked { unlinkLocked(dependency) }
        current = rest.next()
      }
      afterUnlinking(countBefore: before)
      return other
    }
  }

  /// Under the lock, after unlinking: publishes "no observers" if the last one went.
  @inline(__always)
  private func afterUnlinking(countBefore before: UInt32) {
    if before > 0 && linkedCount == 0 && !isDeadStorage { withOwner { $0.publishHasObservers(false, table: self) } }
    if _internalChecksEnabled { checkAfterMutation(touched: nil) }
  }

  private func unlinkLocked(_ dependency: Dependency) {
    // Through the neighbours' addresses: no retain and release of either.
    let previous = dependency.previousReference
    let next = dependency.nextReference
    if let previous {
      previous._withUnsafeGuaranteedRef { $0.nextReference = next }
    } else {
      setHead(ofSlot: Int(dependency.slot), to: next)
    }
    next?._withUnsafeGuaranteedRef { $0.previousReference = previous }
    dependency.previousReference = nil
    dependency.nextReference = nil
    dependency.slot = -1
    linkedCount -= 1
  }

  // MARK: Notifying

  /// Calls `body` with the head of every slot's list, unretained (under the lock).
  @inline(__always)
  private func forEachList(_ body: (Unmanaged<Dependency>?) -> Void) {
    body(headReference(ofSlot: 0))
    for slot in overflowSlots {
      body(slot.headAddress.map { Unmanaged<Dependency>.fromOpaque($0) })
    }
  }

  /// The dependencies a write of `key` concerns: those that read the state the write overwrites
  /// (`seen`), and every one that read a class field (`Stamp.none`). Strong references, taken under
  /// the lock, so that observers can be called after it is released.
  func dependencies(of key: FieldKey, overwriting seen: UInt64) -> DependencySnapshot {
    lock.withLock { _ in
      guard !isDeadStorage, let slot = existingSlot(for: key) else { return .none }
      var snapshot = DependencySnapshot.none
      // Walked by address: only the dependencies taken are retained (by the snapshot).
      var dependency = headReference(ofSlot: slot)
      // The table's count is a bound on the list's length: room for a borrowed buffer, asked for
      // only when the list has a second dependency.
      if dependency?._withUnsafeGuaranteedRef({ $0.nextAddress != nil }) == true {
        snapshot.expect(Int(linkedCount))
      }
      while let current = dependency {
        dependency = current._withUnsafeGuaranteedRef { current in
          if seen == Stamp.none || current.hasRead(seen) { snapshot.append(current) }
          return current.nextReference
        }
      }
      return snapshot
    }
  }

  /// The dependencies that read the state `seen` of any field (a value-type field's state is a
  /// stamp no other field shares): for changes found after the fact, whose field is known only by
  /// its storage.
  func dependencies(overwritingAnyField seen: UInt64) -> DependencySnapshot {
    lock.withLock { _ in
      guard !isDeadStorage else { return .none }
      var snapshot = DependencySnapshot.none
      snapshot.expect(Int(linkedCount))
      forEachList { head in
        var dependency = head?.takeUnretainedValue()
        while let current = dependency {
          if current.seen.load(ordering: .relaxed) == seen || current.alias.load(ordering: .relaxed) == seen {
            snapshot.append(current)
          }
          dependency = current.next
        }
      }
      return snapshot
    }
  }

  /// The dependencies that read the state `old` of a field whose storage now carries `new`, an
  /// equal state, or that followed the storage to `old` by an alias: they take `new` as their alias
  /// and need not run. Returns those that read `old` and already follow another state by an alias
  /// (they must be notified instead: one alias is all a dependency keeps).
  func alias(_ old: UInt64, as new: UInt64) -> [Dependency] {
    lock.withLock { _ in
      var overflow: [Dependency] = []
      guard !isDeadStorage else { return overflow }
      forEachList { head in
        var dependency = head?.takeUnretainedValue()
        while let current = dependency {
          if current.seen.load(ordering: .relaxed) == old {
            let existing = current.alias.load(ordering: .relaxed)
            if existing == 0 || existing == new {
              current.alias.store(new, ordering: .relaxed)
            } else {
              overflow.append(current)
            }
          } else if current.alias.load(ordering: .relaxed) == old {
            // The storage it followed by its alias moved on to another equal state: follow it
            // there (or, if that is the state it read, it needs no alias).
            current.alias.store(current.seen.load(ordering: .relaxed) == new ? 0 : new, ordering: .relaxed)
          }
          dependency = current.next
        }
      }
      if _internalChecksEnabled { checkInvariants() }
      return overflow
    }
  }

  /// Every linked dependency (for wholesale notifications and reconciliation).
  func allDependencies() -> [Dependency] {
    lock.withLock { _ in
      var all: [Dependency] = []
      all.reserveCapacity(Int(linkedCount))
      forEachList { head in
        var dependency = head?.takeUnretainedValue()
        while let current = dependency {
          all.append(current)
          dependency = current.next
        }
      }
      return all
    }
  }

  /// The owner is being deallocated: unlink every dependency and tell the observers.
  func ownerDidDeinit() {
    let observers: [Observer] = lock.withLock { _ in
      var observers: [Observer] = []
      forEachList { head in
        var dependency = head?.takeUnretainedValue()
        while let current = dependency {
          dependency = current.next
          if let observer = current.observer { observers.append(observer) }
          current.previousReference = nil
          current.nextReference = nil
          current.slot = -1
        }
      }
      for slot in 0..<slotCount { setHead(ofSlot: slot, to: nil) }
      linkedCount = 0
      isDeadStorage = true
      if _internalChecksEnabled { checkInvariants() }
      return observers
    }
    for observer in observers { observer.registrarDidDeinit() }
  }

  // MARK: Invariants

  /// Checks the table in full: each field's list against its slot (links both ways, the slot
  /// and the key each dependency knows), one slot per key, the count, the slot index, and the
  /// owner's published "has observers" bit; a dead table holds nothing. With internal checks on,
  /// after every mutation (under the lock) while the table is small (see `checkAfterMutation`);
  /// tests call it directly.
  ///
  /// - Complexity: O(*n*) in the linked dependencies, O(*m*²) in the slots while they are few
  ///   enough to be scanned.
  func _checkInvariants() { lock.withLock { _ in checkInvariants() } }

  /// The checks after a mutation that linked `dependency` (or unlinked some, `nil`): in full while
  /// the table holds at most `_fullCheckLimit` dependencies; beyond, the links of the dependency
  /// linked and what the owner publishes, so that a field read by tens of thousands of observers
  /// stays linear with internal checks on (a full check per link made it quadratic).
  private func checkAfterMutation(touched dependency: Dependency?) {
    if Int(linkedCount) <= _fullCheckLimit { return checkInvariants() }
    if let dependency {
      guard dependency.isLinked, Int(dependency.slot) < slotCount else {
        _invariantViolated("a dependency just linked has no slot")
      }
      if existingSlot(for: dependency.key) != Int(dependency.slot) {
        _invariantViolated("a dependency is in the list of another field")
      }
      if let previous = dependency.previous {
        if previous.next !== dependency { _invariantViolated("a dependency's previous link is wrong") }
      } else if headReference(ofSlot: Int(dependency.slot))?.toOpaque() != Dependency.address(of: dependency) {
        _invariantViolated("a dependency without a previous link is not its list's head")
      }
      if let next = dependency.next, next.previous !== dependency {
        _invariantViolated("a dependency's next link is wrong")
      }
    }
    checkPublished()
  }

  private func checkInvariants() {
    // Walked by address, with an index loop: a check runs on every mutation of a table of up to
    // `_fullCheckLimit` dependencies, in debug builds, where each retain, closure and generic
    // iterator step is a call (the sanitizer runs spent most of their time here).
    var total = 0
    let selfAddress = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
    let slots = slotCount
    var firstKey: FieldKey?
    let overflowSlots = self.overflowSlots
    for index in 0..<slots {
      let slotKey: FieldKey? = index == 0 ? nil : overflowSlots[index - 1].key
      var previous: UnsafeMutableRawPointer?
      var address = headReference(ofSlot: index)?.toOpaque()
      while let currentAddress = address {
        let next = Unmanaged<Dependency>.fromOpaque(currentAddress)._withUnsafeGuaranteedRef { current in
          if current.previousAddress != previous { _invariantViolated("a dependency's previous link is wrong") }
          if current.slot != Int32(index) { _invariantViolated("a dependency is in the list of another slot") }
          if index == 0 {
            if firstKey == nil { firstKey = current.key }
            if current.key != firstKey { _invariantViolated("the first slot's list holds two fields") }
          } else if current.key != slotKey {
            _invariantViolated("a dependency is in the list of another field")
          }
          if UnsafeRawPointer(Unmanaged.passUnretained(current.table).toOpaque()) != selfAddress {
            _invariantViolated("a dependency of another table is linked here")
          }
          return current.nextAddress
        }
        total += 1
        previous = currentAddress
        address = next
      }
    }
    if total != Int(linkedCount) { _invariantViolated("table count \(linkedCount), lists hold \(total)") }
    if let overflow = overflowReference?.takeUnretainedValue() {
      if overflow.slotIndex.isEmpty != (overflow.slots.count <= Self.scanLimit) {
        _invariantViolated(
          "\(overflow.slots.count) overflow slots, slot index \(overflow.slotIndex.isEmpty ? "empty" : "built")")
      }
      // One slot per field: a field's key is in no other slot (small tables only: quadratic).
      if overflow.slots.count <= Self.scanLimit * 4 {
        for index in overflow.slots.indices {
          let key = overflow.slots[index].key
          if key == firstKey { _invariantViolated("a field has two slots") }
          for other in overflow.slots.indices where other > index && overflow.slots[other].key == key {
            _invariantViolated("a field has two slots")
          }
        }
      }
      if overflow.emptySlots.contains(where: { Int($0) >= overflow.slots.count }) {
        _invariantViolated("an empty slot noted beyond the slots")
      }
      if !overflow.slotIndex.isEmpty {
        for index in overflow.slots.indices
        where overflow.slotIndex.find(overflow.slots[index].key, in: overflow.slots) != index {
          _invariantViolated("slot index out of date")
        }
      }
    }
    checkPublished()
  }

  /// A dead table holds nothing; a live one is the table its owner publishes, with the "has
  /// observers" bit set exactly when it holds a dependency.
  private func checkPublished() {
    if isDeadStorage {
      if linkedCount != 0 { _invariantViolated("a dead table holds \(linkedCount) dependencies") }
    } else {
      // The owner is alive while the table is not dead (its deinit marks it dead under this lock).
      let published = withOwner { $0.state.load(ordering: .relaxed) }
      if published & ~1 != UInt(bitPattern: ObjectIdentifier(self)) {
        _invariantViolated("the owner publishes another table")
      }
      if (published & 1 != 0) != (linkedCount > 0) {
        let publishes = published & 1 != 0 ? "observers" : "none"
        _invariantViolated("the owner publishes \(publishes), the table holds \(linkedCount)")
      }
    }
  }
}

/// A table's reflection (`dump`, a debugger's summary, a test's failure message) shows only what
/// stays valid after its owner is gone: the owner is held `unowned(unsafe)` (so is a derived
/// value's `computedSource`), and reflecting a dead one would read freed memory.
extension ObserverTable: CustomReflectable {
  var customMirror: Mirror {
    Mirror(self, children: ["ownerIdentity": ownerIdentity], displayStyle: .class)
  }
}

/// The observer table of a derived value's registrar: the value itself, for readers that ask
/// whether their input is a computed value (to have it refreshed before deciding to re-run).
internal final class ComputedObserverTable: ObserverTable, @unchecked Sendable {
  /// Set before the table is shared and cleared when the value is released (which happens before
  /// it can be deallocated). Not `weak`: a weak reference would move every retain and release of
  /// the derived value to the slow path.
  unowned(unsafe) var source: (any ComputedSource)?

  init(owner: TrackingRegistrar, source: any ComputedSource) {
    self.source = source
    super.init(owner: owner, isComputed: true)
  }
}
