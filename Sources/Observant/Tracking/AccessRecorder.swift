/// One recorded dependency: a field of the object whose registrar core is `core`.
///
/// The core, not the registrar, is held: a recorder never keeps an observed object's registrar
/// alive, and a core cannot be deallocated (and its address reused) while an access holds it.
/// `@unchecked Sendable`: the address is an identity, never dereferenced except through `core`.
internal struct Access: @unchecked Sendable {
  let core: RegistrarCore
  /// `core`'s address, compared without touching its reference count.
  let coreAddress: UnsafeMutableRawPointer
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
/// access (repeated reads of one field stop there, without touching a reference count), a short
/// scan of the first few accesses or a probe of a small open-addressed index beyond that, and,
/// for a new field, one append. No `AnyKeyPath` is hashed, nor anything with SipHash: identity is
/// the pair (observer table address, field identity); equal key paths that are distinct objects
/// are resolved by the observer table, once, when an observer is installed.
@usableFromInline
internal final class AccessRecorder {
  // Thread-confined: a recorder is used only by the thread running its scope, so the dynamic
  // exclusivity checks Swift would emit for these class properties buy nothing on a hot path.
  @exclusivity(unchecked) private(set) var accesses: ContiguousArray<Access> = []
  @exclusivity(unchecked) private var index = AccessIndex()
  /// The observer table of the previous access. Only compared, and valid as an identity because
  /// `accesses` retains that table (so its address cannot be reused meanwhile).
  @usableFromInline @exclusivity(unchecked) internal var lastCore: UnsafeMutableRawPointer?
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

  private static var scanLimit: Int { 8 }

  init(onNewAccess: ((Access) -> Void)? = nil) {
    self.onNewAccess = onNewAccess
  }

  var isEmpty: Bool { accesses.isEmpty }

  /// Records a read. A repeated read of the previous field returns after three comparisons
  /// (inlined into the accessor).
  @inlinable @inline(__always)
  func record(_ registrar: TrackingRegistrar, _ key: FieldKey, _ label: FieldLabel) {
    if let core = registrar._coreAddress, core == lastCore, key.identity == lastKey, currentGuard === lastGuard {
      return
    }
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
    let address = registrar._coreAddress ?? Unmanaged.passUnretained(registrar.core).toOpaque()
    lastCore = address
    lastKey = key.identity
    if lastGuard !== currentGuard { lastGuard = currentGuard }
    // The registrar keeps its core alive for the duration of this call.
    Unmanaged<RegistrarCore>.fromOpaque(address)._withUnsafeGuaranteedRef { record($0, address, key, label) }
  }

  private func record(_ core: RegistrarCore, _ key: FieldKey, _ label: FieldLabel) {
    record(core, Unmanaged.passUnretained(core).toOpaque(), key, label)
  }

  private func record(_ core: RegistrarCore, _ address: UnsafeMutableRawPointer, _ key: FieldKey, _ label: FieldLabel) {
    if let position = position(of: address, key.identity) {
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
    let access = Access(
      core: core, coreAddress: address, key: key, label: label, generation: generation, guardedBy: currentGuard)
    if currentGuard != nil { guardedCount += 1 }
    accesses.append(access)
    if accesses.count > Self.scanLimit {
      if index.isEmpty {
        index.rebuild(accesses)
      } else {
        index.insert(accesses.count - 1, in: accesses)
      }
    }
    onNewAccess?(access)
  }

  private func position(of address: UnsafeMutableRawPointer, _ key: UInt) -> Int? {
    if !index.isEmpty { return index.find(address, key, in: accesses) }
    return accesses.withUnsafeBufferPointer { accesses in
      accesses.firstIndex { $0.coreAddress == address && $0.key.identity == key }
    }
  }

  /// Starts a new run: accesses from earlier runs stay, marked with their old generation, until
  /// `endRun()` drops the ones this run did not read.
  func beginRun() {
    generation &+= 1
    lastCore = nil
  }

  /// Ends a run: removes and returns the accesses the run did not read.
  func endRun() -> ContiguousArray<Access> {
    lastCore = nil
    let current = generation
    guard accesses.contains(where: { $0.generation != current }) else { return [] }
    var stale: ContiguousArray<Access> = []
    accesses.removeAll { access in
      guard access.generation != current else { return false }
      stale.append(access)
      return true
    }
    guardedCount -= stale.lazy.filter { $0.guardedBy != nil }.count
    index.removeAll()
    if accesses.count > Self.scanLimit { index.rebuild(accesses) }
    return stale
  }

  /// Removes and returns every access.
  func removeAll() -> ContiguousArray<Access> {
    let all = accesses
    accesses = []
    index = AccessIndex()
    lastCore = nil
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
    index.removeAll()
    lastCore = nil
    lastGuard = nil
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

/// Positions of accesses by (observer table, field): open addressing with linear probing over a
/// power-of-two table of positions, hashed by a multiply-shift of the two identities. Cheaper
/// than `Dictionary`, whose SipHash dominated reads of many fields.
internal struct AccessIndex {
  private var slots: [Int32] = []
  private var shift = 64

  var isEmpty: Bool { slots.isEmpty }

  private func slot(_ address: UnsafeMutableRawPointer, _ key: UInt) -> Int {
    let mixed = (UInt(bitPattern: address) ^ (key &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
    return Int(truncatingIfNeeded: mixed >> UInt(shift))
  }

  func find(_ address: UnsafeMutableRawPointer, _ key: UInt, in accesses: ContiguousArray<Access>) -> Int? {
    let mask = slots.count - 1
    var slot = self.slot(address, key)
    return accesses.withUnsafeBufferPointer { accesses in
      while true {
        let position = Int(slots[slot])
        if position < 0 { return nil }
        if accesses[position].coreAddress == address && accesses[position].key.identity == key { return position }
        slot = (slot + 1) & mask
      }
    }
  }

  mutating func insert(_ position: Int, in accesses: ContiguousArray<Access>) {
    if (position + 1) * 2 > slots.count {
      rebuild(accesses)
      return
    }
    place(position, accesses[position])
  }

  mutating func rebuild(_ accesses: ContiguousArray<Access>) {
    var capacity = 16
    while capacity < accesses.count * 2 { capacity *= 2 }
    slots = [Int32](repeating: -1, count: capacity)
    shift = 64 - capacity.trailingZeroBitCount
    for (position, access) in accesses.enumerated() { place(position, access) }
  }

  private mutating func place(_ position: Int, _ access: Access) {
    let mask = slots.count - 1
    var slot = self.slot(access.coreAddress, access.key.identity)
    while slots[slot] >= 0 { slot = (slot + 1) & mask }
    slots[slot] = Int32(truncatingIfNeeded: position)
  }

  mutating func removeAll() {
    if !slots.isEmpty { slots = [] }
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
