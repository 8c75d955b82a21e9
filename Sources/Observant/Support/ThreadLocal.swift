import _ObservantShims

/// The thread-local state of the tracking runtime.
///
/// Reads of the current recorder sit on every tracked property's getter, so they compile to one
/// thread-local load (a C11 `_Thread_local` slot, see `_ObservantShims`), not a `pthread_getspecific`
/// call. The recorder pointer is unretained: a tracking scope owns its recorder and clears the slot
/// before releasing it.
@usableFromInline
internal enum ThreadLocal {
  /// The recorder of the innermost tracking scope on this thread, if any, unretained: the scope
  /// keeps it alive while it is installed.
  @inlinable @inline(__always)
  internal static var recorder: Unmanaged<Recorder>? {
    guard let raw = observant_recorder_get() else { return nil }
    return Unmanaged<Recorder>.fromOpaque(raw)
  }

  /// Whether a tracking scope is active on this thread: one TLS load, no retain.
  @inlinable @inline(__always)
  internal static var isTracking: Bool { observant_recorder_get() != nil }

  /// Makes `recorder` current and returns the previous one, to restore with `restore(_:)`.
  @usableFromInline
  internal static func push(_ recorder: Recorder?) -> UnsafeMutableRawPointer? {
    let previous = observant_recorder_get()
    observant_recorder_set(recorder.map { Unmanaged.passUnretained($0).toOpaque() })
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
    let executor = unsafeBitCast(MainActor.shared.unownedExecutor, to: (UnsafeMutableRawPointer?, UInt).self)
    return observant_is_current_executor(executor.0, executor.1) != 0
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
