/// The scheduled observers among a snapshot's dependencies (see `TransactionContext.recordWrite`).
internal struct ScheduledObservers: Sequence {
  let snapshot: DependencySnapshot

  func makeIterator() -> Iterator { Iterator(snapshot: snapshot) }

  struct Iterator: IteratorProtocol {
    private let snapshot: DependencySnapshot
    private var position = 0

    init(snapshot: DependencySnapshot) { self.snapshot = snapshot }

    mutating func next() -> ScheduledObserver? {
      while true {
        let dependency: Dependency
        switch snapshot {
        case .none, .expecting: return nil
        case .one(let only):
          guard position == 0 else { return nil }
          dependency = only
        case .many(let all):
          guard position < all.count else { return nil }
          dependency = all[position]
        }
        position += 1
        if let observer = dependency.observer, observer.isScheduled {
          return unsafeDowncast(observer, to: ScheduledObserver.self)
        }
      }
    }
  }
}

extension DependencySnapshot {
  /// The scheduled observers of the dependencies, in order.
  var scheduledObservers: ScheduledObservers { ScheduledObservers(snapshot: self) }
}
