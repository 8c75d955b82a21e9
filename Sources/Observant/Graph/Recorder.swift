/// Receives the reads of a running tracking scope and keeps them as dependencies.
///
/// A tracked read costs one TLS load in the accessor, then here: a comparison with the previous
/// read (a repeated read of one field stops there, without touching a reference count), a
/// comparison with the dependency the previous run read at the same point (a re-run reading what it
/// read before reuses its dependencies: nothing is allocated, nothing relinked), and otherwise a
/// lookup (a short scan, or a probe of a small open-addressed index once there are many).
///
/// A scope with an owner links each new dependency into the field's list the moment it is read, so
/// a write that follows the read, on any thread, finds the observer: there is no window between
/// reading a field and observing it. A scope without an owner (`recordAccesses`) only collects.
///
/// Thread-confined: a recorder is used only by the thread running its scope, so the dynamic
/// exclusivity checks Swift would emit for these class properties buy nothing on a hot path.
@usableFromInline
internal final class Recorder {
  /// The observer new dependencies belong to and are linked for; `nil` to only collect. Kept
  /// unretained (its scope keeps it alive), as an `Unmanaged` so that handing it to a new
  /// dependency costs the one retain the dependency keeps, not a temporary one more.
  @exclusivity(unchecked) private var ownerReference: Unmanaged<Observer>?

  /// The observer new dependencies belong to and are linked for; `nil` to only collect.
  var owner: Observer? {
    get { ownerReference?.takeUnretainedValue() }
    set { ownerReference = newValue.map { Unmanaged.passUnretained($0) } }
  }
  /// This run's dependencies in the order of first read, then (for a re-running owner) the previous
  /// run's dependencies not read again yet.
  @exclusivity(unchecked) private(set) var dependencies: ContiguousArray<Dependency> = []
  @exclusivity(unchecked) private var index = DependencyIndex()
  /// Where the next read of this run is placed (everything before it was read in this run).
  @exclusivity(unchecked) private(set) var cursor = 0
  @exclusivity(unchecked) private(set) var generation: UInt32 = 1
  /// The previous read: a read of the same field (same registrar, key and stamp, under the same
  /// guard) returns after comparing these.
  @usableFromInline @exclusivity(unchecked) internal var lastRegistrar: UnsafeMutableRawPointer?
  @usableFromInline @exclusivity(unchecked) internal var lastKey: UInt = 0
  @usableFromInline @exclusivity(unchecked) internal var lastSeen: UInt64 = 0
  /// The identities of the guard the previous read was recorded under and of the current one
  /// (compared on the fast path; the guards themselves are below).
  @usableFromInline @exclusivity(unchecked) internal var lastGuardIdentity: UnsafeMutableRawPointer?
  @usableFromInline @exclusivity(unchecked) internal var currentGuardIdentity: UnsafeMutableRawPointer?
  /// The guard new reads are recorded under (see `withTrackingGuard`).
  @exclusivity(unchecked) internal var currentGuard: TrackingGuard? {
    didSet { currentGuardIdentity = currentGuard.map { Unmanaged.passUnretained($0).toOpaque() } }
  }
  /// How many dependencies are guarded; zero lets `allGuardsInvalid` answer at once.
  @exclusivity(unchecked) private var guardedCount = 0
  /// One bit per (table, field) pair of every dependency held (see `filterBit`): a read whose bit
  /// is clear is of a field not held yet, and skips the search. Only ever too full (a bit of a
  /// dependency since dropped stays until the next `endRun`, `removeAll` or `reset`), never short.
  @exclusivity(unchecked) private var heldFilter: UInt64 = 0

  /// Up to this many dependencies a lookup scans them (a few instructions each); beyond, an index
  /// is built (an allocation and a rebuild, worth it only for scopes that read many fields).
  private static var scanLimit: Int { 16 }

  /// Where every read goes instead of being recorded, for a recorder that records nothing (see
  /// `ReadForwarding`); `nil` for the recorders of tracking scopes.
  private let readForwarding: ReadForwarding?

  init(owner: Observer? = nil) {
    self.ownerReference = owner.map { Unmanaged.passUnretained($0) }
    self.readForwarding = nil
  }

  /// A recorder that records nothing and hands every read that reaches it to `forwarding`.
  init(forwardingReadsTo forwarding: ReadForwarding) {
    self.ownerReference = nil
    self.readForwarding = forwarding
  }

  /// The first dependency, unretained (the recorder keeps it); there must be one.
  var firstDependency: Unmanaged<Dependency> { unretainedDependency(at: 0) }

  /// The dependencies of the current (or last) run, in the order of first read.
  var currentDependencies: ArraySlice<Dependency> { dependencies[..<cursor] }

  var isEmpty: Bool { cursor == 0 }

  // MARK: Recording

  /// Records a read. A repeated read of the previous field returns after four comparisons
  /// (inlined into the accessor).
  @inlinable @inline(__always)
  func record(
    _ registrar: TrackingRegistrar, _ key: FieldKey, _ name: @autoclosure () -> FieldName, text: StaticString = "",
    seen: UInt64
  ) {
    if Unmanaged.passUnretained(registrar).toOpaque() == lastRegistrar, Self.lastKeyWord(key, text) == lastKey,
      seen == lastSeen, currentGuardIdentity == lastGuardIdentity
    {
      return
    }
    recordNew(registrar, key, name(), text: text, seen: seen)
  }

  /// What `lastKey` holds for a read: the key, or for a field keyed by name and not resolved yet,
  /// its literal's address with the top bit set (no resolved key has it). Two hand-written fields
  /// of one object are both `.unresolved`: comparing the key alone took the second for a repeat of
  /// the first, and its read was not recorded. (Folded at each accessor: `key` and the literal's
  /// representation are constants there.)
  @inlinable @inline(__always)
  static func lastKeyWord(_ key: FieldKey, _ text: StaticString) -> UInt {
    key.isResolved ? key.rawValue : text._literalWord | 1 << (UInt.bitWidth - 1)
  }

  @usableFromInline
  ///
  /// - Parameter text: for a field keyed by name and not resolved yet (`key` is `.unresolved`),
  ///   its name (`#function` in the accessor), interned here on the first read.
  func recordNew(_ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, text: StaticString, seen: UInt64) {
    defer { if _internalChecksEnabled { _checkInvariantsAfterRead() } }
    lastRegistrar = Unmanaged.passUnretained(registrar).toOpaque()
    lastKey = Self.lastKeyWord(key, text)
    lastSeen = seen
    lastGuardIdentity = currentGuardIdentity
    let resolved = key.isResolved ? key : FieldNames.key(for: text)
    // Matched by the table's address, without touching a reference count: the table is created
    // (below) only for a field never tracked before.
    let tableWord = registrar.state.load(ordering: .acquiring) & ~1
    // A scope's first read (nothing recorded yet, the common case of a one-field scope) skips the
    // lookups.
    if tableWord != 0 && !dependencies.isEmpty {
      // The dependency the previous run read at this point: a re-run that reads what it read
      // before stops here.
      if cursor < dependencies.count {
        let reused = unretainedDependency(at: cursor)._withUnsafeGuaranteedRef { candidate -> Bool in
          guard UInt(bitPattern: ObjectIdentifier(candidate.table)) == tableWord, candidate.key == resolved,
            candidate.generation != generation
          else { return false }
          reuse(candidate, seen: seen)
          return true
        }
        if reused {
          cursor += 1
          return
        }
      }
      if heldFilter & Self.filterBit(tableWord, resolved) != 0, let position = position(ofTableAt: tableWord, resolved)
      {
        // A field this run already read, in the same state and unguarded then and now: nothing
        // to do (the common case of a scope that reads a few objects over and over).
        if isRepeated(at: position, seen: seen) { return }
        let existing = dependencies[position]
        if existing.generation == generation {
          if existing.seen.load(ordering: .relaxed) == seen {
            updateGuard(of: existing, firstReadThisRun: false)
            return
          }
          // The same field of another copy of the value, read in the same run: a dependency of
          // its own (it must hear writes to that copy's state).
        } else {
          if position != cursor { swapAt(position, cursor) }
          reuse(existing, seen: seen)
          cursor += 1
          return
        }
      }
    }
    // A forwarding recorder (the observation bridge's, see `ThreadLocal.recorderForReads`)
    // records nothing, not even the previous read (so the next read of the same field is
    // forwarded too).
    if _slowPath(readForwarding != nil) { return forward(registrar, resolved, name, seen: seen) }
    // The table, unretained: the registrar keeps it alive while its field is read.
    let table =
      tableWord != 0
      ? Unmanaged<ObserverTable>.fromOpaque(UnsafeRawPointer(bitPattern: tableWord)!)
      : Unmanaged.passUnretained(registrar.table)
    addDependency(
      Dependency(
        table: table.takeUnretainedValue(), key: resolved, name: name, seen: seen, generation: generation,
        guardedBy: nil, observer: ownerReference))
  }

  /// Keeps a new dependency (already given this run's generation and the owner) and links it into
  /// its field's list if there is an owner. Takes it over: nothing is retained but what keeps it.
  private func addDependency(_ dependency: __owned Dependency) {
    // The guard is set here, not passed in: the common case (none) then touches no reference count.
    if currentGuardIdentity != nil {
      dependency.guardedBy = currentGuard
      guardedCount += 1
    }
    let linked = ownerReference != nil
    let edge = Unmanaged.passUnretained(dependency)
    insertAtCursor(consume dependency)
    if linked { _ = edge._withUnsafeGuaranteedRef { $0.table.link($0) } }
  }

  @inline(never)
  private func forward(_ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, seen: UInt64) {
    lastRegistrar = nil
    readForwarding?.forwardRead(registrar, key, name, seen: seen)
  }

  /// Whether the dependency at `position` was read in this run, in the state `seen`, unguarded
  /// then and now.
  private func isRepeated(at position: Int, seen: UInt64) -> Bool {
    guard currentGuardIdentity == nil else { return false }
    return unretainedDependency(at: position)._withUnsafeGuaranteedRef { dependency in
      dependency.generation == generation && dependency.guardedBy == nil
        && dependency.seen.load(ordering: .relaxed) == seen
    }
  }

  /// The dependency at `position`, without touching a reference count: the array keeps it alive
  /// while it is used (nothing removes dependencies while a read is recorded).
  ///
  /// Taken out of the buffer before it is used: an atomic operation inside the buffer's closure
  /// makes the compiler retain and release the array's storage around it (two atomic operations
  /// on every tracked read).
  @inline(__always)
  private func unretainedDependency(at position: Int) -> Unmanaged<Dependency> {
    dependencies.withUnsafeBufferPointer { Unmanaged.passUnretained($0[position]) }
  }

  /// A dependency of the previous run read again: same edge, possibly a newer stamp.
  private func reuse(_ dependency: Dependency, seen: UInt64) {
    dependency.generation = generation
    updateGuard(of: dependency, firstReadThisRun: true)
    if dependency.seen.load(ordering: .relaxed) != seen { dependency.seen.store(seen, ordering: .releasing) }
    // A full barrier before the value is loaded, and a sign for writers racing with this read (see
    // `TrackingRegistrar._readersMayHaveMissed(since:)`): a re-run or a recomputation that reads the
    // field again between another thread's announcement of a write and its store reads the old
    // value with the stamp it read before, so the sign cannot depend on the stamp changing (it did
    // once, and such a reader missed the write: a stale screen).
    dependency.table.epoch.wrappingAdd(1, ordering: .sequentiallyConsistent)
    if dependency.alias.load(ordering: .relaxed) != 0 { dependency.alias.store(0, ordering: .relaxed) }
  }

  /// A field read unguarded, or under two guards, counts as unguarded.
  private func updateGuard(of dependency: Dependency, firstReadThisRun: Bool) {
    // The common case, no guards at all, touches no reference count.
    if currentGuardIdentity == nil && dependency.guardedBy == nil { return }
    // Compared by identity, so that an unchanged guard touches no reference count either.
    let oldIsNil = dependency.guardedBy == nil
    let oldIsCurrent = dependency.guardedBy === currentGuard
    if firstReadThisRun {
      // Guarded by the current guard (or by none).
      guard !oldIsCurrent else { return }
      guardedCount += (currentGuardIdentity == nil ? 0 : 1) - (oldIsNil ? 0 : 1)
      dependency.guardedBy = currentGuard
    } else if !oldIsCurrent && !oldIsNil {
      // Read under another guard as well: unguarded.
      guardedCount -= 1
      dependency.guardedBy = nil
    }
  }

  /// The bit of `heldFilter` that stands for field `key` of the table at `tableWord`.
  @inline(__always)
  private static func filterBit(_ tableWord: UInt, _ key: FieldKey) -> UInt64 {
    let mixed = (UInt64(tableWord) ^ UInt64(key.rawValue)) &* 0x9E37_79B9_7F4A_7C15
    return 1 &<< (mixed >> 58)
  }

  private static func filterBit(of dependency: Dependency) -> UInt64 {
    filterBit(UInt(bitPattern: ObjectIdentifier(dependency.table)), dependency.key)
  }

  private func insertAtCursor(_ dependency: __owned Dependency) {
    heldFilter |= Self.filterBit(of: dependency)
    dependency.position = Int32(dependencies.count)
    let edge = Unmanaged.passUnretained(dependency)
    dependencies.append(consume dependency)
    if dependencies.count > Self.scanLimit {
      if index.isEmpty { index.rebuild(dependencies) } else { edge._withUnsafeGuaranteedRef { index.insert($0) } }
    }
    if cursor != dependencies.count - 1 { swapAt(dependencies.count - 1, cursor) }
    cursor += 1
  }

  private func swapAt(_ first: Int, _ second: Int) {
    dependencies.swapAt(first, second)
    dependencies[first].position = Int32(first)
    dependencies[second].position = Int32(second)
  }

  private func find(_ table: ObserverTable, _ key: FieldKey) -> Dependency? {
    if heldFilter & Self.filterBit(UInt(bitPattern: ObjectIdentifier(table)), key) == 0 { return nil }
    let position = position(ofTableAt: UInt(bitPattern: ObjectIdentifier(table)), key)
    return position.map { dependencies[$0] }
  }

  /// The position of the dependency on field `key` of the table at address `tableWord` (the first
  /// recorded, if the run read two copies' states): a scan without reference counting while there
  /// are few, a probe of the index beyond.
  private func position(ofTableAt tableWord: UInt, _ key: FieldKey) -> Int? {
    if !index.isEmpty { return index.find(tableWord, key).map { Int($0.position) } }
    let position = dependencies.withUnsafeBufferPointer { buffer -> Int in
      for position in buffer.indices {
        let matches = Unmanaged.passUnretained(buffer[position])._withUnsafeGuaranteedRef {
          UInt(bitPattern: ObjectIdentifier($0.table)) == tableWord && $0.key == key
        }
        if matches { return position }
      }
      return -1
    }
    return position < 0 ? nil : position
  }

  // MARK: Runs

  /// Starts a new run: the previous run's dependencies stay, to be matched by this run's reads,
  /// until `endRun()` drops the ones it did not read.
  func beginRun() {
    generation &+= 1
    cursor = 0
    lastRegistrar = nil
    if _internalChecksEnabled { _checkInvariants() }
  }

  /// Ends a run: removes and returns the dependencies the run did not read (still linked).
  func endRun() -> ArraySlice<Dependency> {
    lastRegistrar = nil
    guard cursor < dependencies.count else { return [] }
    let stale = dependencies[cursor...]
    guardedCount -= stale.lazy.filter { $0.guardedBy != nil }.count
    dependencies.removeSubrange(cursor...)
    heldFilter = dependencies.reduce(0) { $0 | Self.filterBit(of: $1) }
    index.removeAll()
    if dependencies.count > Self.scanLimit { index.rebuild(dependencies) }
    if _internalChecksEnabled { _checkInvariants() }
    return stale
  }

  /// Removes and returns every dependency (still linked).
  func removeAll() -> ContiguousArray<Dependency> {
    let all = dependencies
    dependencies = []
    heldFilter = 0
    index = DependencyIndex()
    cursor = 0
    lastRegistrar = nil
    guardedCount = 0
    if _internalChecksEnabled { _checkInvariants() }
    return all
  }

  /// Removes and returns every dependency of a run that read them all for the first time (a
  /// one-shot scope's), reserving storage of the same size for the next run: the array changes
  /// hands whole, no dependency is retained or released. Call `reset()` next.
  func handOverDependencies() -> ContiguousArray<Dependency> {
    if cursor != dependencies.count {
      _invariantViolated("handing over \(dependencies.count) dependencies, the run read \(cursor)")
    }
    var all: ContiguousArray<Dependency> = []
    swap(&all, &dependencies)
    dependencies.reserveCapacity(all.count)
    cursor = 0
    heldFilter = 0
    if !index.isEmpty { index.removeAll() }
    return all
  }

  /// Empties the recorder for reuse, keeping its storage. Touches only what a scope can have
  /// changed (a one-shot scope uses no guard and no index unless it read many fields).
  func reset() {
    // `removeAll(keepingCapacity:)` goes through `replaceSubrange`, several times the cost of
    // popping the few dependencies a scope usually holds.
    while dependencies.popLast() != nil {}
    heldFilter = 0
    if !index.isEmpty { index.removeAll() }
    cursor = 0
    generation = 1
    lastRegistrar = nil
    if currentGuard != nil { currentGuard = nil }
    guardedCount = 0
    ownerReference = nil
    if _internalChecksEnabled { _checkInvariants() }
  }

  /// Whether every dependency was read under a guard that is now invalid: nothing recorded here can
  /// still matter to the owner.
  ///
  /// Asked before every run of a reaction that read through a store (every read then is guarded):
  /// the dependencies are looked at unretained, and the first valid guard answers.
  var allGuardsInvalid: Bool {
    guard guardedCount > 0, guardedCount == dependencies.count else { return false }
    for position in dependencies.indices {
      let invalid = unretainedDependency(at: position)._withUnsafeGuaranteedRef { dependency -> Bool in
        guard let guardedBy = dependency.guardedBy else { return false }
        return !guardedBy.isValid
      }
      if !invalid { return false }
    }
    return true
  }

  /// Sets the guard for the reads that follow; returns the previous one.
  func swapGuard(_ new: TrackingGuard?) -> TrackingGuard? {
    defer { currentGuard = new }
    return currentGuard
  }

  /// Records the reads of an inner scope here too (for scopes that propagate to their outer scope).
  func merge(_ other: Recorder) {
    for dependency in other.currentDependencies {
      recordNewDependency(like: dependency)
    }
  }

  private func recordNewDependency(like dependency: Dependency) {
    let seen = dependency.seen.load(ordering: .relaxed)
    if let existing = find(dependency.table, dependency.key), existing.generation == generation,
      existing.seen.load(ordering: .relaxed) == seen
    {
      return
    }
    addDependency(
      Dependency(
        table: dependency.table, key: dependency.key, name: dependency.name, seen: seen, generation: generation,
        guardedBy: nil, observer: ownerReference))
    lastRegistrar = nil
    if _internalChecksEnabled { _checkInvariantsAfterRead() }
  }

  // MARK: Invariants

  /// Checks the recorder in full: every dependency knows its position; those before the cursor
  /// were read in this run and the others were not; the guarded count; the index holds every
  /// field read once there are more dependencies than a scan covers, and none before. With
  /// internal checks on, after every change at a run's boundaries (and after every read while the
  /// dependencies are few); tests call it directly.
  ///
  /// - Complexity: O(*n*) in the dependencies.
  func _checkInvariants() {
    if cursor < 0 || cursor > dependencies.count {
      _invariantViolated("recorder cursor \(cursor) outside 0...\(dependencies.count)")
    }
    for (position, dependency) in dependencies.enumerated() {
      if dependency.position != Int32(position) {
        _invariantViolated("dependency at \(position) thinks it is at \(dependency.position)")
      }
      if (position < cursor) != (dependency.generation == generation) {
        _invariantViolated(
          "dependency at \(position) (cursor \(cursor)) is of run \(dependency.generation), the run is \(generation)")
      }
    }
    for dependency in dependencies where heldFilter & Self.filterBit(of: dependency) == 0 {
      _invariantViolated("the held-dependency filter misses a dependency")
    }
    let guarded = dependencies.lazy.filter { $0.guardedBy != nil }.count
    if guarded != guardedCount { _invariantViolated("guarded count \(guardedCount), actual \(guarded)") }
    if index.isEmpty != (dependencies.count <= Self.scanLimit) {
      _invariantViolated("\(dependencies.count) dependencies, index \(index.isEmpty ? "empty" : "built")")
    }
    if !index.isEmpty { index._checkInvariants(indexing: dependencies) }
  }

  /// After a read that changed the recorder: in full while the dependencies are few; otherwise
  /// what a read can have changed, the dependency just before the cursor and its index entry.
  private func _checkInvariantsAfterRead() {
    if dependencies.count <= _fullCheckLimit { return _checkInvariants() }
    guard cursor > 0 else { return }
    let latest = dependencies[cursor - 1]
    if latest.position != Int32(cursor - 1) || latest.generation != generation {
      _invariantViolated("the dependency just read is not in place before the cursor")
    }
    if find(latest.table, latest.key) == nil { _invariantViolated("the dependency just read is not indexed") }
  }
}

/// Records a read of `key` on `registrar` if a tracking scope is active on this thread.
///
/// The name is an autoclosure so an untracked read builds nothing: the whole call is one
/// thread-local load and a branch.
@inlinable @inline(__always)
internal func _recordAccess(
  _ registrar: TrackingRegistrar,
  _ key: FieldKey,
  _ name: @autoclosure () -> FieldName,
  text: StaticString = "",
  seen: UInt64
) {
  if let recorder = ThreadLocal.recorderForReads {
    recorder._withUnsafeGuaranteedRef { $0.record(registrar, key, name(), text: text, seen: seen) }
  }
}

/// Runs `body` with `recorder` as this thread's tracking scope, restoring the previous scope
/// afterwards (also when `body` throws).
internal func withRecorder<Result>(
  _ recorder: Recorder?,
  propagating: Bool,
  _ body: () throws -> Result
) rethrows -> Result {
  let previous = ThreadLocal.push(recorder)
  defer {
    ThreadLocal.restore(previous)
    if propagating, let recorder, let previous {
      Unmanaged<Recorder>.fromOpaque(previous).takeUnretainedValue().merge(recorder)
    }
  }
  return try body()
}
