import Synchronization

/// The observer behind `withTracking`: installed on every field the scope read, it fires once,
/// on the first change, then removes itself everywhere.
///
/// "Exactly once" holds under concurrent and re-entrant writes: firing is decided by one
/// compare-and-exchange, so every later notification (another thread's write, or a write made by
/// `onChange` itself) finds the observer spent.
internal final class OneShotObserver: TrackingObserver, @unchecked Sendable {
  private struct State {
    var dependencies: [Dependency] = []
    var onChange: (@Sendable () -> Void)?
  }

  private let fired = Atomic<Bool>(false)
  private let state: Mutex<State>

  init(onChange: @escaping @Sendable () -> Void) {
    state = Mutex(State(onChange: onChange))
  }

  /// Whether the observer has fired or was cancelled.
  var isSpent: Bool { fired.load(ordering: .acquiring) }

  override func fire() {
    spend(callingOnChange: true)
  }

  func cancel() {
    spend(callingOnChange: false)
  }

  /// Gives up once every observed object is gone: nothing can fire it any more.
  override func registrarDidDeinit() {
    let anyAlive = state.withLock { state in state.dependencies.contains { $0.registrar != nil } }
    if !anyAlive { cancel() }
  }

  private func spend(callingOnChange: Bool) {
    guard fired.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
      return
    }
    let (dependencies, onChange) = state.withLock { state in
      defer { state = State() }
      return (state.dependencies, state.onChange)
    }
    dependencies.uninstall(self)
    if callingOnChange { onChange?() }
  }

  /// Installs the observer on the recorded fields, one lock per run of accesses to one object.
  ///
  /// The dependency list is published first, so a concurrent firing always sees (and removes)
  /// every entry; an entry added after that removal is taken back here.
  func install(_ accesses: ContiguousArray<Access>) {
    state.withLock { state in
      state.dependencies = accesses.map { Dependency(registrar: $0.registrar, key: $0.key) }
    }
    var start = accesses.startIndex
    while start < accesses.endIndex {
      var end = start + 1
      while end < accesses.endIndex && accesses[end].registrarID == accesses[start].registrarID { end += 1 }
      if let registrar = accesses[start].registrar {
        let keys = accesses[start..<end].lazy.map(\.key)
        registrar.addObserver(self, for: keys)
        if isSpent {
          registrar.removeObserver(self, for: keys)
          return
        }
      }
      start = end
    }
  }
}

/// A one-shot observation started by `withCancellableTracking(_:onChange:)`.
public final class TrackingObservation: Sendable {
  private let observer: OneShotObserver?

  /// The fields the observed closure read.
  public let accesses: AccessLog

  internal init(observer: OneShotObserver?, accesses: AccessLog) {
    self.observer = observer
    self.accesses = accesses
  }

  /// Whether `onChange` can still be called: the closure read something, and the observation has
  /// neither fired nor been cancelled.
  public var isActive: Bool { observer.map { !$0.isSpent } ?? false }

  /// Stops the observation: `onChange` will not be called, and every observer entry is removed
  /// (the closure is released). Calling it again, or after the observation fired, does nothing.
  public func cancel() {
    observer?.cancel()
  }
}

/// Runs `apply`, records the tracked fields it read, and calls `onChange` once, on the first
/// change to any of them.
///
/// `onChange` runs on the thread that makes the change, before the new value is stored (so the
/// object still shows the old value). It runs exactly once, also when several threads write
/// concurrently or `onChange` itself writes a tracked field. If `apply` reads nothing tracked,
/// nothing is installed.
///
/// Reads inside a nested tracking scope belong to that scope only.
///
/// ```swift
/// let name = withTracking {
///   profile.name
/// } onChange: {
///   print("name will change")
/// }
/// ```
@discardableResult
public func withTracking<Result>(
  _ apply: () throws -> Result,
  onChange: @escaping @Sendable () -> Void
) rethrows -> Result {
  try withCancellableTracking(apply, onChange: onChange).value
}

/// `withTracking(_:onChange:)`, returning a handle that can cancel the observation and tells
/// which fields were read.
public func withCancellableTracking<Result>(
  _ apply: () throws -> Result,
  onChange: @escaping @Sendable () -> Void
) rethrows -> (value: Result, observation: TrackingObservation) {
  let recorder = AccessRecorder()
  let value = try withRecorder(recorder, propagating: false, apply)
  let accesses = recorder.removeAll()
  guard !accesses.isEmpty else {
    return (value, TrackingObservation(observer: nil, accesses: AccessLog(accesses)))
  }
  let observer = OneShotObserver(onChange: onChange)
  observer.install(accesses)
  return (value, TrackingObservation(observer: observer, accesses: AccessLog(accesses)))
}

/// Runs `body` with `recorder` as this thread's tracking scope, restoring the previous scope
/// afterwards (also when `body` throws).
internal func withRecorder<Result>(
  _ recorder: AccessRecorder?,
  propagating: Bool,
  _ body: () throws -> Result
) rethrows -> Result {
  let previous = ThreadLocal.push(recorder)
  defer {
    ThreadLocal.restore(previous)
    if propagating, let recorder, let previous {
      Unmanaged<AccessRecorder>.fromOpaque(previous).takeUnretainedValue().merge(recorder)
    }
  }
  return try body()
}
