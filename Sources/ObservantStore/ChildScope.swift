import Observant

/// The core of a child or optional scope's store: its state is read from its parent's state (a
/// key path, or an optional one to a case's payload), and its slots there are watched, so that a
/// commit examines it only when the slot changed.
///
/// A child store reached from the root through child scopes only never becomes invalid, and keeps
/// no copy of its state across actions. An optional or enum-case store, whose state can disappear
/// while its parent's lives on, keeps the last state read through it or committed to it and shows
/// that once invalid (`keepsState`; see `ScopedCore`), and so does every store scoped below a
/// store that keeps its state (what it showed may be newer than its parent's copy).
@MainActor
@usableFromInline
internal final class ChildScope<ParentState, ParentAction, State, Action>: ScopedCore<State, Action>, StoreDependent {
  /// Keeps the parent (and so the root) alive while this store is used.
  @usableFromInline let parent: StoreCore<ParentState, ParentAction>
  /// Creation order within the tree: parents before children.
  let examinationOrder: Int
  /// The store whose cache holds this scope's store, to leave it on invalidation.
  private weak var parentStore: Store<ParentState, ParentAction>?
  private let key: AnyKeyPath
  /// The state in the parent's state at an address (see `ScopedKeyPath`).
  @usableFromInline let extract: (UnsafePointer<ParentState>) -> State?
  /// The root core's state, when the parent is the root: valid while the scope holds its parent.
  /// A read navigates from it in place (through the parent, it copied the whole root state).
  @usableFromInline let rootStateAddress: UnsafeMutablePointer<ParentState>?
  private let embed: (Action) -> ParentAction
  /// A writable key path from the parent's state to this state, if the scope's path allows it.
  private let writablePath: AnyKeyPath?
  /// Watches the parent slots the state is read from; `nil` once invalid.
  private var slotObserver: ChangeObserver?
  private let scopeLocation: StoreLocation

  /// Makes the scope at `key` below `parentStore`, reading `initialState` from it. Below an
  /// invalid store, the scope is invalid from the start.
  ///
  /// - Parameter isOptional: whether the state may disappear while the parent's lives on (an
  ///   optional child, an enum case).
  @usableFromInline
  init(
    parentStore: Store<ParentState, ParentAction>, key: AnyKeyPath, initialState: State,
    extract: @escaping (UnsafePointer<ParentState>) -> State?, embed: @escaping (Action) -> ParentAction,
    writablePath: AnyKeyPath?,
    isOptional: Bool, navigator: @escaping (StoreCore<State, Action>) -> State?
  ) {
    let parent = parentStore.core
    self.parent = parent
    self.parentStore = parentStore
    self.key = key
    self.extract = extract
    self.rootStateAddress = parent.stateAddressIfRoot
    self.embed = embed
    self.writablePath = writablePath
    self.examinationOrder = parent.tree.makeOrder()
    let parentLocation = parent.location
    let parentState = parent.presentState
    let named = parentState ?? parent.lastKnownState
    self.scopeLocation = withoutTracking { parentLocation.appending(key, reading: named) }
    let identity = _observableIdentity(of: initialState)
    super.init(
      identity: identity, initialState: initialState, isValid: parentState != nil,
      shape: StoreShape(tree: parent.tree, navigator: navigator),
      keepsState: isOptional || identity == nil || (!parent.isRoot && parent.scoped.keepsState))
    guard let parentState else { return }
    let observer = ChangeObserver(onChange: tree.enqueueHandler(for: self))
    slotObserver = observer
    observer.track { _ = withUnsafePointer(to: parentState, extract) }
    parent.addDependent(self, for: key)
  }

  /// The navigator of a child scope's store: its parent's state, through `extract`.
  @inlinable
  static func navigate(_ core: StoreCore<State, Action>) -> State? {
    let scope = unsafeDowncast(core, to: ChildScope.self)
    if let address = scope.rootStateAddress { return scope.extract(address) }
    return scope.parent.navigatedState.flatMap { withUnsafePointer(to: $0, scope.extract) }
  }

  override func deliver(_ action: Action) { parent.deliver(embed(action)) }

  override var location: StoreLocation { scopeLocation }

  private var composedPath: AnyKeyPath??
  override var pathFromRoot: AnyKeyPath? {
    if let composedPath { return composedPath }
    let made = writablePath.flatMap { relative in parent.pathFromRoot?.appending(path: relative) }
    composedPath = .some(made)
    return made
  }

  /// Re-checks the state after a slot it was read from changed (or the parent's state was
  /// replaced): invalidates the store if the state is gone, tells its readers if it was replaced,
  /// and re-records the slots. Returns how many stores were examined.
  func examine() -> Int {
    guard isValid, let slotObserver else { return 0 }
    guard let parentState = parent.presentState,
      let state = slotObserver.track({ withUnsafePointer(to: parentState, extract) })
    else {
      invalidate()
      return 1
    }
    let examined = acceptCommittedState(state)
    // The slot changed and the state kept its identity (or nothing below was re-examined): it may
    // be another copy of it (an older copy come back in the payload of an enum that reports every
    // write), whose readers read other states of its fields.
    if examined == 0 && stateIsObservable { _reconcileArrival(state) }
    return 1 + examined
  }

  /// The state kept (see `keepsState`), or else the state within the parent's last state (a store
  /// that keeps nothing becomes invalid only with its parent).
  override func lastState() -> State? {
    if keepsState { return readState }
    let extract = self.extract
    return parent.knownState.flatMap { parentState in withoutTracking { withUnsafePointer(to: parentState, extract) } }
  }

  override func willInvalidate() {
    slotObserver?.cancel()
    slotObserver = nil
    parent.removeDependent(self, for: key)
    parentStore?.forgetScope(at: key, ifItIs: self)
  }
}
