import Synchronization
import _ObservantShims

/// The registrar of an observable object or value: the handle through which its fields' readers
/// and writers find the observer table.
///
/// Every `Trackable` class stores one, and every `ObservableState` value reaches one through its
/// `StateRegistrar` (copies of a value share it). Accessors call it on every read and write:
///
/// - A read records the field in the tracking scope active on this thread, if any. With no scope
///   active it costs one thread-local load; nothing is built.
/// - A write to an object nobody observes costs a relaxed atomic load before the store, a full
///   memory barrier and another load after it, and no lock.
/// - A write to an observed field notifies its observers before the value is stored (willSet),
///   on the writing thread.
///
/// The registrar is thread-safe: observers are installed, removed and notified under a lock that is
/// never held while user code runs. Its observer table is allocated the first time a tracking
/// scope reads one of its fields, so an object nobody observes carries only this one-word handle.
/// When the registrar goes away (with its object), every observer entry goes with it.
///
/// Apple's `Observation` module has a type with a similar role; this one is named differently so
/// both can be imported into the same file.
public final class TrackingRegistrar: Sendable {
  /// The observer table's address (retained while stored), with bit 0 set while any observer is
  /// installed. Zero until a field is first tracked. One word, so that a write to an unobserved
  /// object is one load and a branch.
  @usableFromInline
  internal let state: Atomic<UInt>

  /// Creates a registrar with no observers.
  ///
  /// - Complexity: O(1); one small allocation (the registrar itself).
  public init() {
    state = Atomic(0)
  }

  deinit {
    let word = state.load(ordering: .acquiring)
    guard word & ~1 != 0 else { return }
    let table = Unmanaged<ObserverTable>.fromOpaque(UnsafeRawPointer(bitPattern: word & ~1)!)
    table.takeUnretainedValue().ownerDidDeinit()
    table.release()
  }

  /// Whether any observer is installed on any field of this registrar.
  ///
  /// - Complexity: O(1); one relaxed atomic load.
  @inlinable
  internal var hasObservers: Bool { observant_load_word_relaxed(_stateAddress) & 1 != 0 }

  /// The address of `state`, the registrar's only stored property, for the loads every write
  /// makes: through the shims, which the optimizer knows release nothing (an `Atomic`'s own load
  /// makes a caller that borrowed the object written retain it around the write; see
  /// `OBSERVANT_PURE`). Atomic loads of the same word as `state`'s own operations.
  @inlinable
  internal var _stateAddress: UnsafeMutableRawPointer { _getUnsafePointerToStoredProperties(self) }

  /// The number of observer entries installed on this registrar (an observer of two fields counts
  /// twice). Meant for tests and diagnostics: zero once every observer is cancelled.
  public var observerEntryCount: Int { existingTable?.count ?? 0 }

  /// The observer table, created on first use.
  internal var table: ObserverTable {
    if let existingTable { return existingTable }
    return install(ObserverTable(owner: self))
  }

  /// Gives this registrar, which has no table yet, the table of a derived value (see
  /// `ComputedObserverTable`).
  internal func installComputedTable(source: any ComputedSource) {
    let installed = install(ComputedObserverTable(owner: self, source: source))
    if !(installed is ComputedObserverTable) {
      _invariantViolated("a derived value's registrar had an observer table before its computed one")
    }
  }

  /// Installs `created` unless another thread installed a table first; returns the table installed.
  private func install(_ table: ObserverTable) -> ObserverTable {
    let created = Unmanaged.passRetained(table)
    let word = UInt(bitPattern: created.toOpaque())
    let (exchanged, winner) = state.compareExchange(expected: 0, desired: word, ordering: .acquiringAndReleasing)
    if exchanged { return created.takeUnretainedValue() }
    created.release()
    return Unmanaged<ObserverTable>.fromOpaque(UnsafeRawPointer(bitPattern: winner & ~1)!).takeUnretainedValue()
  }

  /// The observer table if a field was ever tracked.
  internal var existingTable: ObserverTable? {
    let word = state.load(ordering: .acquiring)
    guard word & ~1 != 0 else { return nil }
    return Unmanaged<ObserverTable>.fromOpaque(UnsafeRawPointer(bitPattern: word & ~1)!).takeUnretainedValue()
  }

  /// Called by the table, under its lock, when its entry count becomes or stops being zero.
  internal func publishHasObservers(_ hasObservers: Bool, table: ObserverTable) {
    let word = UInt(bitPattern: Unmanaged.passUnretained(table).toOpaque())
    state.store(hasObservers ? word | 1 : word, ordering: .sequentiallyConsistent)
  }

  // MARK: Reads racing with writes

  // A write tells the readers of the state it overwrites before it stores the new value, and a
  // read records itself before it loads the value. A reader on another thread that starts
  // depending on the field between the writer's announcement and its store would load the old
  // value and hear nothing. So a writer takes a ticket before announcing (or before storing, when
  // nobody observes the object), and after storing checks, behind a full barrier, whether any
  // reader started depending on this registrar's fields since; if so it tells the field's readers
  // of the old state once more, after the fact (a reaction re-runs, a one-shot scope that already
  // fired ignores it).

  /// A ticket for `_readersMayHaveMissed(since:)`: 0 when nobody observes the registrar, otherwise
  /// the table's epoch (with bit 32 set, so that no epoch is 0).
  @inlinable
  internal var _writeTicket: UInt64 {
    let word = observant_load_word_relaxed(_stateAddress)
    guard word & 1 != 0 else { return 0 }
    return _epochTicket
  }

  /// The epoch of the observer table as a ticket: never 0. Asked only once a load of `state` saw
  /// observers, so the table exists.
  ///
  /// The table is loaded again, through `existingTable`, with acquiring order: the caller's
  /// relaxed load found its address, but only an acquiring load orders the table's initialization
  /// (published by `install`'s compare-exchange) before the reads of its fields in the memory
  /// model. (A load through the address depends on it, which orders it on the processors Swift
  /// runs on; the thread sanitizer checks the model.)
  @usableFromInline
  internal var _epochTicket: UInt64 {
    UInt64(existingTable!.epoch.load(ordering: .relaxed)) | 1 << 32
  }

  /// Called after the value is stored: whether a reader may have started depending on a field of
  /// this registrar since `ticket` was taken (then the write must be delivered once more, with
  /// `_deliverLate`, which the transactions layer defines).
  ///
  /// - Complexity: a full memory barrier and a load; one more load when observers exist.
  @inlinable @inline(__always)
  internal func _readersMayHaveMissed(since ticket: UInt64) -> Bool {
    // A full barrier between the caller's store and this load (see `observant_full_barrier`).
    let word = observant_full_barrier_load_word(_stateAddress)
    guard word & 1 != 0 else { return false }
    return ticket == 0 || _epochTicket != ticket
  }
}

extension TrackingRegistrar: CustomStringConvertible {
  public var description: String {
    "TrackingRegistrar(observers: \(observerEntryCount))"
  }
}
