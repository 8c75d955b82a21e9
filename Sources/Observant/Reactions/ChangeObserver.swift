import Synchronization

/// A persistent, synchronous observer: `track` records what a closure reads, and `onChange` runs on
/// every change to any of it, during the write (before the value is stored), on the writing
/// thread, until the next `track` replaces the dependencies or `cancel()` stops it.
///
/// Where `withTracking` fires once and a `Reaction` re-runs after the transaction, a
/// `ChangeObserver` is the building block for owners that only need to *know* that something
/// changed, as it happens, and decide later what to do (a store marking a child scope for
/// examination at its next commit, say).
///
/// ```swift
/// let observer = ChangeObserver { dirty.store(true, ordering: .relaxed) }
/// observer.track { _ = model.title }
/// model.title = "New"   // onChange runs here; the observer stays installed
/// ```
///
/// `onChange` must not block and should not write tracked fields. `track` must not be called
/// concurrently with itself (the owner serializes it); `cancel()` may be called from anywhere.
public final class ChangeObserver: Sendable {
  private let core: ChangeObserverCore

  /// Creates an observer with no dependencies yet.
  public init(onChange: @escaping @Sendable () -> Void) {
    core = ChangeObserverCore(onChange: onChange)
  }

  deinit {
    core.cancel()
  }

  /// Runs `body`, and makes the fields it reads this observer's dependencies (replacing the
  /// previous ones; fields read again stay installed without being removed and re-added).
  @discardableResult
  public func track<Result>(_ body: () throws -> Result) rethrows -> Result {
    try core.track(body)
  }

  /// The fields the last `track` read.
  public var accesses: AccessLog { core.accesses }

  /// Removes every observer entry; `onChange` is not called again. Idempotent.
  public func cancel() {
    core.cancel()
  }

  /// Whether `cancel()` was called.
  public var isCancelled: Bool { core.isCancelled }
}

internal final class ChangeObserverCore: TrackingObserver, @unchecked Sendable {
  private struct State {
    var isCancelled = false
    var isTracking = false
    var isUninstalled = false
  }

  private let onChange: @Sendable () -> Void
  /// Touched by `track` (serialized by the owner) and, when no `track` runs, by `cancel`.
  @exclusivity(unchecked) private var recorder: AccessRecorder!
  private let state = Mutex(State())

  init(onChange: @escaping @Sendable () -> Void) {
    self.onChange = onChange
    super.init()
    recorder = AccessRecorder { [unowned self] access in
      access.core.add(self, for: access.key)
    }
  }

  override func fire() {
    guard !isCancelled else { return }
    onChange()
  }

  var isCancelled: Bool { state.withLock { $0.isCancelled } }

  var accesses: AccessLog {
    state.withLock { state in state.isTracking ? AccessLog([]) : AccessLog(recorder.accesses) }
  }

  func track<Result>(_ body: () throws -> Result) rethrows -> Result {
    let proceed = state.withLock { state -> Bool in
      guard !state.isCancelled else { return false }
      state.isTracking = true
      return true
    }
    guard proceed else { return try withoutTracking(body) }
    recorder.beginRun()
    defer {
      let stale = recorder.endRun()
      if !stale.isEmpty { stale.uninstall(self) }
      state.withLock { $0.isTracking = false }
      if isCancelled { uninstallAll() }
    }
    return try withRecorder(recorder, propagating: false, body)
  }

  func cancel() {
    let isTracking = state.withLock { state -> Bool in
      state.isCancelled = true
      return state.isTracking
    }
    // A running `track` uninstalls when it ends.
    if !isTracking { uninstallAll() }
  }

  private func uninstallAll() {
    let proceed = state.withLock { state -> Bool in
      guard !state.isUninstalled, !state.isTracking else { return false }
      state.isUninstalled = true
      return true
    }
    if proceed { recorder.removeAll().uninstall(self) }
  }
}
