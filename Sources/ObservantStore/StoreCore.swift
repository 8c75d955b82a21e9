import Observant

/// The part of a store that the stores scoped from it keep alive: where its state comes from (the
/// subclass: `RootCore`, `ChildScope`, `ElementScope`), its place in the tree, its readers, and the
/// scopes made below it.
///
/// `Store` is a facade over one core plus the cache of the stores scoped from it. Ownership runs
/// both ways without a cycle: a store holds the stores scoped from it (its cache, so that scoping
/// twice returns the same store), and a scoped store's core holds its parent's *core*, so that a
/// scoped store keeps its parent and root alive. Cores hold no store, and hold the scopes below
/// them weakly.
@MainActor
internal class StoreCore<State, Action> {
  // MARK: Tree role

  let tree: StoreTree
  /// Creation order within the tree: parents before children.
  let examinationOrder: Int
  /// Whether the store's state still exists. Once `false`, it stays `false`.
  private(set) final var isValid: Bool
  /// Child and collection scopes made below this store, by key path. Weak: they hold this core.
  /// A commit that replaces this store's state re-examines them; invalidation reaches them.
  private final var dependents: [AnyKeyPath: WeakDependent] = [:]

  // MARK: Reader role

  final var readers: StoreReaders
  /// Scoped stores: the last state read through the store or committed to it (what an invalid
  /// store shows), and the tree's state generation when it was read (while the two agree, the
  /// state is current and a read need not navigate from the root). The root keeps none: it owns
  /// the state, and a copy would make the reducer's next in-place mutation of a collection copy it.
  private final var lastState: State?
  private final var lastStateGeneration: UInt64 = 0
  private let keepsLastState: Bool

  /// - Parameters:
  ///   - lastState: the state a scoped store starts with; `nil` for the root.
  ///   - isValid: `false` for a store made below an invalid store, or for a snapshot's row that
  ///     is gone.
  /// The name of the field readers record (shared by the element stores of one collection).
  private let fieldNames: StoreFieldNames<State, Action>

  init(
    tree: StoreTree, identity: ObservableStateID?, lastState: State?, isValid: Bool,
    fieldNames: StoreFieldNames<State, Action> = StoreFieldNames()
  ) {
    self.tree = tree
    self.fieldNames = fieldNames
    self.examinationOrder = tree.makeOrder()
    self.isValid = isValid
    self.readers = StoreReaders(identity: identity)
    self.lastState = lastState
    self.keepsLastState = lastState != nil
    tree.diagnostics.recordStoreCreated()
  }

  // MARK: Position (what the subclasses provide)

  /// The current state, navigated from the parent without recording; `nil` when it is gone.
  func navigate() -> State? { nil }

  /// Hands `action` to the parent, embedded in the parent's action (the root processes it).
  func deliver(_ action: Action) {}

  /// Where the store is in its tree; scopes below it extend it.
  var location: StoreLocation { fatalError("Observant: StoreCore subclasses provide a location") }

  /// A writable key path from the root state to this store's state, when every step allows
  /// writing: the structural journal of a collection below is started through it.
  var pathFromRoot: AnyKeyPath? { nil }

  /// Called once when the store becomes invalid: stop observing, leave the parent's caches.
  func willInvalidate() {}

  /// Where the store is and what it holds, for diagnostics: `root.rows[id: 7] (State)`.
  final var describedPath: String { "\(location.description) (\(State.self))" }

  // MARK: Reading

  /// The field readers of the store record: `Store<State, Action>.state`.
  final var identityField: InternalField { fieldNames.identity }

  /// The current state for a reader, kept as the state to show if the store becomes invalid. An
  /// invalid store answers its last state.
  final var currentState: State {
    guard isValid else { return lastKnownState }
    tree.checkNotReducing(self.describedPath)
    if let current = stateReadThisGeneration { return current }
    guard let state = withoutTracking({ navigate() }) else { return lastKnownState }
    remember(state)
    return state
  }

  /// The current state for navigation (a scope below reads its own state from it) and commits, or
  /// `nil` if it is gone. Keeps nothing: a store whose state holds the collection being mutated
  /// must not hold a copy of it on behalf of the scopes below.
  final var presentState: State? {
    guard isValid else { return nil }
    tree.checkNotReducing(self.describedPath)
    if let current = stateReadThisGeneration { return current }
    return withoutTracking { navigate() }
  }

  /// What the store shows once invalid (for the root, always the current state).
  final var lastKnownState: State {
    if let lastState { return lastState }
    guard let state = withoutTracking({ navigate() }) else {
      fatalError("Observant: the root store's state is always present")
    }
    return state
  }

  private var stateReadThisGeneration: State? {
    lastStateGeneration == tree.stateGeneration ? lastState : nil
  }

  private func remember(_ state: State) {
    guard keepsLastState else { return }
    lastState = state
    lastStateGeneration = tree.stateGeneration
  }

  /// Runs `body` with the current state, recording in the current tracking scope the store's
  /// identity slot and, under the store's guard, every read `body` makes. An invalid store passes
  /// its last state and records nothing.
  final func read<Result>(_ body: (State) throws -> Result) rethrows -> Result {
    guard isValid else { return try withoutTracking { try body(lastKnownState) } }
    guard isTrackingAccesses else { return try body(currentState) }
    return try withTrackingGuard(readers.guardForReads()) {
      readers.recordIdentityRead(identityField)
      return try body(currentState)
    }
  }

  /// Records, in the current tracking scope, a read of the identity slot alone (under the guard).
  final func recordIdentityRead() {
    guard isValid, isTrackingAccesses else { return }
    withTrackingGuard(readers.guardForReads()) { readers.recordIdentityRead(identityField) }
  }

  /// The guard for reads a scope makes on the store's behalf.
  final var guardForReads: TrackingGuard { readers.guardForReads() }

  // MARK: Commit

  /// Records `state` as committed; if it is not the state the readers last heard of (a new value,
  /// or plain state that changed), tells them and re-examines the scopes below, whose slots
  /// belonged to the old value. Returns how many further stores were examined.
  @discardableResult
  final func acceptCommittedState(_ state: State) -> Int {
    let previous = lastState
    remember(state)
    guard !isSameState(state, as: previous) else { return 0 }
    return announceReplacement()
  }

  /// Whether `state` is what readers last heard of: the same `ObservableStateID` (a value whose
  /// fields report their own changes), or for plain state, unchanged from `previous` (`==` for
  /// `Equatable` state, identity rules for `IdentityComparable` state, `===` for a class). Plain
  /// state of no comparable type, or with no `previous`, always counts as changed.
  final func isSameState(_ state: State, as previous: State?) -> Bool {
    if isSameIdentity(state) { return true }
    guard readers.identity == nil, let previous else { return false }
    return _isUnchanged(previous, state)
  }

  /// Whether `state` is an `ObservableState` with the identity readers last heard of (which it
  /// becomes). Plain state never is.
  final func isSameIdentity(_ state: State) -> Bool {
    guard let identity = observableStateID(of: state) else {
      readers.identity = nil
      return false
    }
    defer { readers.identity = identity }
    return identity == readers.identity
  }

  /// Tells the readers that the state was replaced and re-examines the scopes below. Returns how
  /// many stores were examined.
  final func announceReplacement() -> Int {
    readers.notifyReplacement(identityField)
    guard !dependents.isEmpty else { return 0 }
    var live: [any StoreDependent] = []
    for (key, dependent) in dependents {
      if let value = dependent.value { live.append(value) } else { dependents[key] = nil }
    }
    return live.sorted { $0.examinationOrder < $1.examinationOrder }.reduce(0) { $0 + $1.examine() }
  }

  // MARK: Scopes below

  /// Registers the scope made below this store at `key` (replacing an invalid one).
  final func addDependent(_ dependent: any StoreDependent, for key: AnyKeyPath) {
    dependents[key] = WeakDependent(value: dependent)
  }

  /// Forgets the scope at `key` if it is `dependent`.
  final func removeDependent(_ dependent: AnyObject, for key: AnyKeyPath) {
    if dependents[key]?.value === dependent { dependents[key] = nil }
  }

  // MARK: Sending and invalidation

  /// Sends `action` up the tree; an invalid store drops it and reports it.
  final func send(_ action: Action) {
    guard isValid else {
      tree.diagnostics.report(
        StoreDiagnostic(
          kind: .actionSentToInvalidStore,
          message: "Observant: dropped action \(action) sent to invalid store \(describedPath): its state is gone."))
      return
    }
    deliver(action)
  }

  /// Marks this store and every scope below it invalid (for good): what was read through it stops
  /// driving its readers, and it leaves its parent's caches.
  final func invalidate() {
    guard isValid else { return }
    isValid = false
    readers.invalidate()
    willInvalidate()
    let below = dependents.values.compactMap(\.value)
    dependents = [:]
    for dependent in below { dependent.invalidate() }
  }
}

/// The identity field of the stores of one state and action type, named once (naming it prints
/// the store's type): made per root and child scope, shared by the element stores of a collection.
@MainActor
internal final class StoreFieldNames<State, Action> {
  private(set) lazy var identity = InternalField(0, name: "state", owner: Store<State, Action>.self)
}
