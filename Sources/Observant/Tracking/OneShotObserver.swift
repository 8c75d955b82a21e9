import Synchronization

/// The observer behind `withTracking`: installed on every field the scope read, it fires once,
/// on the first change, then removes itself everywhere.
///
/// "Exactly once" holds under concurrent and re-entrant writes: firing is decided by one
/// compare-and-exchange, so every later notification (another thread's write, or a write made by
/// `onChange` itself) finds the observer spent.
internal final class OneShotObserver: TrackingObserver, @unchecked Sendable {
  /// The fields observed; a single field (the common case of a small scope) needs no array.
  private enum Dependencies {
    case none
    case one(Access)
    case many(ContiguousArray<Access>)

    init(_ accesses: ContiguousArray<Access>) {
      switch accesses.count {
      case 0: self = .none
      case 1: self = .one(accesses[0])
      default: self = .many(ContiguousArray(accesses))
      }
    }

    func uninstall(_ observer: TrackingObserver) {
      switch self {
      case .none: break
      case .one(let access): access.uninstall(observer)
      case .many(let accesses): accesses.uninstall(observer)
      }
    }

    var anyAlive: Bool {
      switch self {
      case .none: false
      case .one(let access): !access.core.isDead
      case .many(let accesses): accesses.contains { !$0.core.isDead }
      }
    }
  }

  private struct State {
    var dependencies = Dependencies.none
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
    if !state.withLock({ $0.dependencies.anyAlive }) { cancel() }
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
    let dependencies = Dependencies(accesses)
    state.withLock { $0.dependencies = dependencies }
    accesses.install(self, stoppingWhen: { isSpent })
  }
}

/// A one-shot observation started by `withCancellableTracking(_:onChange:)`.
public final class TrackingObservation: @unchecked Sendable {
  private let observer: OneShotObserver?
  private let recorded: ContiguousArray<Access>

  /// The fields the observed closure read.
  public var accesses: AccessLog { AccessLog(recorded) }

  internal init(observer: OneShotObserver?, accesses: ContiguousArray<Access>) {
    self.observer = observer
    self.recorded = accesses
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
  try withPooledRecorder { recorder in
    let value = try withRecorder(recorder, propagating: false, apply)
    if !recorder.isEmpty { OneShotObserver(onChange: onChange).install(recorder.accesses) }
    return value
  }
}

/// `withTracking(_:onChange:)`, returning a handle that can cancel the observation and tells
/// which fields were read.
public func withCancellableTracking<Result>(
  _ apply: () throws -> Result,
  onChange: @escaping @Sendable () -> Void
) rethrows -> (value: Result, observation: TrackingObservation) {
  try withPooledRecorder { recorder in
    let value = try withRecorder(recorder, propagating: false, apply)
    let accesses = recorder.accesses
    guard !accesses.isEmpty else {
      return (value, TrackingObservation(observer: nil, accesses: []))
    }
    let observer = OneShotObserver(onChange: onChange)
    observer.install(accesses)
    return (value, TrackingObservation(observer: observer, accesses: accesses))
  }
}

/// Runs `body` with this thread's spare recorder (or a new one while the spare is in use by an
/// enclosing scope), returning it emptied afterwards: a one-shot scope allocates no recorder.
internal func withPooledRecorder<Result>(_ body: (AccessRecorder) throws -> Result) rethrows -> Result {
  let context = TransactionContext.current
  let recorder = context.takeSpareRecorder() ?? AccessRecorder()
  defer {
    recorder.reset()
    context.returnSpareRecorder(recorder)
  }
  return try body(recorder)
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
