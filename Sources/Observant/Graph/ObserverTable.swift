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
/// dependency itself). Finding a field's list is a scan of a few slots, or one hash lookup once the
/// object has many observed fields. Slots are never removed (an object has a bounded number of
/// fields), so a linked dependency can keep its slot's index.
internal class ObserverTable: @unchecked Sendable {
  private struct Slot {
    let key: FieldKey
    /// The first dependency of the field's list, unretained (the observers own their
    /// dependencies). Kept as a raw address: an `unowned(unsafe)` optional stored in a struct did
    /// not survive copies of the struct with the Swift 6.3 compiler.
    fileprivate var headAddress: UnsafeMutableRawPointer?
    /// 32 bits, as `Slots` keeps it for its first slot.
    var count: Int32 = 0

    init(key: FieldKey) { self.key = key }

    fileprivate init(key: FieldKey, headAddress: UnsafeMutableRawPointer?, count: Int32) {
      self.key = key
      self.headAddress = headAddress
      self.count = count
    }

    // Without closures (`Optional.map`), as `Dependency`'s links: see there.
    var head: Dependency? {
      get { headReference?.takeUnretainedValue() }
      set { headAddress = Dependency.address(of: newValue) }
    }

    /// The first dependency, unretained.
    var headReference: Unmanaged<Dependency>? {
      get {
        guard let headAddress else { return nil }
        return Unmanaged<Dependency>.fromOpaque(headAddress)
      }
      set { headAddress = newValue?.toOpaque() }
    }
  }

  /// The slots, in the order their fields were first read: the first kept inline, the others in an
  /// array. An object whose readers read one of its fields (a row's count, say) then allocates no
  /// array: its table is one heap block. Stored field by field, not as a `Slot` and a flag, so
  /// that the table's other state fills the gaps (the table fits a 112-byte block).
  private struct Slots: RandomAccessCollection {
    private var firstKey = FieldKey(rawValue: 0)
    private var firstHead: UnsafeMutableRawPointer?
    private var rest: ContiguousArray<Slot> = []
    private var firstCount: Int32 = 0
    private var hasFirst = false

    var startIndex: Int { 0 }
    var endIndex: Int { hasFirst ? 1 + rest.count : 0 }

    subscript(position: Int) -> Slot {
      get {
        guard position != 0 else {
          if !hasFirst { _invariantViolated("the observer table's slot 0 does not exist") }
          return Slot(key: firstKey, headAddress: firstHead, count: firstCount)
        }
        return rest[position - 1]
      }
    }

    /// Calls `body` on the slot at `position`, in place (one uniqueness check of the array).
    @inline(__always)
    mutating func update(_ position: Int, _ body: (inout Slot) -> Void) {
      guard position != 0 else {
        var slot = self[0]
        body(&slot)
        if slot.key != firstKey { _invariantViolated("the observer table's slot 0 replaced") }
        firstHead = slot.headAddress
        firstCount = slot.count
        return
      }
      rest.withUnsafeMutableBufferPointer { body(&$0[position - 1]) }
    }

    /// The key of the slot at `position`, without building the slot.
    @inline(__always)
    func key(at position: Int) -> FieldKey { position == 0 ? firstKey : rest[position - 1].key }

    /// The position of the slot of `key`, by a scan.
    @inline(__always)
    func scan(for key: FieldKey) -> Int32? {
      guard hasFirst else { return nil }
      if firstKey == key { return 0 }
      return rest.withUnsafeBufferPointer { rest in
        for index in rest.indices where rest[index].key == key { return Int32(index + 1) }
        return nil
      }
    }

    mutating func append(_ slot: Slot) {
      guard hasFirst else {
        firstKey = slot.key
        firstHead = slot.headAddress
        firstCount = slot.count
        hasFirst = true
        return
      }
      rest.append(slot)
    }
  }

  private struct State {
    var slots = Slots()
    var isDead = false
    var count = 0
    var slotIndex = SlotIndex()
  }

  /// Slot positions by field key, once an object has more observed fields than a scan should
  /// cover: open addressing with linear probing over a power-of-two array, hashed by a
  /// multiply-shift of the key (cheaper than `Dictionary`'s SipHash, which dominated scopes that
  /// read many fields of one object). Slots are never removed, so neither are entries.
  private struct SlotIndex {
    /// Slot position + 1 per bucket; 0 is an empty bucket.
    private var buckets: ContiguousArray<Int32> = []
    // 32-bit counters: the table is allocated per observed object, and these keep it in a
    // smaller heap block.
    private var shift: UInt32 = 64
    private var used: UInt32 = 0

    var isEmpty: Bool { buckets.isEmpty }

    private func bucket(_ key: FieldKey) -> Int {
      Int(truncatingIfNeeded: (key.rawValue &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
    }

    func find(_ key: FieldKey, in slots: Slots) -> Int32? {
      let mask = buckets.count - 1
      var position = bucket(key)
      while true {
        let entry = buckets[position]
        if entry == 0 { return nil }
        if slots.key(at: Int(entry - 1)) == key { return entry - 1 }
        position = (position + 1) & mask
      }
    }

    /// Indexes every slot (the first time, or when the buckets fill up).
    mutating func rebuild(_ slots: Slots) {
      var capacity = 32
      while capacity < slots.count * 2 { capacity *= 2 }
      buckets = ContiguousArray(repeating: 0, count: capacity)
      shift = UInt32(64 - capacity.trailingZeroBitCount)
      used = 0
      for position in slots.indices { place(slots.key(at: position), Int32(position)) }
    }

    /// Indexes the slot just appended at `position`.
    mutating func insert(_ slots: Slots, at position: Int32) {
      if Int(used + 1) * 2 > buckets.count {
        rebuild(slots)
      } else {
        place(slots.key(at: Int(position)), position)
      }
    }

    private mutating func place(_ key: FieldKey, _ position: Int32) {
      let mask = buckets.count - 1
      var index = bucket(key)
      while buckets[index] != 0 { index = (index + 1) & mask }
      buckets[index] = position + 1
      used += 1
    }
  }

  /// The owning registrar's address: its identity (for access logs and in-place frames) for the
  /// table's whole life, and the registrar itself (`owner`) while it is alive.
  private let ownerAddress: UnsafeMutableRawPointer
  private let state = Mutex(State())
  /// Whether this is a `ComputedObserverTable` (the table of a derived value). Stored here, where
  /// the lock's state leaves a gap, rather than the source itself: most tables belong to objects
  /// and values.
  private let isComputed: Bool

  /// Advanced (with a full barrier) every time a reader starts depending on a field's current
  /// state: a new link, or a kept dependency that now reads a newer state. A writer that compared
  /// it before announcing its write and finds it moved after storing the value knows a reader may
  /// have read the old value after the announcement (see `TrackingRegistrar._writeTicket`).
  let epoch = Atomic<UInt64>(1)

  private static var scanLimit: Int { 8 }

  /// - Parameter isComputed: `true` only for a `ComputedObserverTable`.
  init(owner: TrackingRegistrar, isComputed: Bool = false) {
    ownerAddress = Unmanaged.passUnretained(owner).toOpaque()
    self.isComputed = isComputed
  }

  /// The owning registrar's identity, for access logs: valid after the registrar went away (it
  /// is never turned back into a reference).
  var ownerIdentity: ObjectIdentifier { unsafeBitCast(ownerAddress, to: ObjectIdentifier.self) }

  /// Valid while the owner is alive: used only under the lock and only while `!isDead`, and the
  /// owner's `deinit` sets `isDead` under the same lock.
  private var owner: TrackingRegistrar { Unmanaged<TrackingRegistrar>.fromOpaque(ownerAddress).takeUnretainedValue() }

  /// The computed value whose registrar owns this table (a derived value; see
  /// `ComputedObserverTable`), `nil` for the tables of objects and values.
  var computedSource: (any ComputedSource)? {
    guard isComputed else { return nil }
    return unsafeDowncast(self, to: ComputedObserverTable.self).source
  }

  /// Number of linked dependencies.
  var count: Int { state.withLock { $0.count } }

  /// Whether the owning registrar is gone.
  var isDead: Bool { state.withLock { $0.isDead } }

  // MARK: Linking

  /// Links `dependency` into its field's list. Returns `false` (linking nothing) if the owner is
  /// gone.
  @discardableResult
  func link(_ dependency: Dependency) -> Bool {
    state.withLock { state in
      guard !state.isDead else { return false }
      linkLive(dependency, in: &state)
      return true
    }
  }

  /// Links `dependency` into its field's list unless a dependency already linked there satisfies
  /// `isEquivalent`, under one lock (so two threads cannot both find nothing and both link).
  /// Returns `.found` if an equivalent dependency is linked (linking nothing), `.linked` after
  /// linking, `.ownerGone` if the owner is gone. `isEquivalent` runs under the table's lock: it
  /// may take locks that are never held while this table's lock is taken.
  func link(_ dependency: Dependency, unlessLinked isEquivalent: (Dependency) -> Bool) -> LinkResult {
    state.withLock { state in
      guard !state.isDead else { return .ownerGone }
      if let slot = Self.existingSlot(for: dependency.key, in: state) {
        var current = state.slots[Int(slot)].head
        while let candidate = current {
          if isEquivalent(candidate) { return .found }
          current = candidate.next
        }
      }
      linkLive(dependency, in: &state)
      return .linked
    }
  }

  /// Links `dependency` under the lock, the owner being alive: publishes "has observers" for the
  /// first link and advances the epoch.
  private func linkLive(_ dependency: Dependency, in state: inout State) {
    Self.link(dependency, in: &state)
    if state.count == 1 { owner.publishHasObservers(true, table: self) }
    // After the publication: the reader's load of the value cannot move before this barrier.
    epoch.wrappingAdd(1, ordering: .sequentiallyConsistent)
    if _internalChecksEnabled { checkAfterMutation(state, touched: dependency) }
  }

  /// What `link(_:unlessLinked:)` did.
  enum LinkResult {
    case linked
    case found
    case ownerGone
  }

  /// Unlinks each of `dependencies` that is linked (others are ignored).
  func unlink<Dependencies: Sequence<Dependency>>(_ dependencies: Dependencies) {
    state.withLock { state in
      let before = state.count
      for dependency in dependencies where dependency.isLinked {
        Self.unlink(dependency, in: &state)
      }
      if before > 0 && state.count == 0 && !state.isDead { owner.publishHasObservers(false, table: self) }
      if _internalChecksEnabled { checkAfterMutation(state, touched: nil) }
    }
  }

  /// Unlinks `dependency` if it is linked: `unlink(_:andFollowingOf:)` for one dependency, without
  /// an iterator.
  func unlink(_ dependency: Dependency) {
    state.withLock { state in
      guard dependency.isLinked else { return }
      Self.unlink(dependency, in: &state)
      if state.count == 0 && !state.isDead { owner.publishHasObservers(false, table: self) }
      if _internalChecksEnabled { checkAfterMutation(state, touched: nil) }
    }
  }

  /// Unlinks `first` and the dependencies `rest` yields after it while they belong to this table,
  /// under one lock; returns the first dependency of another table (not unlinked), if any.
  func unlink<Rest: IteratorProtocol<Dependency>>(_ first: Dependency, andFollowingOf rest: inout Rest) -> Dependency? {
    state.withLock { state in
      let before = state.count
      var current: Dependency? = first
      var other: Dependency?
      while let dependency = current {
        guard dependency.table === self else {
          other = dependency
          break
        }
        if dependency.isLinked { Self.unlink(dependency, in: &state) }
        current = rest.next()
      }
      if before > 0 && state.count == 0 && !state.isDead { owner.publishHasObservers(false, table: self) }
      if _internalChecksEnabled { checkAfterMutation(state, touched: nil) }
      return other
    }
  }

  private static func link(_ dependency: Dependency, in state: inout State) {
    let slot = slotIndex(for: dependency.key, in: &state)
    dependency.slot = slot
    dependency.previous = nil
    // The old head is touched through its address: no retain and release around the update.
    let reference = Unmanaged.passUnretained(dependency)
    state.slots.update(Int(slot)) { slot in
      let head = slot.headReference
      dependency.nextReference = head
      head?._withUnsafeGuaranteedRef { $0.previousReference = reference }
      slot.headReference = reference
      slot.count += 1
    }
    state.count += 1
  }

  private static func unlink(_ dependency: Dependency, in state: inout State) {
    let slot = Int(dependency.slot)
    // Through the neighbours' addresses: no retain and release of either.
    let previous = dependency.previousReference
    let next = dependency.nextReference
    if let previous {
      previous._withUnsafeGuaranteedRef { $0.nextReference = next }
    } else {
      state.slots.update(slot) { $0.headReference = next }
    }
    next?._withUnsafeGuaranteedRef { $0.previousReference = previous }
    dependency.previousReference = nil
    dependency.nextReference = nil
    dependency.slot = -1
    state.slots.update(slot) { $0.count -= 1 }
    state.count -= 1
  }

  private static func slotIndex(for key: FieldKey, in state: inout State) -> Int32 {
    if let existing = existingSlot(for: key, in: state) { return existing }
    state.slots.append(Slot(key: key))
    let index = Int32(state.slots.count - 1)
    if state.slots.count > scanLimit {
      if state.slotIndex.isEmpty {
        state.slotIndex.rebuild(state.slots)
      } else {
        state.slotIndex.insert(state.slots, at: index)
      }
    }
    return index
  }

  @inline(__always)
  private static func existingSlot(for key: FieldKey, in state: State) -> Int32? {
    if !state.slotIndex.isEmpty { return state.slotIndex.find(key, in: state.slots) }
    return state.slots.scan(for: key)
  }

  // MARK: Notifying

  /// The dependencies a write of `key` concerns: those that read the state the write overwrites
  /// (`seen`), and every one that read a class field (`Stamp.none`). Strong references, taken under
  /// the lock, so that observers can be called after it is released.
  func dependencies(of key: FieldKey, overwriting seen: UInt64) -> DependencySnapshot {
    state.withLock { state in
      guard !state.isDead, let slot = Self.existingSlot(for: key, in: state) else { return .none }
      var snapshot = DependencySnapshot.none
      snapshot.expect(Int(state.slots[Int(slot)].count))
      // Walked by address: only the dependencies taken are retained (by the snapshot).
      var dependency = state.slots[Int(slot)].headReference
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
    state.withLock { state in
      guard !state.isDead else { return .none }
      var snapshot = DependencySnapshot.none
      snapshot.expect(state.count)
      for slot in state.slots {
        var dependency = slot.head
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
    state.withLock { state in
      var overflow: [Dependency] = []
      guard !state.isDead else { return overflow }
      for slot in state.slots {
        var dependency = slot.head
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
      if _internalChecksEnabled { checkInvariants(state) }
      return overflow
    }
  }

  /// Every linked dependency (for wholesale notifications and reconciliation).
  func allDependencies() -> [Dependency] {
    state.withLock { state in
      var all: [Dependency] = []
      all.reserveCapacity(state.count)
      for slot in state.slots {
        var dependency = slot.head
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
    let observers: [Observer] = state.withLock { state in
      var observers: [Observer] = []
      for index in state.slots.indices {
        var dependency = state.slots[index].head
        while let current = dependency {
          dependency = current.next
          if let observer = current.observer { observers.append(observer) }
          current.previous = nil
          current.next = nil
          current.slot = -1
        }
        state.slots.update(index) { slot in
          slot.head = nil
          slot.count = 0
        }
      }
      state.count = 0
      state.isDead = true
      if _internalChecksEnabled { checkInvariants(state) }
      return observers
    }
    for observer in observers { observer.registrarDidDeinit() }
  }

  // MARK: Invariants

  /// Checks the table in full: each field's list against its slot (links both ways, the slot
  /// and the key each dependency knows, the count), the total, the slot index, and the owner's
  /// published "has observers" bit; a dead table holds nothing. With internal checks on, after
  /// every mutation (under the lock) while the table is small (see `checkAfterMutation`); tests
  /// call it directly.
  ///
  /// - Complexity: O(*n*) in the linked dependencies and the slots.
  func _checkInvariants() { state.withLock { checkInvariants($0) } }

  /// The checks after a mutation that linked `dependency` (or unlinked some, `nil`): in full while
  /// the table holds at most `_fullCheckLimit` dependencies; beyond, the links of the dependency
  /// linked and what the owner publishes, so that a field read by tens of thousands of observers
  /// stays linear with internal checks on (a full check per link made it quadratic).
  private func checkAfterMutation(_ state: State, touched dependency: Dependency?) {
    if state.count <= _fullCheckLimit { return checkInvariants(state) }
    if let dependency {
      guard dependency.isLinked, Int(dependency.slot) < state.slots.count else {
        _invariantViolated("a dependency just linked has no slot")
      }
      let slot = state.slots[Int(dependency.slot)]
      if slot.key != dependency.key { _invariantViolated("a dependency is in the list of another field") }
      if let previous = dependency.previous {
        if previous.next !== dependency { _invariantViolated("a dependency's previous link is wrong") }
      } else if slot.head !== dependency {
        _invariantViolated("a dependency without a previous link is not its list's head")
      }
      if let next = dependency.next, next.previous !== dependency {
        _invariantViolated("a dependency's next link is wrong")
      }
    }
    checkPublished(state)
  }

  private func checkInvariants(_ state: State) {
    // Walked by address, with an index loop: a check runs on every mutation of a table of up to
    // `_fullCheckLimit` dependencies, in debug builds, where each retain, closure and generic
    // iterator step is a call (the sanitizer runs spent most of their time here).
    var total = 0
    let selfAddress = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
    for index in 0..<state.slots.endIndex {
      let slot = state.slots[index]
      var count = 0
      var previous: UnsafeMutableRawPointer?
      var address = slot.headAddress
      while let currentAddress = address {
        let next = Unmanaged<Dependency>.fromOpaque(currentAddress)._withUnsafeGuaranteedRef { current in
          if current.previousAddress != previous { _invariantViolated("a dependency's previous link is wrong") }
          if current.slot != Int32(index) { _invariantViolated("a dependency is in the list of another slot") }
          if current.key != slot.key { _invariantViolated("a dependency is in the list of another field") }
          if UnsafeRawPointer(Unmanaged.passUnretained(current.table).toOpaque()) != selfAddress {
            _invariantViolated("a dependency of another table is linked here")
          }
          return current.nextAddress
        }
        count += 1
        previous = currentAddress
        address = next
      }
      if count != slot.count { _invariantViolated("slot count \(slot.count), list length \(count)") }
      total += count
      if !state.slotIndex.isEmpty && state.slotIndex.find(slot.key, in: state.slots) != Int32(index) {
        _invariantViolated("slot index out of date")
      }
    }
    if total != state.count { _invariantViolated("table count \(state.count), lists hold \(total)") }
    if state.slotIndex.isEmpty != (state.slots.count <= Self.scanLimit) {
      _invariantViolated("\(state.slots.count) slots, slot index \(state.slotIndex.isEmpty ? "empty" : "built")")
    }
    checkPublished(state)
  }

  /// A dead table holds nothing; a live one is the table its owner publishes, with the "has
  /// observers" bit set exactly when it holds a dependency.
  private func checkPublished(_ state: State) {
    if state.isDead {
      if state.count != 0 { _invariantViolated("a dead table holds \(state.count) dependencies") }
    } else {
      // The owner is alive while the table is not dead (its deinit marks it dead under this lock).
      let published = owner.state.load(ordering: .relaxed)
      if published & ~1 != UInt(bitPattern: ObjectIdentifier(self)) {
        _invariantViolated("the owner publishes another table")
      }
      if (published & 1 != 0) != (state.count > 0) {
        let publishes = published & 1 != 0 ? "observers" : "none"
        _invariantViolated("the owner publishes \(publishes), the table holds \(state.count)")
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
