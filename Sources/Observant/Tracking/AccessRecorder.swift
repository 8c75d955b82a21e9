/// One recorded dependency: a field of the object whose registrar core is `core`.
///
/// The core, not the registrar, is held: a recorder never keeps an observed object's registrar
/// alive, and a core cannot be deallocated (and its address reused) while an access holds it.
internal struct Access {
  let core: RegistrarCore
  let key: FieldKey
  let label: FieldLabel
  /// The run of the owning recorder that last read this field (reactions drop dependencies a
  /// re-run no longer reads).
  var generation: UInt32
  /// The guard the field was read under in the latest run; `nil` if it was read unguarded (or
  /// under two different guards) at least once.
  var guardedBy: TrackingGuard?
}

/// Hashable pair of identities: which object, which field.
internal struct AccessKey: Hashable {
  let registrar: ObjectIdentifier
  let key: UInt
}

/// Receives the accesses of a running tracking scope.
///
/// A tracked read costs one TLS load in the accessor, then here: a comparison with the previous
/// access (repeated reads of one field stop there), a linear scan of a few earlier accesses or a
/// hash lookup of two identities beyond that, and, for a new field, one append. No `AnyKeyPath`
/// is hashed: equal key paths that are distinct objects are resolved by the observer table, once,
/// when an observer is installed.
@usableFromInline
internal final class AccessRecorder {
  // Thread-confined: a recorder is used only by the thread running its scope, so the dynamic
  // exclusivity checks Swift would emit for these class properties buy nothing on a hot path.
  @exclusivity(unchecked) private(set) var accesses: ContiguousArray<Access> = []
  @exclusivity(unchecked) private var index: [AccessKey: Int] = [:]
  /// The registrar of the previous access, held so its identity cannot be reused by another
  /// object while it is the fast-path key.
  @usableFromInline @exclusivity(unchecked) internal var lastRegistrar: TrackingRegistrar?
  @usableFromInline @exclusivity(unchecked) internal var lastKey: UInt = 0
  /// The guard the previous access was recorded under.
  @usableFromInline @exclusivity(unchecked) internal var lastGuard: TrackingGuard?
  /// Incremented per run by reactions; plain scopes stay at generation 1.
  @exclusivity(unchecked) private(set) var generation: UInt32 = 1
  /// The guard new reads are recorded under (see `withTrackingGuard`).
  @usableFromInline @exclusivity(unchecked) internal var currentGuard: TrackingGuard?
  /// How many accesses are guarded; zero lets `allGuardsInvalid` answer at once.
  @exclusivity(unchecked) private var guardedCount = 0
  /// Called for a field read for the first time (a reaction installs itself right away, which
  /// closes the window between reading a field and observing it).
  private let onNewAccess: ((Access) -> Void)?

  private static var indexThreshold: Int { 8 }

  init(onNewAccess: ((Access) -> Void)? = nil) {
    self.onNewAccess = onNewAccess
  }

  var isEmpty: Bool { accesses.isEmpty }

  /// Records a read. A repeated read of the previous field returns after two comparisons
  /// (inlined into the accessor).
  @inlinable @inline(__always)
  func record(_ registrar: TrackingRegistrar, _ key: FieldKey, _ label: FieldLabel) {
    if registrar === lastRegistrar && key.identity == lastKey && currentGuard === lastGuard { return }
    recordNew(registrar, key, label)
  }

  /// Sets the guard for the reads that follow; returns the previous one.
  @usableFromInline
  func swapGuard(_ new: TrackingGuard?) -> TrackingGuard? {
    defer { currentGuard = new }
    return currentGuard
  }

  @usableFromInline
  func recordNew(_ registrar: TrackingRegistrar, _ key: FieldKey, _ label: FieldLabel) {
    lastRegistrar = registrar
    lastKey = key.identity
    lastGuard = currentGuard
    record(registrar.core, key, label)
  }

  private func record(_ core: RegistrarCore, _ key: FieldKey, _ label: FieldLabel) {
    let coreID = ObjectIdentifier(core)
    let accessKey = AccessKey(registrar: coreID, key: key.identity)
    if let position = position(of: accessKey) {
      let firstReadThisRun = accesses[position].generation != generation
      accesses[position].generation = generation
      let old = accesses[position].guardedBy
      // A field read unguarded, or under two guards, counts as unguarded.
      let new = firstReadThisRun ? currentGuard : (old === currentGuard ? old : nil)
      if new !== old {
        guardedCount += (new == nil ? 0 : 1) - (old == nil ? 0 : 1)
        accesses[position].guardedBy = new
      }
      return
    }
    let access = Access(core: core, key: key, label: label, generation: generation, guardedBy: currentGuard)
    if currentGuard != nil { guardedCount += 1 }
    accesses.append(access)
    if !index.isEmpty {
      index[accessKey] = accesses.count - 1
    } else if accesses.count > Self.indexThreshold {
      rebuildIndex()
    }
    onNewAccess?(access)
  }

  private func position(of key: AccessKey) -> Int? {
    if !index.isEmpty { return index[key] }
    return accesses.firstIndex { ObjectIdentifier($0.core) == key.registrar && $0.key.identity == key.key }
  }

  private func rebuildIndex() {
    index.removeAll(keepingCapacity: true)
    guard accesses.count > Self.indexThreshold else { return }
    index.reserveCapacity(accesses.count)
    for (position, access) in accesses.enumerated() {
      index[AccessKey(registrar: ObjectIdentifier(access.core), key: access.key.identity)] = position
    }
  }

  /// Starts a new run: accesses from earlier runs stay, marked with their old generation, until
  /// `endRun()` drops the ones this run did not read.
  func beginRun() {
    generation &+= 1
    lastRegistrar = nil
  }

  /// Ends a run: removes and returns the accesses the run did not read.
  func endRun() -> ContiguousArray<Access> {
    lastRegistrar = nil
    let current = generation
    guard accesses.contains(where: { $0.generation != current }) else { return [] }
    var stale: ContiguousArray<Access> = []
    accesses.removeAll { access in
      guard access.generation != current else { return false }
      stale.append(access)
      return true
    }
    guardedCount -= stale.lazy.filter { $0.guardedBy != nil }.count
    rebuildIndex()
    return stale
  }

  /// Removes and returns every access.
  func removeAll() -> ContiguousArray<Access> {
    let all = accesses
    accesses = []
    index = [:]
    lastRegistrar = nil
    guardedCount = 0
    return all
  }

  /// Whether every access was read under a guard that is now invalid: nothing recorded here can
  /// still matter to the owner.
  var allGuardsInvalid: Bool {
    guard guardedCount > 0, guardedCount == accesses.count else { return false }
    return accesses.allSatisfy { $0.guardedBy?.isValid == false }
  }

  /// Empties the recorder for reuse, keeping its storage.
  func reset() {
    accesses.removeAll(keepingCapacity: true)
    if !index.isEmpty { index.removeAll(keepingCapacity: true) }
    lastRegistrar = nil
    generation = 1
    currentGuard = nil
    guardedCount = 0
  }

  /// Records the accesses of an inner scope here (for scopes that propagate to their outer scope).
  func merge(_ other: AccessRecorder) {
    for access in other.accesses {
      record(access.core, access.key, access.label)
    }
  }
}

/// Records a read of `key` on `registrar` if a tracking scope is active on this thread.
///
/// The key and label are autoclosures so an untracked read builds neither (no key path): the
/// whole call is one thread-local load and a branch.
@inlinable @inline(__always)
internal func _recordAccess(
  _ registrar: TrackingRegistrar,
  _ key: @autoclosure () -> FieldKey,
  _ label: @autoclosure () -> FieldLabel
) {
  if let recorder = ThreadLocal.recorder {
    // Evaluated here, not inside the closure below, so `@Tracked`'s storage offset folds to a
    // constant instead of escaping into a closure context.
    let key = key()
    let label = label()
    recorder._withUnsafeGuaranteedRef { $0.record(registrar, key, label) }
  }
}

/// Whether a tracking scope is recording reads on this thread right now: owners that would
/// allocate something only for a tracked read (a store's identity slot) ask first.
///
/// - Complexity: O(1): one thread-local load.
@inlinable
public var isTrackingAccesses: Bool { ThreadLocal.isTracking }
