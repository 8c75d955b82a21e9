import Synchronization

/// The observer behind `withTracking`: linked to each field the scope reads as it reads it, it
/// fires once, on the first change, then unlinks itself everywhere.
///
/// "Exactly once" holds under concurrent and re-entrant writes: firing is decided by one
/// compare-and-exchange, so every later notification (another thread's write, or a write made by
/// `onChange` itself) finds the observer spent.
internal final class OneShotObserver: Observer, @unchecked Sendable {
  /// Where the observer is in its life: running its scope, holding the dependencies the scope
  /// adopted, or spent (fired or cancelled, possibly before the scope adopted its dependencies).
  /// `runningSawDeinit`: running, and an object the scope read went away meanwhile (the scope
  /// looks at its dependencies once it has adopted them).
  private enum Phase: UInt8 {
    case running, runningSawDeinit, adopted, spent
  }

  private let phase = Atomic<UInt8>(Phase.running.rawValue)
  /// Guards `dependencies` between the spender taking them and `registrarDidDeinit` reading them.
  /// Adopting needs no lock: the dependencies are stored before the observer is published as
  /// adopted, and nobody reads them before.
  private let lock = Mutex(())
  @exclusivity(unchecked) private var dependencies: OneShotDependencies?
  /// Read once, by the one thread that spends the observer.
  @exclusivity(unchecked) private var onChange: (@Sendable () -> Void)?

  init(onChange: @escaping @Sendable () -> Void) {
    self.onChange = onChange
    super.init()
  }

  /// Whether the observer has fired or was cancelled.
  var isSpent: Bool { phase.load(ordering: .acquiring) == Phase.spent.rawValue }

  override func dependencyChanged(_ dependency: Dependency, _ change: FieldChange) {
    spend(callingOnChange: true)
  }

  func cancel() {
    spend(callingOnChange: false)
  }

  /// An object the scope read a field of went away after the scope was installed: what the scope
  /// read is gone, which is a change (as for Apple's `withObservationTracking`, and for
  /// `TrackedValues`), delivered like a change found after the fact (inside an in-place mutation,
  /// when it ends). The last copy of a value going away is not a change (the slots that held it
  /// changed, and told their readers); once every registrar the scope read is gone, it gives up.
  override func registrarDidDeinit() {
    var current = phase.load(ordering: .acquiring)
    while current == Phase.running.rawValue {
      // The scope is still running (the object was made and released inside `apply`): the scope
      // has not adopted its dependencies yet. Noted for `adopt`, which looks then.
      let (exchanged, original) = phase.compareExchange(
        expected: current, desired: Phase.runningSawDeinit.rawValue, ordering: .acquiringAndReleasing)
      if exchanged { return }
      current = original
    }
    guard current == Phase.adopted.rawValue else { return }
    let (objectGone, anyAlive) = lock.withLock { _ -> (Dependency?, Bool) in
      guard let dependencies else { return (nil, true) }
      var objectGone: Dependency?
      var anyAlive = false
      for dependency in dependencies {
        if !dependency.table.isDead {
          anyAlive = true
        } else if objectGone == nil && dependency.seen.load(ordering: .relaxed) == Stamp.none {
          objectGone = dependency
        }
      }
      return (objectGone, anyAlive)
    }
    if let objectGone {
      // Inside a transaction, once it has ended: the deinit may run inside the transaction's own
      // bookkeeping (the flush releasing the old values it kept), where `onChange`, which may
      // write, must not run.
      TransactionContext.runOutsideTransaction { Notifications.deliverReplacement([objectGone]) }
    } else if !anyAlive {
      cancel()
    }
  }

  /// Fires (or cancels) the observer, once: one compare-and-exchange decides the only spender.
  private func spend(callingOnChange: Bool) {
    var current = phase.load(ordering: .acquiring)
    while current != Phase.spent.rawValue {
      let (exchanged, original) = phase.compareExchange(
        expected: current, desired: Phase.spent.rawValue, ordering: .acquiringAndReleasing)
      if exchanged { break }
      current = original
    }
    guard current != Phase.spent.rawValue else { return }
    let onChange = self.onChange.take()
    if current == Phase.adopted.rawValue {
      // Swapped out rather than returned from the lock's closure (no reabstraction).
      var taken: OneShotDependencies?
      lock.withLock { _ in swap(&taken, &dependencies) }
      if let taken { taken.unlinkAll() }
    }
    if callingOnChange { onChange?() }
  }

  /// Takes the dependencies the scope linked while it ran. If the observer fired meanwhile (on
  /// another thread, or by a write inside the scope), they are unlinked now.
  func adopt(_ dependencies: __owned OneShotDependencies) {
    self.dependencies = consume dependencies
    var expected = Phase.running.rawValue
    while true {
      let (adopted, original) = phase.compareExchange(
        expected: expected, desired: Phase.adopted.rawValue, ordering: .acquiringAndReleasing)
      if adopted { break }
      guard original == Phase.runningSawDeinit.rawValue else {
        // Spent while the scope ran: nobody else reads them (the spender saw no dependencies).
        self.dependencies.take()?.unlinkAll()
        return
      }
      expected = original
    }
    // An object the scope read went away while it ran: that is a change too (or, if every
    // registrar the scope read is gone, the end of the observation).
    if expected == Phase.runningSawDeinit.rawValue { registrarDidDeinit() }
  }
}
