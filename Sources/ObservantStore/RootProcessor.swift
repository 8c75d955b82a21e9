import Observant
import Synchronization

/// The root of a store tree: owns the state and the reducer, processes actions one at a time,
/// commits, and runs effects.
@MainActor
internal final class RootProcessor<State, Action> {
  /// The state, mutated in place by the reducer.
  var state: State
  private let reducer: (inout State, Action) -> Effect<Action>
  private let tree: StoreTree
  unowned(unsafe) var store: Store<State, Action>!
  private var isProcessing = false
  private var queue: [Action] = []
  /// How many actions one drain of the queue may process (see `Store.init`).
  private let maximumActionsPerSend: Int
  /// Tasks of `.run` effects, cancelled when the root store goes away (from its nonisolated
  /// `deinit`, hence a lock rather than main-actor isolation).
  let tasks = EffectTasks()

  init(
    state: State, reducer: @escaping (inout State, Action) -> Effect<Action>, tree: StoreTree,
    maximumActionsPerSend: Int
  ) {
    self.state = state
    self.reducer = reducer
    self.tree = tree
    self.maximumActionsPerSend = maximumActionsPerSend
  }

  /// Processes `action`, or queues it behind the action being processed (a send from a reducer,
  /// an effect or a reaction while the store is busy).
  func process(_ action: Action) {
    queue.append(action)
    guard !isProcessing else { return }
    isProcessing = true
    defer { isProcessing = false }
    var index = 0
    while index < queue.count {
      if index == maximumActionsPerSend {
        reportRunaway(processed: index, dropped: queue[index...])
        break
      }
      let action = queue[index]
      index += 1
      let effect = transaction {
        let identityBefore = observableStateID(of: state)
        // The root state is live state: reducer writes through its accessors count as "set and
        // set back" candidates, synchronous observers wait until the reducer returns, and a
        // wholesale replacement (`state = saved`) reconciles the readers of what differs.
        let effect = _mutateLiveState(&state) { reducer(&$0, action) }
        var examined = tree.commit()
        // The root state itself replaced (`state = State()`), or plain state that may have
        // changed anywhere: the root store's readers must look again.
        let identityAfter = observableStateID(of: state)
        if identityAfter == nil || identityAfter != identityBefore {
          examined += store.acceptCommittedState(state)
        }
        tree.diagnostics.recordCommit(storesExamined: examined)
        return effect
      }
      run(effect)
    }
    queue.removeAll(keepingCapacity: true)
  }

  /// One send led to more actions than allowed: every processed action was committed; the rest
  /// of the queue is dropped and reported.
  private func reportRunaway(processed: Int, dropped: ArraySlice<Action>) {
    let first = dropped.prefix(3).map { "\($0)" }.joined(separator: ", ")
    let more = dropped.count > 3 ? ", …" : ""
    tree.diagnostics.report(
      StoreDiagnostic(
        kind: .runawayActions,
        message: "Observant: one send to \(store.describedPath) led to \(processed) actions in a row, the maximum; "
          + "dropped the \(dropped.count) still queued (\(first)\(more)). Something sends an action for every "
          + "action it sees (a reaction reading the state it changes, or an effect that always sends), so it "
          + "would never settle. Every processed action was committed."))
  }

  private func run(_ effect: Effect<Action>) {
    switch effect.operation {
    case .none:
      break
    case .send(let action):
      queue.append(action)
    case .merge(let effects):
      effects.forEach(run)
    case .run(let start):
      tasks.start { [weak store] in
        start { action in store?.send(action) }
      }
    }
  }
}

/// Running effect tasks, cancellable from any thread.
internal final class EffectTasks: Sendable {
  private let tasks = Mutex<[Int: Task<Void, Never>]>([:])
  private let nextID = Atomic<Int>(0)

  /// Keeps the task `start` returns until it completes (or is cancelled).
  @MainActor
  func start(_ start: () -> Task<Void, Never>) {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let task = start()
    tasks.withLock { $0[id] = task }
    Task { [weak self] in
      await task.value
      self?.finished(id)
    }
  }

  private func finished(_ id: Int) {
    _ = tasks.withLock { $0.removeValue(forKey: id) }
  }

  func cancelAll() {
    let running = tasks.withLock { tasks in
      defer { tasks.removeAll() }
      return Array(tasks.values)
    }
    running.forEach { $0.cancel() }
  }

  var count: Int { tasks.withLock { $0.count } }

  deinit { cancelAll() }
}
