/// One recorded dependency: a field of the object that owns `registrar`.
///
/// The registrar is held weakly so that neither a scope nor a reaction keeps an observed object's
/// registrar alive; `registrarID` keeps the identity comparable without a weak load.
internal struct Access {
  weak var registrar: TrackingRegistrar?
  let registrarID: ObjectIdentifier
  let key: FieldKey
  let label: FieldLabel
  /// The run of the owning recorder that last read this field (reactions drop dependencies a
  /// re-run no longer reads).
  var generation: UInt32
}

/// Hashable pair of identities: which object, which key path object.
internal struct AccessKey: Hashable {
  let registrar: ObjectIdentifier
  let key: ObjectIdentifier
}

/// Receives the accesses of a running tracking scope.
///
/// A tracked read costs one TLS load in the accessor, then here: a comparison with the previous
/// access (repeated reads of one field stop there), a linear scan of a few earlier accesses or a
/// hash lookup of two object identities beyond that, and, for a new field, one append. No
/// `AnyKeyPath` is hashed: equal key paths that are distinct objects are resolved by the registrar,
/// once, when an observer is installed.
@usableFromInline
internal final class AccessRecorder {
  private(set) var accesses: ContiguousArray<Access> = []
  private var index: [AccessKey: Int] = [:]
  /// Strong, so its identity cannot be reused by a new object while it is the fast-path key.
  private var lastRegistrar: TrackingRegistrar?
  private var lastKey: ObjectIdentifier?
  /// Incremented per run by reactions; plain scopes stay at generation 1.
  private(set) var generation: UInt32 = 1
  /// Called for a field read for the first time (a reaction installs itself right away, which
  /// closes the window between reading a field and observing it).
  private let onNewAccess: ((Access) -> Void)?

  private static var indexThreshold: Int { 8 }

  init(onNewAccess: ((Access) -> Void)? = nil) {
    self.onNewAccess = onNewAccess
  }

  var isEmpty: Bool { accesses.isEmpty }

  @usableFromInline
  func record(_ registrar: TrackingRegistrar, _ keyPath: AnyKeyPath, _ label: FieldLabel) {
    record(registrar, FieldKey(keyPath), label)
  }

  func record(_ registrar: TrackingRegistrar, _ key: FieldKey, _ label: FieldLabel) {
    let keyID = key.identity
    if registrar === lastRegistrar && keyID == lastKey { return }
    lastRegistrar = registrar
    lastKey = keyID
    let registrarID = ObjectIdentifier(registrar)
    let accessKey = AccessKey(registrar: registrarID, key: keyID)
    if let position = position(of: accessKey) {
      if accesses[position].registrar === registrar {
        accesses[position].generation = generation
        return
      }
      // The entry belongs to a dead object whose address was reused: replace it.
      accesses[position] = Access(
        registrar: registrar, registrarID: registrarID, key: key, label: label, generation: generation)
      onNewAccess?(accesses[position])
      return
    }
    let access = Access(registrar: registrar, registrarID: registrarID, key: key, label: label, generation: generation)
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
    return accesses.firstIndex { $0.registrarID == key.registrar && $0.key.identity == key.key }
  }

  private func rebuildIndex() {
    index.removeAll(keepingCapacity: true)
    guard accesses.count > Self.indexThreshold else { return }
    index.reserveCapacity(accesses.count)
    for (position, access) in accesses.enumerated() {
      index[AccessKey(registrar: access.registrarID, key: access.key.identity)] = position
    }
  }

  /// Starts a new run: accesses from earlier runs stay, marked with their old generation, until
  /// `removeStale()` drops the ones this run did not read.
  func beginRun() {
    generation &+= 1
    lastRegistrar = nil
    lastKey = nil
  }

  /// Ends a run: forgets the fast-path key (so no registrar is kept alive by it) and removes and
  /// returns the accesses the run did not read.
  func endRun() -> [Access] {
    lastRegistrar = nil
    lastKey = nil
    let current = generation
    guard accesses.contains(where: { $0.generation != current }) else { return [] }
    var stale: [Access] = []
    accesses.removeAll { access in
      guard access.generation != current else { return false }
      stale.append(access)
      return true
    }
    rebuildIndex()
    return stale
  }

  /// Removes and returns every access.
  func removeAll() -> ContiguousArray<Access> {
    let all = accesses
    accesses = []
    index = [:]
    lastRegistrar = nil
    lastKey = nil
    return all
  }

  /// Records the accesses of an inner scope here (for scopes that propagate to their outer scope).
  func merge(_ other: AccessRecorder) {
    for access in other.accesses {
      guard let registrar = access.registrar else { continue }
      record(registrar, access.key, access.label)
    }
  }
}

/// Records a read of `key` on `registrar` if a tracking scope is active on this thread.
///
/// The key path and label are autoclosures so an untracked read builds neither: the whole call
/// is one thread-local load and a branch.
@inlinable @inline(__always)
internal func _recordAccess(
  _ registrar: TrackingRegistrar,
  _ key: @autoclosure () -> AnyKeyPath,
  _ label: @autoclosure () -> FieldLabel
) {
  if let recorder = ThreadLocal.recorder {
    recorder.record(registrar, key(), label())
  }
}
