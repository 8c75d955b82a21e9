import _ObservantShims

/// The thread-local state of the tracking runtime.
///
/// Reads of the current recorder sit on every tracked property's getter, so they compile to one
/// thread-local load (a C11 `_Thread_local` slot, see `_ObservantShims`), not a `pthread_getspecific`
/// call. The slots hold raw, unretained addresses: a tracking scope owns its recorder and clears
/// the slot before releasing it. What the addresses point to is the graph's business (typed
/// accessors in `Graph/ThreadLocal+Recorder.swift`); this layer knows no type above it.
@usableFromInline
internal enum ThreadLocal {
  /// The address of the innermost tracking scope's recorder on this thread, if any.
  @inlinable @inline(__always)
  internal static var recorderAddress: UnsafeMutableRawPointer? { observant_recorder_get() }

  /// The address of the recorder an accessor's read goes to: the innermost tracking scope's, or
  /// else, while the observation bridge is on, this thread's bridge recorder (see
  /// `observant_recorder_for_reads`). While the bridge is off, an untracked read pays one more
  /// load in here, and a tracked read nothing. A call the optimizer knows writes nothing, so an
  /// untracked read of an object the caller borrowed retains nothing (see `OBSERVANT_PURE`).
  @inlinable @inline(__always)
  internal static var recorderAddressForReads: UnsafeMutableRawPointer? { observant_recorder_for_reads() }

  /// Whether a tracking scope is active on this thread: one TLS load, no retain.
  @inlinable @inline(__always)
  internal static var isTracking: Bool { observant_recorder_get() != nil }

  /// Makes the recorder at `address` current and returns the previous one's, to restore with
  /// `restore(_:)`.
  @usableFromInline
  internal static func push(address: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let previous = observant_recorder_get()
    observant_recorder_set(address)
    return previous
  }

  @usableFromInline
  internal static func restore(_ previous: UnsafeMutableRawPointer?) {
    observant_recorder_set(previous)
  }

  /// Whether the running code executes on the main actor: the runtime's answer, which follows the
  /// executor a job runs on (on Linux the main actor's jobs need not run on the main thread), or
  /// the main thread outside any job.
  internal static var isOnMainActor: Bool {
    // The main thread runs only the main actor's code: answered without asking the runtime.
    if observant_is_main_thread() != 0 { return true }
    let executor = unsafeBitCast(MainActor.shared.unownedExecutor, to: (UnsafeMutableRawPointer?, UInt).self)
    return observant_is_current_executor(executor.0, executor.1) != 0
  }

  /// Whether the running code executes on `actor`'s executor (the runtime's answer, as for
  /// `isOnMainActor`). On Apple platforms, where the runtime entry point that answers without
  /// trapping is missing from some supported OS versions, only the main actor is recognized:
  /// for any other actor the answer is `false`, so callers fall back to hopping onto it.
  internal static func isOnExecutor(of actor: any Actor) -> Bool {
    if ObjectIdentifier(actor) == ObjectIdentifier(MainActor.shared) { return isOnMainActor }
    #if canImport(Darwin)
    return false
    #else
    let executor = unsafeBitCast(actor.unownedExecutor, to: (UnsafeMutableRawPointer?, UInt).self)
    return observant_is_current_executor(executor.0, executor.1) != 0
    #endif
  }

  /// Runs `body` with its memory accesses hidden from ThreadSanitizer, if this library was built
  /// with it (otherwise a load and a branch). Only for code that touches no memory; see
  /// `Tracked._storageForReading`.
  @inlinable @inline(__always)
  internal static func hidingFromThreadSanitizer<Result>(_ body: () -> Result) -> Result {
    guard observant_tsan_enabled != 0 else { return body() }
    observant_tsan_ignore_begin()
    defer { observant_tsan_ignore_end() }
    return body()
  }
}

/// Whether the running code executes on the main actor (see `ThreadLocal.isOnMainActor`), for the
/// modules of the package that check it before `MainActor.assumeIsolated`, which stops the program
/// without a word on Linux.
package func _isOnMainActor() -> Bool { ThreadLocal.isOnMainActor }
