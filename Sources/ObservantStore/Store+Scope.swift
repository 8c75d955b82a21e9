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
    return makeScopedStore(
      key: keyPath, name: "\(keyPath)", initialState: currentState[keyPath: keyPath],
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
      key: keyPath, name: "\(keyPath)", initialState: present,
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
    name: String,
    initialState: ChildState,
    extract: @escaping (State) -> ChildState?,
    embed: @escaping (ChildAction) -> Action,
    modify: ((inout State, (inout ChildState) -> Void) -> Void)?
  ) -> Store<ChildState, ChildAction> {
    let child = Store<ChildState, ChildAction>(
      tree: tree,
      path: "\(path)\(name.drop { $0 != "." })",
      initialState: initialState,
      readState: { [weak self] in self?.currentStateIfPresent.flatMap(extract) },
      forward: { [weak self] action in
        guard let self else { return false }
        self.send(embed(action))
        return true
      },
      modifyState: modify.map { modify in
        { [weak self] body in self?.modifyState?({ modify(&$0, body) }) ?? false }
      })
    child.detach = { [weak self, weak child] in
      guard let self, let child, self.scopes[key] === child else { return }
      self.scopes[key] = nil
    }
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
  /// caller depends on the array's structure (inside a tracking scope it re-runs when rows are
  /// added, removed, moved or replaced) — not on the rows' fields.
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
    let elements = state[keyPath: keyPath]
    let collectionScope: CollectionScope<State, Action, ID, ElementState, ElementAction>
    if let cached = scopes[keyPath] as? CollectionScope<State, Action, ID, ElementState, ElementAction> {
      collectionScope = cached
    } else {
      collectionScope = CollectionScope(parent: self, keyPath: keyPath, embed: embed)
      scopes[keyPath] = collectionScope
    }
    return StoreCollection(elements: elements, storeFor: collectionScope.store(for:fallback:))
  }
}
