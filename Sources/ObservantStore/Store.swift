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
  /// How the store is reached from its root, for diagnostics (e.g. `root.rows[id: 7]`).
  internal let path: String

  /// Reads the current state without tracking; `nil` when it is gone.
  private let readState: () -> State?
  /// Hands an action to the parent; `false` when the parent is gone (deallocated or invalid).
  private let forward: (Action) -> Bool
  /// Mutates the state in place through the parent, when the path allows writing.
  internal let modifyState: (((inout State) -> Void) -> Bool)?

  /// Whether the store's state still exists. Once `false`, it stays `false`.
  public private(set) var isValid = true
  private var lastValidState: State
  /// The identity slot: readers record it; it notifies when the state is replaced by a new value.
  private let registrar = TrackingRegistrar()
  /// Guards the reads made through this store: invalidated with the store, so that what was read
  /// through it stops driving its readers (see `TrackingGuard`).
  private let readGuard = TrackingGuard()
  private var identity: ObservableStateID?

  /// Cached scopes, by state key path.
  internal var scopes: [AnyKeyPath: any StoreNode] = [:]
  /// Removes this store from its parent's cache (on invalidation).
  internal var detach: (() -> Void)?
  /// Watches the parent slots this store's state is read from (child and optional scopes).
  private var slotObserver: ChangeObserver?
  /// Re-reads the state from the parent while recording the slots it depends on.
  private var trackSlots: ((ChangeObserver) -> State?)?
  /// Present on root stores only.
  private let root: RootProcessor<State, Action>?

  // MARK: Creating

  /// A root store.
  ///
  /// - Parameters:
  ///   - initialState: the state.
  ///   - reducer: mutates the state for an action, in place, and returns follow-up work.
  ///   - diagnostics: receives reports of dropped actions and per-commit statistics; shared by
  ///     every store scoped from this one. Printing to standard error by default.
  public init(
    initialState: State,
    reducer: @escaping (inout State, Action) -> Effect<Action>,
    diagnostics: StoreDiagnostics = StoreDiagnostics()
  ) {
    let tree = StoreTree(diagnostics: diagnostics)
    let root = RootProcessor(state: initialState, reducer: reducer, tree: tree)
    self.tree = tree
    self.examinationOrder = tree.makeOrder()
    self.path = "root"
    self.root = root
    diagnostics.recordStoreCreated()
    self.lastValidState = initialState
    self.identity = stateIdentity(of: initialState)
    self.readState = { [unowned root] in root.state }
    self.forward = { [unowned root] action in
      root.process(action)
      return true
    }
    self.modifyState = { [unowned root] body in
      body(&root.state)
      return true
    }
    root.store = self
  }

  /// A scoped store; `readState` already navigates from the parent (which it holds weakly).
  internal init(
    tree: StoreTree,
    path: String,
    initialState: State,
    readState: @escaping () -> State?,
    forward: @escaping (Action) -> Bool,
    modifyState: (((inout State) -> Void) -> Bool)?
  ) {
    self.tree = tree
    self.examinationOrder = tree.makeOrder()
    self.path = path
    self.root = nil
    tree.diagnostics.recordStoreCreated()
    self.lastValidState = initialState
    self.identity = stateIdentity(of: initialState)
    self.readState = readState
    self.forward = forward
    self.modifyState = modifyState
  }

  /// The store's identity: stable, because scopes are cached.
  public nonisolated var id: ObjectIdentifier { ObjectIdentifier(self) }

  /// The diagnostics shared by this store's tree.
  public var diagnostics: StoreDiagnostics { tree.diagnostics }

  // MARK: Reading

  /// The current state; once the store is invalid, the last state it read or committed before
  /// its state disappeared (what a view showing it last displayed).
  ///
  /// Inside a tracking scope this records the store's identity slot; the fields read from the
  /// returned value record themselves.
  ///
  /// Reads made later on the returned value are the value's own. To read through the store, so
  /// that the reads stop counting once the store is invalid, use `withState(_:)` or the dynamic
  /// member reads (`store.count`).
  public var state: State {
    guard isValid else { return lastValidState }
    withTrackingGuard(readGuard) { registrar.access(keyPath: \Store.state, name: "state") }
    return currentState
  }

  /// Reads a field of the state through the store: inside a tracking scope it depends on that
  /// field and on the store's identity, under the store's guard (once the store is invalid, the
  /// read stops driving the reader). An invalid store answers from its last state and records
  /// nothing.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    guard isValid else { return withoutTracking { lastValidState[keyPath: keyPath] } }
    return withTrackingGuard(readGuard) {
      registrar.access(keyPath: \Store.state, name: "state")
      return currentState[keyPath: keyPath]
    }
  }

  /// Runs `body` with the current state, recording every tracked read it makes through the store
  /// (see `subscript(dynamicMember:)`): the way to read nested fields of the state so that they
  /// stop driving the reader once the store is invalid. An invalid store passes its last state and
  /// records nothing.
  public func withState<Result>(_ body: (State) throws -> Result) rethrows -> Result {
    guard isValid else { return try withoutTracking { try body(lastValidState) } }
    return try withTrackingGuard(readGuard) {
      registrar.access(keyPath: \Store.state, name: "state")
      return try body(currentState)
    }
  }

  /// The current state, read without tracking the navigation from the root.
  internal var currentState: State {
    guard isValid, let state = withoutTracking(readState) else { return lastValidState }
    lastValidState = state
    return state
  }

  /// The current state, or `nil` if it is gone (this store is or is about to become invalid).
  internal var currentStateIfPresent: State? {
    guard isValid else { return nil }
    let state = withoutTracking(readState)
    if let state { lastValidState = state }
    return state
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
          message: "Observant: dropped action \(action) sent to invalid store \(self.describedPath): its state is gone."))
      return
    }
    if !forward(action) {
      tree.diagnostics.report(
        StoreDiagnostic(
          kind: .actionSentToDeallocatedStore,
          message: "Observant: dropped action \(action) sent to store \(self.describedPath): its root store was deallocated."))
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
    lastValidState = state
    let newIdentity = stateIdentity(of: state)
    // Observable state with the same identity reports its own field changes; anything else that
    // reached here (a new value, or plain state whose slot changed) is news for the readers.
    if let newIdentity, newIdentity == identity { return 0 }
    identity = newIdentity
    registrar.withMutation(keyPath: \Store.state) {}
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
    readGuard.invalidate()
    slotObserver?.cancel()
    slotObserver = nil
    trackSlots = nil
    detach?()
    detach = nil
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
