import Synchronization

/// The observer behind `withTracking`: linked to each field the scope reads as it reads it, it
/// fires once, on the first change, then unlinks itself everywhere.
///
/// "Exactly once" holds under concurrent and re-entrant writes: firing is decided by one
/// compare-and-exchange, so every later notification (another thread's write, or a write made by
/// `onChange` itself) finds the observer spent.
internal final class OneShotObserver: Observer, @unchecked Sendable {
  private struct State {
    var dependencies: OneShotDependencies?
    var onChange: (@Sendable () -> Void)?
  }

  private let spent = Atomic<Bool>(false)
  private let state: Mutex<State>

  init(onChange: @escaping @Sendable () -> Void) {
    state = Mutex(State(onChange: onChange))
    super.init()
  }

  /// Whether the observer has fired or was cancelled.
  var isSpent: Bool { spent.load(ordering: .acquiring) }

  override func dependencyChanged(_ dependency: Dependency, _ change: FieldChange) {
    spend(callingOnChange: true)
  }

  func cancel() {
    spend(callingOnChange: false)
  }

  /// Gives up once every observed object is gone: nothing can fire it any more.
  override func registrarDidDeinit() {
    let anyAlive = state.withLock { state in
      state.dependencies?.contains { !$0.table.isDead } ?? true
    }
    if !anyAlive { cancel() }
  }

  private func spend(callingOnChange: Bool) {
    guard spent.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
      return
    }
    // Swapped out rather than returned from the lock's closure: a closure passed through the
    // lock's generic result is reabstracted, which allocates twice.
    var taken = State()
    state.withLock { swap(&$0, &taken) }
    taken.dependencies?.unlinkAll()
    if callingOnChange { taken.onChange?() }
  }

  /// Takes the dependencies the scope linked while it ran. If the observer fired meanwhile (on
  /// another thread, or by a write inside the scope), they are unlinked now.
  func adopt(_ dependencies: __owned OneShotDependencies) {
    // Moved in by a swap (no retain); back out if the observer is spent already.
    var moved: OneShotDependencies? = consume dependencies
    state.withLock { state in
      if !spent.load(ordering: .acquiring) { swap(&state.dependencies, &moved) }
    }
    moved?.unlinkAll()
  }

}
