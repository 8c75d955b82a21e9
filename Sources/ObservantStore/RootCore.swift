import Observant

/// The core of a root store: owns the state and the reducer, processes the actions of each send
/// in rounds, commits, and runs effects.
@MainActor
internal final class RootCore<State, Action>: StoreCore<State, Action>, StoreRoot {
  /// The state, mutated in place by the reducer.
  ///
  /// Unchecked: synchronous observers notified by the reducer's writes (`withTracking`'s
  /// `onChange`, change observers) run after the reducer returns but while `_mutateLiveState`
  /// still holds the state's address; they may read the state through a store then, which is
  /// sound (nothing mutates it any more) but would trip the dynamic exclusivity check. A read
  /// while the reducer itself runs is stopped with a message by `StoreTree.checkNotReducing`.
  @exclusivity(unchecked) private var state: State
  private let reducer: (inout State, Action) -> Effect<Action>
  private let limits: SendLimits
  /// Whether a commit compares plain state with its value before the reducer ran (state that is
  /// not `ObservableState` but `Equatable`, `IdentityComparable` or a class), which costs a copy
  /// of the state per action; other plain state always counts as changed.
  private let comparesPlainState: Bool
  /// The actions of the current send still to process.
  private var queue: [Action] = []
  private var isProcessing = false
  /// The reactions that sent the actions queued for the next round (names, in order).
  private var reactionSenders: [String] = []
  /// The action the reducer is processing (valid while it runs), for the diagnostic of a reducer
  /// reading its store.
  private var actionInReducer: UnsafeRawPointer?
  /// Tasks of `.run` effects, cancelled when the last store of the tree is deallocated.
  private let tasks = EffectTasks()
  private let rootLocation = StoreLocation.root()

  init(
    state: State, reducer: @escaping (inout State, Action) -> Effect<Action>, diagnostics: StoreDiagnostics,
    limits: SendLimits
  ) {
    self.state = state
    self.reducer = reducer
    self.limits = limits
    let identity = observableStateID(of: state)
    self.comparesPlainState =
      identity == nil
      && (State.self is any Equatable.Type || State.self is any IdentityComparable.Type || State.self is AnyObject.Type)
    let tree = StoreTree(diagnostics: diagnostics)
    super.init(tree: tree, identity: identity, lastState: nil, isValid: true)
    tree.root = self
  }

  override func navigate() -> State? { state }

  override func deliver(_ action: Action) { process(action) }

  override var location: StoreLocation { rootLocation }

  override var pathFromRoot: AnyKeyPath? { \State.self }

  func modifyLiveState<Value>(at path: AnyKeyPath, _ body: (inout Value) -> Void) -> Bool {
    guard let path = path as? WritableKeyPath<State, Value> else { return false }
    body(&state[keyPath: path])
    return true
  }

  var actionBeingReduced: String {
    actionInReducer.map { "action \($0.assumingMemoryBound(to: Action.self).pointee)" } ?? "an action"
  }

  // MARK: Processing

  /// Processes `action`, or queues it behind the action being processed (a send from a reducer, an
  /// effect or a reaction while the store is busy).
  ///
  /// A send is processed in rounds. A round is one transaction: the queued actions, each reduced
  /// and committed in turn, with the actions their reducers and `.send` effects add; at its end the
  /// reactions its commits dirtied re-run, once each. The actions those reactions send make the
  /// next round. Rounds stop when nothing is queued, or at `limits`.
  func process(_ action: Action) {
    queue.append(action)
    guard !isProcessing else {
      // Sent by a reaction re-run at the end of a round (reducers and `.send` effects queue
      // directly): remembered, to name it if the send never settles.
      if !tree.isReducing, let name = runningReactionName, !reactionSenders.contains(name) {
        reactionSenders.append(name)
      }
      return
    }
    isProcessing = true
    defer {
      isProcessing = false
      queue.removeAll(keepingCapacity: true)
      reactionSenders.removeAll()
    }
    var processed = 0
    var reactionRounds = 0
    while true {
      reactionSenders.removeAll(keepingCapacity: true)
      let completed = transaction { processRound(&processed) }
      // The round's reactions ran (unless this send is nested in another transaction or a flush,
      // which then runs them); what they sent is queued.
      guard completed, !queue.isEmpty else { return }
      reactionRounds += 1
      guard reactionRounds <= limits.reactionRounds else {
        reportUnsettled(rounds: reactionRounds - 1, processed: processed)
        return
      }
    }
  }

  /// Reduces and commits the queued actions, and those they add, in order. Returns `false` when
  /// the send's action budget ran out (the rest is dropped and reported).
  private func processRound(_ processed: inout Int) -> Bool {
    var index = 0
    while index < queue.count {
      guard processed < limits.actions else {
        reportRunaway(processed: processed, dropped: queue[index...])
        queue.removeAll()
        return false
      }
      let action = queue[index]
      index += 1
      processed += 1
      reduceAndCommit(action)
    }
    queue.removeAll(keepingCapacity: true)
    return true
  }

  private func reduceAndCommit(_ action: Action) {
    // Plain comparable state is compared with its value before the reducer ran; other state by
    // identity. (Two branches, so that the common case handles no optional state: in unspecialized
    // generic code each optional costs a metadata lookup.)
    let changed: Bool
    if comparesPlainState {
      let before = state
      let effect = reduce(action)
      changed = !_isUnchanged(before, state)
      commit(changed: changed, effect)
    } else {
      let effect = reduce(action)
      changed = !isSameIdentity(state)
      commit(changed: changed, effect)
    }
  }

  /// Runs the reducer on the live state.
  private func reduce(_ action: Action) -> Effect<Action> {
    withUnsafePointer(to: action) { pointer in
      actionInReducer = UnsafeRawPointer(pointer)
      defer { actionInReducer = nil }
      tree.reducerWillRun()
      // The root state is live state: reducer writes through its accessors count as "set and set
      // back" candidates, synchronous observers wait until the reducer returns, and a wholesale
      // replacement (`state = saved`) reconciles the readers of what differs.
      return _mutateLiveState(&state) { state in
        defer { tree.reducerDidRun() }
        return reducer(&state, pointer.pointee)
      }
    }
  }

  private func commit(changed: Bool, _ effect: Effect<Action>) {
    var examined = tree.commit()
    // The root state itself replaced (`state = State()`), or plain state that changed: the root
    // store's readers must look again.
    if changed {
      examined += announceReplacement()
    }
    tree.diagnostics.recordCommit(storesExamined: examined)
    run(effect)
  }

  private func run(_ effect: Effect<Action>) {
    effect.forEachLeaf { leaf in
      switch leaf {
      case .send(let action):
        queue.append(action)
      case .run(let start):
        tasks.start {
          start { [weak self] action in self?.process(action) }
        }
      }
    }
  }

  // MARK: Limits

  /// One send processed as many actions as allowed: every processed action was committed; the rest
  /// of the queue is dropped and reported.
  private func reportRunaway(processed: Int, dropped: ArraySlice<Action>) {
    tree.diagnostics.report(
      StoreDiagnostic(
        kind: .runawayActions,
        message: "Observant: one send to \(describedPath) led to \(processed) actions, its maximumActionsPerSend; "
          + "dropped the \(dropped.count) still queued (\(Self.describe(dropped))). Something queues an action for "
          + "every action it processes (a reducer or an effect that always sends), so it would never settle. "
          + "Every processed action was committed."))
  }

  /// Reactions re-run by the send's commits kept sending actions, round after round.
  private func reportUnsettled(rounds: Int, processed: Int) {
    let senders =
      reactionSenders.isEmpty ? "code that is not a reaction" : reactionSenders.map { "\"\($0)\"" }.joined(separator: ", ")
    tree.diagnostics.report(
      StoreDiagnostic(
        kind: .runawayActions,
        message: "Observant: one send to \(describedPath) did not settle: reactions re-run by its commits sent actions "
          + "in \(rounds) rounds in a row, its maximumReactionRoundsPerSend (\(processed) actions processed); the last "
          + "round's were sent by \(senders); "
          + "dropped the \(queue.count) they sent last (\(Self.describe(queue[...]))). A reaction that sends an action "
          + "whenever what it reads changes, and reads what that action changes, never settles. Every processed "
          + "action was committed."))
  }

  private static func describe(_ actions: ArraySlice<Action>) -> String {
    actions.prefix(3).map { "\($0)" }.joined(separator: ", ") + (actions.count > 3 ? ", …" : "")
  }
}

/// How much work one `send` may do before the store decides it would never end.
internal struct SendLimits {
  /// Actions processed in all, whoever sent them.
  let actions: Int
  /// Rounds of actions sent by reactions re-run by the send's own commits.
  let reactionRounds: Int
}
