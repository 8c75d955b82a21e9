import Observant

extension Store {
  /// A store for the child state at `keyPath`, whose actions are embedded into this store's
  /// actions by `action` (an enum case works: `action: AppAction.settings`).
  ///
  /// Cached by key path: scoping the same key path again returns the same store (with the action
  /// embedding of the first call). The child's readers hear when the child is replaced by a new
  /// value; its own fields notify their readers directly.
  ///
  /// - Complexity: O(1) once cached.
  public func scope<ChildState, ChildAction>(
    state keyPath: KeyPath<State, ChildState>,
    action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    if let cached = scopes[keyPath] as? Store<ChildState, ChildAction>, cached.isValid { return cached }
    let writable = keyPath as? WritableKeyPath<State, ChildState>
    // Read without tracking: a body that scopes a child does not depend on the child's slot (the
    // child store tells its own readers when the child is replaced).
    let initialState = withoutTracking { currentState[keyPath: keyPath] }
    return makeScopedStore(
      key: keyPath, initialState: initialState,
      extract: { $0[keyPath: keyPath] }, embed: embed,
      modify: writable.map { writable in { state, body in body(&state[keyPath: writable]) } })
  }

  /// A store for the optional child state at `keyPath` while it is present, `nil` while it is
  /// absent. Enum state is scoped the same way, through an optional key path to one case's payload
  /// (a computed property that returns the payload or `nil`).
  ///
  /// The caller depends on the slot (inside a tracking scope it re-runs when the child appears,
  /// disappears or is replaced). When the child disappears, the store becomes invalid at that
  /// commit; a later child gets a new store.
  ///
  /// - Complexity: O(1) once cached.
  public func scope<ChildState, ChildAction>(
    state keyPath: KeyPath<State, ChildState?>,
    action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction>? {
    guard isValid, let present = state[keyPath: keyPath] else { return nil }
    if let cached = scopes[keyPath] as? Store<ChildState, ChildAction>, cached.isValid { return cached }
    let writable = keyPath as? WritableKeyPath<State, ChildState?>
    return makeScopedStore(
      key: keyPath, initialState: present,
      extract: { $0[keyPath: keyPath] }, embed: embed,
      modify: writable.map { writable in
        { state, body in
          guard state[keyPath: writable] != nil else { return }
          body(&state[keyPath: writable]!)
        }
      })
  }

  private func makeScopedStore<ChildState, ChildAction>(
    key: AnyKeyPath,
    initialState: ChildState,
    extract: @escaping (State) -> ChildState?,
    embed: @escaping (ChildAction) -> Action,
    modify: ((inout State, (inout ChildState) -> Void) -> Void)?
  ) -> Store<ChildState, ChildAction> {
    let parentLocation = location
    let childLocation = withoutTracking { parentLocation.appending(key, reading: currentState) }
    let link = ScopeLink(
      parent: self, key: key, extract: extract, embed: embed, modifyChild: modify, location: childLocation)
    let child = Store<ChildState, ChildAction>(tree: tree, link: link, initialState: initialState)
    scopes[key] = child
    child.watchSlots { [weak self] (observer: ChangeObserver) -> ChildState? in
      guard let self, let parentState = self.currentStateIfPresent else { return nil }
      return observer.track { extract(parentState) }
    }
    return child
  }

  /// A lazy collection of stores, one per element of the identified array at `keyPath`, whose
  /// actions are embedded with the element's id (`action: ListAction.row` for a case
  /// `row(id: Row.ID, action: Row.Action)`).
  ///
  /// The collection is a snapshot of the ids at this moment (so its indices stay valid while a
  /// view uses it); element stores are created only when accessed and are cached by id. The
  /// caller depends on the ids (inside a tracking scope it re-runs when rows are added, removed
  /// or moved) — not on the rows' fields, and not on a row replaced by a new value with the same
  /// id (that row's store tells its own readers).
  ///
  /// At each commit that changes the array's structure, only the stores of removed or replaced
  /// elements are examined (through the array's structural journal, which the scope starts when
  /// `keyPath` is writable; a read-only path examines every cached store instead). A store whose
  /// element is gone becomes invalid; a store whose element was replaced by a new value with the
  /// same id tells its readers.
  ///
  /// - Complexity: O(1) to create the collection; O(1) per element store once cached.
  public func scope<ID: Hashable, ElementState, ElementAction>(
    state keyPath: KeyPath<State, IdentifiedArray<ID, ElementState>>,
    action embed: @escaping (ID, ElementAction) -> Action
  ) -> StoreCollection<ID, ElementState, ElementAction> {
    let collectionScope: CollectionScope<State, Action, ID, ElementState, ElementAction>
    if let cached = scopes[keyPath] as? CollectionScope<State, Action, ID, ElementState, ElementAction> {
      collectionScope = cached
    } else {
      collectionScope = CollectionScope(parent: self, keyPath: keyPath, embed: embed)
      scopes[keyPath] = collectionScope
    }
    guard isValid else {
      return StoreCollection(elements: withoutTracking { state[keyPath: keyPath] }, storeFor: collectionScope.store(for:fallback:))
    }
    // The caller depends on the ids (the scope's slot) and on this store's identity.
    let elements = withTrackingGuard(readGuardForScopes) {
      collectionScope.recordIDsRead()
      return withoutTracking { currentState[keyPath: keyPath] }
    }
    return StoreCollection(elements: elements, storeFor: collectionScope.store(for:fallback:))
  }
}
