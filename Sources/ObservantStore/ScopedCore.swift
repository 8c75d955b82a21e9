import Observant

/// What the tree asks of any store's core without knowing its types.
@MainActor
@usableFromInline
internal class AnyStoreCore {
  /// Lets go of the state read since the reducer last ran (see `ScopedCore`).
  @usableFromInline
  func releaseReadState() {}
}

/// The core of a scoped store (a child, optional, enum-case or row store): its state lives in its
/// parent's. It holds a copy of that state only where the store's documented behaviour needs one.
///
/// **Reading.** A read navigates from the parent (a row store takes its row at the position it
/// found it at while no row moved) and keeps the state it found as `readState`, so that further
/// reads before the reducer next runs need not navigate again.
///
/// **Copies and the reducer.** A copy held while the reducer runs shares the storage of the
/// collections inside the state, so the reducer's next in-place mutation of one of them
/// (`state.child.items.append(x)`) copies all of it (DESIGN rule 4). A store that can never
/// become invalid (a child store reached from the root through child scopes only) has no use for
/// its copy once the reducer runs: the tree lets go of it before (at a cost proportional to the
/// stores read since the last send), and the reducer mutates in place.
///
/// **Stores that keep their state** (`keepsState`): a store that can become invalid (a row, an
/// optional child, an enum case, anything scoped below one) shows, once invalid, the last state
/// read through it or committed to it: it keeps that state across actions, as a view showing it
/// keeps what it displayed. Its state disappears inside the reducer (a removal, a dismissal, a
/// wholesale assignment) and nothing can capture it there; a copy is the only way to show it
/// later. So is plain (not `ObservableState`) state, which a commit compares with its previous
/// value. The price is the copy-on-write above, once per action that mutates in place a
/// collection inside a state read since the previous one.
@MainActor
@usableFromInline
internal class ScopedCore<State, Action>: StoreCore<State, Action> {
  // Stored properties in an order that packs them (the flags first, in the base class's tail): a
  // row's store is made per rendered row.

  /// Whether the tree holds this core in its list of read states to let go of.
  @usableFromInline @exclusivity(unchecked) final var isListedForRelease = false
  /// Whether `readState` is kept across actions (see the type's documentation).
  @usableFromInline let keepsState: Bool
  /// The state read through the store (or given to it by a commit) at `readGeneration`. Let go of
  /// before the reducer next runs, unless `keepsState`. Once the store is invalid, what it shows
  /// (kept for good: a store's state is read from here only while it is valid, and is what it
  /// shows after).
  @usableFromInline @exclusivity(unchecked) final var readState: State?
  /// The tree's state generation when `readState` was read.
  @usableFromInline @exclusivity(unchecked) final var readGeneration: UInt64 = 0

  /// - Parameters:
  ///   - initialState: the state the store starts with (for an invalid store, what it shows).
  ///   - keepsState: see `keepsState`.
  init(
    identity: StateIdentity?, initialState: State, isValid: Bool, shape: StoreShape<State, Action>, keepsState: Bool
  ) {
    self.keepsState = keepsState
    super.init(identity: identity, isValid: isValid, shape: shape)
    if isValid {
      keepRead(initialState)
    } else {
      readState = initialState
    }
  }

  // MARK: Reading

  /// The state read this generation, if any: the current state (nothing but the reducer mutates
  /// the state, and it bumps the generation).
  @inlinable
  final var stateReadThisGeneration: State? {
    readGeneration == tree.stateGeneration ? readState : nil
  }

  /// `currentState` of a valid scoped store.
  @inlinable
  final var currentScopedState: State {
    if let current = stateReadThisGeneration { return current }
    guard let state = withoutTracking({ navigator(self) }) else { return lastKnownState }
    keepRead(state)
    return state
  }

  /// Keeps `state` as the state read this generation.
  @inlinable
  final func keepRead(_ state: State) {
    if !keepsState && !isListedForRelease { listForRelease() }
    // The generation first: assigning the state releases the one kept, and the tree would be
    // retained across that.
    readGeneration = tree.stateGeneration
    readState = state
  }

  @usableFromInline
  final func listForRelease() {
    isListedForRelease = true
    tree.releaseBeforeReducing(self)
  }

  final override func releaseReadState() {
    isListedForRelease = false
    // An invalid store keeps what it shows.
    if isValid { readState = nil }
  }

  /// `knownState` of a scoped store.
  final var scopedKnownState: State? {
    guard isValid else { return readState }
    if let readState { return readState }
    if let state = withoutTracking({ navigator(self) }) { return state }
    return lastState()
  }

  /// The state the store shows once its state is gone: what the subclass can tell (see the type's
  /// documentation), or the state it kept.
  func lastState() -> State? { readState }

  final override func keepLastState() {
    readState = lastState()
  }

  // MARK: Commit

  /// Records `state` as committed; if it is not the state the readers last heard of (a new value,
  /// or plain state that changed), tells them and re-examines the scopes below, whose slots
  /// belonged to the old value. Returns how many further stores were examined.
  @discardableResult
  final func acceptCommittedState(_ state: State) -> Int {
    let previous = keepsState ? readState : nil
    keepRead(state)
    guard !isSameState(state, as: previous) else { return 0 }
    // Plain state compared with what readers last heard of: the transaction keeps both (state
    // changed and changed back by two actions of one send re-runs nobody).
    if readers.identity == nil, let previous { return announceChange(from: previous, to: state) }
    return announceReplacement()
  }
}
