import Observant

/// A state container driven by a reducer, with scopes that hand one store to each child feature
/// or row, minimal observation, and stale stores that are harmless.
///
/// ```swift
/// let store = Store(initialState: Counter.State(), reducer: Counter.reduce)
/// store.count          // a tracked read of `count` (when State is ObservableState)
/// store.send(.increment)
/// ```
///
/// **Reading.** `store.state` and `store.someField` read the current state. When `State` is
/// `ObservableState`, a read inside a tracking scope (a `Reaction`, a render) depends on exactly the
/// fields it touched; reading a scoped store's state never subscribes the reader to the parent's
/// collection or slot, only to what identity requires (the store notifies its readers when its
/// element is replaced by a new value).
///
/// **Sending.** `send` runs the reducer on the state in place as one transaction: the scopes whose
/// slots changed are examined once (the commit), then reactions that depend on what changed re-run,
/// each once. Actions sent while another is being processed (from a reducer, an effect or a
/// reaction) are queued and processed after it.
///
/// **Scoping.** `scope(state:action:)` returns a child store, an optional child store, or a lazy
/// `StoreCollection` of per-element stores. Scopes are cached: scoping the same key path again
/// (and, for collections, asking for the same id) returns the same store.
///
/// **Invalidation.** When a row or optional child disappears at a commit, its store (and every
/// store scoped from it) becomes invalid at that commit: its state reads return the last valid
/// value, `send` is dropped and reported to `diagnostics`, reads record nothing (so nothing re-runs
/// because of it), and the parent's cache forgets it (the same id later gets a new store).
@MainActor
@dynamicMemberLookup
public final class Store<State, Action>: Identifiable {
  internal let tree: StoreTree
  internal let examinationOrder: Int
  private let link: StoreLink<State, Action>

  /// Whether the store's state still exists. Once `false`, it stays `false`.
  public private(set) var isValid = true
  /// Scoped stores: the last state read through the store (or committed, or created with), what
  /// an invalid store shows. The root never caches: it cannot become invalid, and a cached copy
  /// would make the next in-place mutation of a collection in the state copy it.
  private var cachedState: State?
  /// The identity slot: readers record it; it notifies when the state is replaced by a new
  /// value. Made on the first tracked read.
  private var registrar: TrackingRegistrar?
  /// Guards the reads made through this store (see `TrackingGuard`); made on the first tracked
  /// read, invalidated with the store.
  private var readGuard: TrackingGuard?
  private var identity: ObservableStateID?

  /// Cached scopes, by state key path.
  internal var scopes: [AnyKeyPath: any StoreNode] = [:]
  /// Watches the parent slots this store's state is read from (child and optional scopes).
  private var slotObserver: ChangeObserver?
  /// Re-reads the state from the parent while recording the slots it depends on.
  private var trackSlots: ((ChangeObserver) -> State?)?
  /// Present on root stores only.
  private let root: RootProcessor<State, Action>?

  private static var identityField: InternalField { InternalField(0, name: "state", owner: Store.self) }

  // MARK: Creating

  /// A root store.
  ///
  /// - Parameters:
  ///   - initialState: the state.
  ///   - reducer: mutates the state for an action, in place, and returns follow-up work.
  ///   - diagnostics: receives reports of dropped actions and per-commit statistics; shared by
  ///     every store scoped from this one. Printing to standard error by default.
  ///   - maximumActionsPerSend: how many actions one `send` may process, counting the actions
  ///     that reducers, `.send` effects and reactions re-run by its commits send while it runs.
  ///     Past it the store drops what is still queued and reports `.runawayActions`: something
  ///     that sends an action for every action it sees would otherwise never return. Must be
  ///     positive.
  public init(
    initialState: State,
    reducer: @escaping (inout State, Action) -> Effect<Action>,
    diagnostics: StoreDiagnostics = StoreDiagnostics(),
    maximumActionsPerSend: Int = 1_000
  ) {
    precondition(maximumActionsPerSend > 0, "Store: maximumActionsPerSend must be positive, got \(maximumActionsPerSend)")
    let tree = StoreTree(diagnostics: diagnostics)
    let root = RootProcessor(
      state: initialState, reducer: reducer, tree: tree, maximumActionsPerSend: maximumActionsPerSend)
    self.tree = tree
    self.examinationOrder = tree.makeOrder()
    self.root = root
    self.link = RootLink(root)
    self.identity = observableStateID(of: initialState)
    diagnostics.recordStoreCreated()
    root.store = self
  }

  /// A scoped store, reaching its state through `link`.
  internal init(tree: StoreTree, link: StoreLink<State, Action>, initialState: State) {
    self.tree = tree
    self.examinationOrder = tree.makeOrder()
    self.root = nil
    self.link = link
    self.cachedState = initialState
    self.identity = observableStateID(of: initialState)
    tree.diagnostics.recordStoreCreated()
  }

  deinit {
    root?.tasks.cancelAll()
  }

  /// The store's identity: stable, because scopes are cached.
  public nonisolated var id: ObjectIdentifier { ObjectIdentifier(self) }

  /// The diagnostics shared by this store's tree.
  public var diagnostics: StoreDiagnostics { tree.diagnostics }

  /// Where the store is in its tree, e.g. `root.rows[id: 7]` (for diagnostics).
  internal var path: String { link.path }
  /// Where this store is; scopes below it extend it (an element store's is its collection's).
  internal var location: StoreLocation { link.location }

  // MARK: Reading

  /// The current state; once the store is invalid, the last state it read or committed before
  /// its state disappeared (what a view showing it last displayed).
  ///
  /// Inside a tracking scope this records the store's identity slot. Reads made later on the
  /// returned value are the value's own: to read through the store, so that the reads stop
  /// counting once the store is invalid, use `withState(_:)` or dynamic member reads
  /// (`store.count`).
  public var state: State {
    guard isValid else { return lastKnownState }
    if isTrackingAccesses { withTrackingGuard(makeReadGuard()) { recordIdentityRead() } }
    return currentState
  }

  /// Reads a field of the state through the store: inside a tracking scope it depends on that
  /// field and on the store's identity, under the store's guard (once the store is invalid, the
  /// read stops driving the reader). An invalid store answers from its last state and records
  /// nothing.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    guard isValid else { return withoutTracking { lastKnownState[keyPath: keyPath] } }
    guard isTrackingAccesses else { return currentState[keyPath: keyPath] }
    return withTrackingGuard(makeReadGuard()) {
      recordIdentityRead()
      return currentState[keyPath: keyPath]
    }
  }

  /// Runs `body` with the current state, recording every tracked read it makes through the store
  /// (see `subscript(dynamicMember:)`): the way to read nested fields of the state so that they
  /// stop driving the reader once the store is invalid. An invalid store passes its last state and
  /// records nothing.
  public func withState<Result>(_ body: (State) throws -> Result) rethrows -> Result {
    guard isValid else { return try withoutTracking { try body(lastKnownState) } }
    guard isTrackingAccesses else { return try body(currentState) }
    return try withTrackingGuard(makeReadGuard()) {
      recordIdentityRead()
      return try body(currentState)
    }
  }

  private func recordIdentityRead() {
    let registrar = self.registrar ?? TrackingRegistrar()
    self.registrar = registrar
    registrar.access(Self.identityField)
  }

  /// The guard for reads a scope makes on the store's behalf.
  internal var readGuardForScopes: TrackingGuard { makeReadGuard() }

  private func makeReadGuard() -> TrackingGuard {
    if let readGuard { return readGuard }
    let made = TrackingGuard()
    readGuard = made
    return made
  }

  /// The current state for a reader: navigated from the root without tracking, and kept as the
  /// value to show if the store becomes invalid (scoped stores only).
  internal var currentState: State {
    guard isValid, let state = withoutTracking(link.read) else { return lastKnownState }
    if root == nil { cachedState = state }
    return state
  }

  /// The current state for navigation to a scoped store, or `nil` if it is gone. Nothing is
  /// cached: a store whose state holds the collection being mutated must not keep a copy of it.
  internal var currentStateIfPresent: State? {
    guard isValid else { return nil }
    return withoutTracking(link.read)
  }

  /// What the store shows once invalid (for the root, always the current state).
  private var lastKnownState: State {
    if let cachedState { return cachedState }
    return withoutTracking(link.read)!
  }

  /// Mutates the state in place through the tree, when the path allows writing.
  internal func modifyState(_ body: (inout State) -> Void) -> Bool {
    isValid && link.modify(body)
  }

  // MARK: Sending

  /// Sends an action: runs the reducer as one transaction, commits, re-runs what depends on the
  /// change, then processes any effects.
  ///
  /// An action sent to an invalid store (its row was removed, its child dismissed) or to a store
  /// whose root is gone is dropped and reported to `diagnostics`; nothing else happens.
  public func send(_ action: Action) {
    guard isValid else {
      tree.diagnostics.report(
        StoreDiagnostic(
          kind: .actionSentToInvalidStore,
          message: "Observant: dropped action \(action) sent to invalid store \(describedPath): its state is gone."))
      return
    }
    if !link.forward(action) {
      tree.diagnostics.report(
        StoreDiagnostic(
          kind: .actionSentToDeallocatedStore,
          message: "Observant: dropped action \(action) sent to store \(describedPath): its root store was deallocated."))
    }
  }

  internal var describedPath: String { "\(path) (\(State.self))" }

  // MARK: Commit

  /// Re-checks this store's state after a slot it was read from changed: invalidates it if the
  /// state is gone, notifies its readers if it was replaced, and re-records the slots.
  /// Returns how many stores were examined.
  internal func examineScopedState() -> Int {
    guard isValid, let observer = slotObserver, let trackSlots else { return 0 }
    guard let state = trackSlots(observer) else {
      invalidate()
      return 1
    }
    return 1 + acceptCommittedState(state)
  }

  /// Records `state` as current after a commit; if its identity changed, tells readers and
  /// re-examines the scopes cached under it (their slots belonged to the old value).
  /// Returns how many further stores were examined.
  @discardableResult
  internal func acceptCommittedState(_ state: State) -> Int {
    if root == nil { cachedState = state }
    let newIdentity = observableStateID(of: state)
    // Observable state with the same identity reports its own field changes; anything else that
    // reached here (a new value, or plain state whose slot changed) is news for the readers.
    if let newIdentity, newIdentity == identity { return 0 }
    identity = newIdentity
    registrar?.notifyChange(of: Self.identityField)
    var examined = 0
    for scope in scopes.values {
      if let examinable = scope as? any Examinable { examined += examinable.examine() }
    }
    return examined
  }

  /// Starts watching the parent slots of a child or optional scope.
  internal func watchSlots(_ trackSlots: @escaping (ChangeObserver) -> State?) {
    let observer = ChangeObserver(onChange: tree.enqueueHandler(for: self))
    self.slotObserver = observer
    self.trackSlots = trackSlots
    _ = trackSlots(observer)
  }

  // MARK: Internals for the root

  internal var rootProcessor: RootProcessor<State, Action>? { root }
}

extension Store: StoreNode {
  internal func invalidate() {
    guard isValid else { return }
    isValid = false
    readGuard?.invalidate()
    slotObserver?.cancel()
    slotObserver = nil
    trackSlots = nil
    link.detach(self)
    let cached = scopes.values
    scopes = [:]
    for scope in cached { scope.invalidate() }
  }
}

extension Store: CustomStringConvertible {
  public nonisolated var description: String { "Store<\(State.self), \(Action.self)>" }
}

extension Store: Examinable {
  /// Child and optional scopes examine themselves (element stores are examined by their
  /// collection scope, root stores when they process an action).
  internal func examine() -> Int { examineScopedState() }
}
