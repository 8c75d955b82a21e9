import Observant

/// The core of a root store: owns the state and the reducer, processes the actions of each send
/// in rounds, commits, and runs effects.
///
/// What every send does (process, reduce, commit, run the effect) is inlinable, and a root made by
/// `Store.init` processes the sends that scoped stores hand up through a closure made there: in a
/// client's optimized build a send runs specialized for its state and action types.
@MainActor
@usableFromInline
internal final class RootCore<State, Action>: StoreCore<State, Action>, StoreRoot {
  /// The state, mutated in place by the reducer, at an address of its own for the core's life:
  /// the element stores of a collection read their rows from it in place (a copy of the state
  /// would retain everything it holds), and no closure is needed to reach it.
  ///
  /// Unchecked (a pointer is): synchronous observers notified by the reducer's writes
  /// (`withTracking`'s `onChange`, change observers) run after the reducer returns but while
  /// `_mutateLiveState` still holds the state's address; they may read the state through a store
  /// then, which is sound (nothing mutates it any more). A read while the reducer itself runs is
  /// stopped with a message by `StoreTree.checkNotReducing`.
  @inlinable internal var stateAddress: UnsafeMutablePointer<State> { storage.address }
  @usableFromInline internal let storage: StateStorage<State>

  @inlinable
  internal var state: State {
    _read { yield stateAddress.pointee }
    _modify { yield &stateAddress.pointee }
  }
  @usableFromInline let reducer: (inout State, Action) -> Effect<Action>
  /// The tree, held here too: the send's hot path reaches it in one load (through the shape, each
  /// use retained and released it).
  @usableFromInline let rootTree: StoreTree
  @usableFromInline let limits: SendLimits
  /// Whether a commit compares plain state with its value before the reducer ran (state that is
  /// not `ObservableState` but `Equatable`, `IdentityComparable` or a class), which costs a copy
  /// of the state per action; other plain state always counts as changed.
  @usableFromInline let comparesPlainState: Bool
  /// The actions of the current send still to process (the send's own action is processed
  /// without passing through it).
  @usableFromInline @exclusivity(unchecked) internal var queue: [Action] = []
  @usableFromInline @exclusivity(unchecked) internal var isProcessing = false
  /// The reactions that sent the actions queued for the next round (names, in order).
  @exclusivity(unchecked) private var reactionSenders: [String] = []
  /// The action the reducer is processing (while it runs), for the diagnostic of a reducer reading
  /// its store.
  @usableFromInline @exclusivity(unchecked) internal var actionInReducer: Action?
  /// Tasks of `.run` effects, cancelled when the last store of the tree is deallocated.
  private let tasks = EffectTasks()
  private let rootLocation = StoreLocation.root()
  /// Processes an action a scoped store hands up (`deliver`): `process(_:)` of the core it is
  /// given, made by `make`, where the root store is made, so that it runs specialized there (this
  /// class's overridden `deliver` runs generic, its method table holding the unspecialized code).
  @usableFromInline internal let processor: (RootCore, Action) -> Void

  /// A root core whose sends, reads and handed-up actions run specialized where it is made.
  @inlinable
  static func make(
    state: State, reducer: @escaping (inout State, Action) -> Effect<Action>, diagnostics: StoreDiagnostics,
    limits: SendLimits
  ) -> RootCore {
    RootCore(
      state: state, reducer: reducer, diagnostics: diagnostics, limits: limits,
      processor: { core, action in core.process(action) })
  }

  @usableFromInline
  init(
    state: State, reducer: @escaping (inout State, Action) -> Effect<Action>, diagnostics: StoreDiagnostics,
    limits: SendLimits, processor: @escaping (RootCore, Action) -> Void
  ) {
    self.storage = StateStorage(state)
    self.reducer = reducer
    self.limits = limits
    self.processor = processor
    let identity = _observableIdentity(of: state)
    self.comparesPlainState =
      identity == nil
      && (State.self is any Equatable.Type || State.self is any IdentityComparable.Type || State.self is AnyObject.Type)
    let tree = StoreTree(diagnostics: diagnostics)
    self.rootTree = tree
    // The root's own reads take its state in place (`StoreCore.rootState`); the navigator is
    // there for the shape's sake.
    let shape = StoreShape<State, Action>(tree: tree, navigator: { unsafeDowncast($0, to: RootCore.self).state })
    super.init(identity: identity, isValid: true, shape: shape, isRoot: true)
    tree.root = self
  }

  deinit {
    storage.release()
  }

  override func deliver(_ action: Action) {
    processor(self, action)
  }

  override var location: StoreLocation { rootLocation }

  override var pathFromRoot: AnyKeyPath? { \State.self }

  func modifyLiveState<Value>(at path: AnyKeyPath, _ body: (inout Value) -> Void) -> Bool {
    guard let path = path as? WritableKeyPath<State, Value> else { return false }
    body(&state[keyPath: path])
    return true
  }

  var actionBeingReduced: String {
    actionInReducer.map { "action \($0)" } ?? "an action"
  }

  // MARK: Processing

  /// Processes `action`, or queues it behind the action being processed (a send from a reducer, an
  /// effect or a reaction while the store is busy).
  ///
  /// A send is processed in rounds. A round is one transaction: the queued actions, each reduced
  /// and committed in turn, with the actions their reducers and `.send` effects add; at its end the
  /// reactions its commits dirtied re-run, once each. The actions those reactions send make the
  /// next round. Rounds stop when nothing is queued, or at `limits`.
  @inlinable
  final func process(_ action: Action) {
    guard !isProcessing else { return queueWhileBusy(action) }
    isProcessing = true
    defer { endSend() }
    var processed = 0
    var reactionRounds = 0
    // The send's own action is reduced without passing through the queue; later rounds take
    // theirs from it.
    var first: Action? = action
    while true {
      let completed = transaction { processRound(first.take(), &processed) }
      // The round's reactions ran (unless this send is nested in another transaction or a flush,
      // which then runs them); what they sent is queued.
      guard completed, !queue.isEmpty else { return }
      reactionRounds += 1
      guard reactionRounds <= limits.reactionRounds else {
        return reportUnsettled(rounds: reactionRounds - 1, processed: processed)
      }
      startRound()
    }
  }

  /// Queues an action sent while the store is busy. Sent by a reaction re-run at the end of a round
  /// (reducers and `.send` effects queue directly): the reaction is remembered, to name it if the
  /// send never settles.
  @usableFromInline
  final func queueWhileBusy(_ action: Action) {
    queue.append(action)
    if !rootTree.isReducing, let name = runningReactionName, !reactionSenders.contains(name) {
      reactionSenders.append(name)
    }
  }

  /// A new round of actions sent by reactions: the senders named are the next round's.
  @usableFromInline
  final func startRound() {
    reactionSenders.removeAll(keepingCapacity: true)
  }

  @inlinable
  final func endSend() {
    isProcessing = false
    if !queue.isEmpty { queue.removeAll(keepingCapacity: true) }
    forgetReactionSenders()
  }

  @usableFromInline
  final func forgetReactionSenders() {
    if !reactionSenders.isEmpty { reactionSenders.removeAll() }
  }

  /// Reduces and commits `first` (if any), then the queued actions and those they add, in order.
  /// Returns `false` when the send's action budget ran out (the rest is dropped and reported).
  @inlinable
  final func processRound(_ first: Action?, _ processed: inout Int) -> Bool {
    if let first {
      // The first action of a send: within any budget (budgets are positive).
      processed += 1
      reduceAndCommit(first)
    }
    guard !queue.isEmpty else { return true }
    var index = 0
    while index < queue.count {
      guard processed < limits.actions else {
        dropQueue(from: index, processed: processed)
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

  @inlinable
  final func reduceAndCommit(_ action: Action) {
    // Plain comparable state is compared with its value before the reducer ran; other state by
    // identity.
    if comparesPlainState {
      let before = state
      let effect = reduce(action)
      commit(changed: !isUnchanged(before, state), from: before, effect)
    } else {
      let effect = reduce(action)
      commit(changed: !acceptIdentity(observableIdentity(at: stateAddress)), effect)
    }
  }

  /// Whether plain state is unchanged (out of line: the comparison decides by the state's type).
  @usableFromInline
  final func isUnchanged(_ before: State, _ after: State) -> Bool {
    _isUnchanged(before, after)
  }

  /// Runs the reducer on the live state.
  @inlinable
  final func reduce(_ action: Action) -> Effect<Action> {
    // No closure passed to the standard library here: in a Swift 6 client, a main-actor closure
    // passed to a function of a module built without strict concurrency checks its executor.
    actionInReducer = action
    defer { actionInReducer = nil }
    rootTree.reducerWillRun()
    return mutateLiveState { state in
      defer { rootTree.reducerDidRun() }
      return reducer(&state, action)
    }
  }

  /// Runs `body` on the live state, in place. The root state is live state: reducer writes through
  /// its accessors count as "set and set back" candidates, synchronous observers wait until the
  /// reducer returns, and a wholesale replacement (`state = saved`) reconciles the readers of what
  /// differs.
  @inlinable
  final func mutateLiveState(_ body: (inout State) -> Effect<Action>) -> Effect<Action> {
    _mutateLiveState(&stateAddress.pointee, body)
  }

  /// - Parameter before: for plain state, what it was before the reducer ran (kept by the
  ///   readers' transaction: state changed and changed back by two actions of one send re-runs
  ///   nobody).
  @inlinable
  final func commit(changed: Bool, from before: State? = nil, _ effect: Effect<Action>) {
    var examined = rootTree.commit()
    // The root state itself replaced (`state = State()`), or plain state that changed: the root
    // store's readers must look again.
    if changed {
      if let before {
        examined += announceChange(from: before, to: state)
      } else {
        examined += announceReplacement()
      }
    }
    rootTree.diagnostics.recordCommit(storesExamined: examined)
    run(effect)
  }

  @inlinable
  final func run(_ effect: Effect<Action>) {
    effect.forEachLeaf { leaf in
      switch leaf {
      case .send(let action):
        queue.append(action)
      case .run(let run):
        startTask(run)
      }
    }
  }

  @usableFromInline
  final func startTask(_ run: EffectRun<Action>) {
    tasks.start {
      run.start(sending: { [weak self] action in self?.process(action) })
    }
  }

  // MARK: Limits

  /// One send processed as many actions as allowed: every processed action was committed; the rest
  /// of the queue (from `index`) is dropped and reported.
  @usableFromInline
  final func dropQueue(from index: Int, processed: Int) {
    reportRunaway(processed: processed, dropped: queue[index...])
    queue.removeAll()
  }

  private func reportRunaway(processed: Int, dropped: ArraySlice<Action>) {
    rootTree.diagnostics.report(
      StoreDiagnostic(
        kind: .runawayActions,
        message: "Observant: one send to \(describedPath) led to \(processed) actions, its maximumActionsPerSend; "
          + "dropped the \(dropped.count) still queued (\(Self.describe(dropped))). Something queues an action for "
          + "every action it processes (a reducer or an effect that always sends), so it would never settle. "
          + "Every processed action was committed."))
  }

  /// Reactions re-run by the send's commits kept sending actions, round after round.
  @usableFromInline
  final func reportUnsettled(rounds: Int, processed: Int) {
    let senders =
      reactionSenders.isEmpty
      ? "code that is not a reaction" : reactionSenders.map { "\"\($0)\"" }.joined(separator: ", ")
    rootTree.diagnostics.report(
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

/// The root state's own address (see `RootCore.stateAddress`). Unchecked: used on the main actor
/// only, and released by the core's (nonisolated) deinitializer when nothing else can use it.
@usableFromInline
internal struct StateStorage<State>: @unchecked Sendable {
  @usableFromInline let address: UnsafeMutablePointer<State>

  init(_ state: State) {
    address = .allocate(capacity: 1)
    address.initialize(to: state)
  }

  func release() {
    address.deinitialize(count: 1)
    address.deallocate()
  }
}

/// How much work one `send` may do before the store decides it would never end.
@usableFromInline
internal struct SendLimits {
  /// Actions processed in all, whoever sent them.
  @usableFromInline let actions: Int
  /// Rounds of actions sent by reactions re-run by the send's own commits.
  @usableFromInline let reactionRounds: Int

  /// The limits a root store was given; stops the program with a message if one is not positive.
  @usableFromInline
  static func checked(actions: Int, reactionRounds: Int) -> SendLimits {
    observantPrecondition(actions > 0, "Observant: Store's maximumActionsPerSend must be positive, got \(actions)")
    observantPrecondition(
      reactionRounds > 0, "Observant: Store's maximumReactionRoundsPerSend must be positive, got \(reactionRounds)")
    return SendLimits(actions: actions, reactionRounds: reactionRounds)
  }
}
