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
@usableFromInline
internal class StoreCore<State, Action>: AnyStoreCore {
  // The hot paths (a send to the root, a read through a store) are inlinable and use only the
  // stored properties marked `@usableFromInline`, so that a client's optimized build runs them
  // specialized for its state and action types: in generic code every `Optional<State>`, array of
  // actions or effect is a metadata lookup at run time. The few stored variables they touch are
  // `@exclusivity(unchecked)`: main-actor state whose accesses never overlap (each is a load or a
  // store with no call in between), which a client would otherwise check dynamically on every read.

  // Stored properties in an order that packs them: a row's store is made per rendered row.

  // MARK: Tree role

  /// What the stores made at one scope share: their tree, how to navigate to their state, and
  /// the name of their identity field (one for all the element stores of a collection).
  @usableFromInline let shape: StoreShape<State, Action>
  /// The tree (kept by the shape: a word less in every store).
  @inlinable
  final var tree: StoreTree { shape.tree }
  /// Child and collection scopes made below this store, by key path. Weak: they hold this core.
  /// A commit that replaces this store's state re-examines them; invalidation reaches them.
  private final var dependents: [AnyKeyPath: WeakDependent] = [:]

  // MARK: Reader role

  @exclusivity(unchecked) final var readers: StoreReaders

  /// Whether the store's state still exists. Once `false`, it stays `false`.
  @usableFromInline @exclusivity(unchecked) internal private(set) final var isValid: Bool
  /// Whether this is the root's core (a `RootCore`): a send to it is processed at once, and it
  /// owns its state. Every other core is a `ScopedCore`.
  @usableFromInline let isRoot: Bool
  /// Whether `State` is `ObservableState` (asked once: in generic code it is a conformance lookup).
  @usableFromInline let stateIsObservable: Bool

  /// Reads this store's state from its parent's (or, for the root, the state itself), without
  /// recording and with tracking already suspended; `nil` when it is gone (see `StoreShape`).
  @inlinable
  final var navigator: (StoreCore<State, Action>) -> State? { shape.navigator }

  /// - Parameters:
  ///   - identity: the identity of the state readers start with (`nil` for plain state).
  ///   - isValid: `false` for a store made below an invalid store, or for a snapshot's row that
  ///     is gone.
  ///   - shape: see `shape`.
  @usableFromInline
  init(identity: StateIdentity?, isValid: Bool, shape: StoreShape<State, Action>, isRoot: Bool = false) {
    self.shape = shape
    self.isValid = isValid
    self.isRoot = isRoot
    self.readers = StoreReaders(identity: identity, isRoot: isRoot)
    self.stateIsObservable = identity != nil
    shape.tree.diagnostics.recordStoreCreated()
  }

  // MARK: Position (what the subclasses provide)

  /// Hands `action` to the parent, embedded in the parent's action (the root processes it).
  @usableFromInline
  func deliver(_ action: Action) {}

  /// Where the store is in its tree; scopes below it extend it.
  var location: StoreLocation { fatalError("Observant: StoreCore subclasses provide a location") }

  /// A writable key path from the root state to this store's state, when every step allows
  /// writing: the structural journal of a collection below is started through it.
  var pathFromRoot: AnyKeyPath? { nil }

  /// Called once when the store becomes invalid: stop observing, leave the parent's caches.
  func willInvalidate() {}

  /// Called once, just before the store becomes invalid: keeps the state it will show.
  func keepLastState() {}

  /// Where the store is and what it holds, for diagnostics: `root.rows[id: 7] (State)`.
  @usableFromInline
  final var describedPath: String { "\(location.description) (\(State.self))" }

  // MARK: Reading

  /// The field readers of the store record: `Store<State, Action>.state`.
  final var identityField: InternalField { shape.identityField }

  /// The current state for a reader (a scoped store keeps it until the reducer next runs, so that
  /// further reads need not navigate). An invalid store answers its last state.
  @inlinable
  final var currentState: State {
    guard isValid else { return lastKnownState }
    tree.checkNotReducing(self.describedPath)
    if isRoot { return rootState }
    return scoped.currentScopedState
  }

  /// The current state for navigation (a scope below reads its own state from it) and commits, or
  /// `nil` if it is gone. Keeps nothing.
  @inlinable
  final var presentState: State? {
    guard isValid else { return nil }
    tree.checkNotReducing(self.describedPath)
    if isRoot { return rootState }
    if let current = scoped.stateReadThisGeneration { return current }
    return withoutTracking { navigator(self) }
  }

  /// `presentState` for a navigator of a scope below, which has suspended tracking and checked
  /// that the reducer is not running.
  @inlinable
  final var navigatedState: State? {
    guard isValid else { return nil }
    if isRoot { return rootState }
    if let current = scoped.stateReadThisGeneration { return current }
    return navigator(self)
  }

  /// What the store shows: its state while valid (for the root, always), once invalid the last
  /// state it had (see `ScopedCore`).
  @usableFromInline
  final var lastKnownState: State {
    guard let state = knownState else {
      observantFatalError("Observant: store \(describedPath) has no state to show (an internal error)")
    }
    return state
  }

  /// `lastKnownState`, as an optional: a scoped store that keeps no state asks its parent.
  final var knownState: State? {
    isRoot ? rootState : scoped.scopedKnownState
  }

  /// The root's state, read in place (the core is a `RootCore`).
  @inlinable
  final var rootState: State { unsafeDowncast(self, to: RootCore<State, Action>.self).state }

  /// The address of the root's state, if this is the root (`nil` otherwise): scopes of the root keep
  /// it, and read from the state in place while they hold the root.
  final var stateAddressIfRoot: UnsafeMutablePointer<State>? {
    isRoot ? unsafeDowncast(self, to: RootCore<State, Action>.self).stateAddress : nil
  }

  /// This core as the `ScopedCore` it is when it is not the root's.
  @inlinable
  final var scoped: ScopedCore<State, Action> { unsafeDowncast(self, to: ScopedCore<State, Action>.self) }

  /// Runs `body` with the current state, recording in the current tracking scope the store's
  /// identity slot and, under the store's guard, every read `body` makes. An invalid store passes
  /// its last state and records nothing.
  @inlinable
  final func read<Result>(_ body: (State) throws -> Result) rethrows -> Result {
    guard isValid else { return try withoutTracking { try body(lastKnownState) } }
    // Navigating records nothing: the state is read before the guard goes up.
    let state = currentState
    guard _isTrackingAccesses() else { return try body(state) }
    // The guard up and the identity slot recorded out of line, `body` called here: no closure
    // passed through generic code.
    let previous = enterReadGuard(slot: observableIdentity(of: state)?.slot)
    defer { exitReadGuard(previous) }
    return try body(state)
  }

  /// Makes the store's guard the current scope's (its reads are recorded under it) and records the
  /// identity slot in `slot` (the observer table of the observable state read; `nil` for plain
  /// state), under it. Returns the guard `exitReadGuard(_:)` restores.
  @usableFromInline
  final func enterReadGuard(slot: Unmanaged<TrackingRegistrar>?) -> AnyObject? {
    let previous = _enterTrackingGuard(readers.guardForReads())
    readers.recordIdentityRead(identityField, in: slot)
    return previous
  }

  /// Restores the guard that was current before `enterReadGuard(slot:)` (a `TrackingGuard`, or
  /// `nil`).
  @usableFromInline
  final func exitReadGuard(_ previous: AnyObject?) {
    _restoreTrackingGuard(previous.map { unsafeDowncast($0, to: TrackingGuard.self) })
  }

  /// Records, in the current tracking scope, a read of the identity slot alone (under the guard),
  /// `state` being the state read.
  @inlinable
  final func recordIdentityRead(of state: State) {
    guard isValid, _isTrackingAccesses() else { return }
    exitReadGuard(enterReadGuard(slot: observableIdentity(of: state)?.slot))
  }

  /// The guard for reads a scope makes on the store's behalf.
  final var guardForReads: TrackingGuard { readers.guardForReads() }

  /// The identity of `state` if it is `ObservableState`. Inlinable: specialized for an
  /// `ObservableState`, the cast folds away.
  @inlinable
  final func observableIdentity(of state: State) -> StateIdentity? {
    guard stateIsObservable, let type = State.self as? any ObservableState.Type else { return nil }
    return _openIdentity(type, state)
  }

  /// `observableIdentity(of:)` of the state at `state`, read in place.
  @inlinable
  final func observableIdentity(at state: UnsafePointer<State>) -> StateIdentity? {
    guard stateIsObservable, let type = State.self as? any ObservableState.Type else { return nil }
    return _openIdentity(type, at: state)
  }

  // MARK: Commit

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
  @inlinable
  final func isSameIdentity(_ state: State) -> Bool {
    acceptIdentity(observableIdentity(of: state))
  }

  /// Whether `identity` is the one readers last heard of (which it becomes); `nil` (plain state)
  /// never is. When it is not, the caller announces the replacement (`announceReplacement()`).
  @usableFromInline
  final func acceptIdentity(_ identity: StateIdentity?) -> Bool {
    readers.accept(identity, field: identityField)
  }

  /// Tells the readers that the state was replaced and re-examines the scopes below. Returns how
  /// many stores were examined.
  @usableFromInline
  final func announceReplacement() -> Int {
    readers.notifyReplacement(identityField)
    return examineDependents()
  }

  /// `announceReplacement()` for plain state that went from `old` to `new` (compared by the
  /// caller): the readers' transaction keeps both, so that state changed and changed back by two
  /// actions of one send re-runs nobody.
  @usableFromInline
  final func announceChange(from old: State, to new: State) -> Int {
    readers.notifyChange(identityField, from: old, to: new)
    return examineDependents()
  }

  /// Re-examines the scopes below after the state was replaced or changed; returns how many stores
  /// were examined.
  private func examineDependents() -> Int {
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
  @inlinable
  final func send(_ action: Action) {
    guard isValid else { return drop(action) }
    // The root processes the action itself, specialized; a scoped store hands it up.
    if isRoot { return unsafeDowncast(self, to: RootCore<State, Action>.self).process(action) }
    deliver(action)
  }

  @usableFromInline
  final func drop(_ action: Action) {
    tree.diagnostics.report(
      StoreDiagnostic(
        kind: .actionSentToInvalidStore,
        message: "Observant: dropped action \(action) sent to invalid store \(describedPath): its state is gone."))
  }

  /// Marks this store and every scope below it invalid (for good): what was read through it stops
  /// driving its readers, and it leaves its parent's caches.
  final func invalidate() {
    guard isValid else { return }
    keepLastState()
    isValid = false
    readers.invalidate()
    willInvalidate()
    let below = dependents.values.compactMap(\.value)
    dependents = [:]
    for dependent in below { dependent.invalidate() }
  }
}

/// What the stores made at one scope share: the navigator (made where the scope is made, so that
/// it runs specialized in a client's optimized build: an overridden method would run generic, the
/// class's method table holding the unspecialized code), and the identity field, named once
/// (naming it prints the store's type). One per root and child scope; one for all the element
/// stores of a collection.
@MainActor
@usableFromInline
internal final class StoreShape<State, Action> {
  /// The tree the stores belong to.
  @usableFromInline let tree: StoreTree
  /// Reads a store's state from its parent's (or, for the root, the state itself), without
  /// recording and with tracking already suspended; `nil` when it is gone.
  @usableFromInline let navigator: (StoreCore<State, Action>) -> State?

  /// The identity field (a stored constant: read on every tracked read through a store).
  let identityField: InternalField

  @usableFromInline
  init(tree: StoreTree, navigator: @escaping (StoreCore<State, Action>) -> State?) {
    self.tree = tree
    self.navigator = navigator
    self.identityField = InternalField(0, name: "state", owner: Store<State, Action>.self)
  }
}

/// Whether a tracking scope records reads on this thread (for inlinable code, which cannot use the
/// package's own name).
@usableFromInline
internal func _isTrackingAccesses() -> Bool { isTrackingAccesses }
