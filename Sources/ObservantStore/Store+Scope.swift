import Observant

extension Store {
  /// A store for the child state at `keyPath`, whose actions are embedded into this store's
  /// actions by `action` (an enum case works: `action: AppAction.settings`).
  ///
  /// Cached by key path: scoping the same key path again returns the same store (with the action
  /// embedding of the first call). The child's readers hear when the child is replaced by a new
  /// value; its own fields notify their readers directly. The child store keeps this store's (and
  /// the root's) state, reducer and effects alive, not this `Store` object. Scoped from an invalid
  /// store, the child store is invalid from the start.
  ///
  /// - Complexity: O(1) once cached.
  @inlinable @inline(__always)
  public func scope<ChildState, ChildAction>(
    state keyPath: consuming KeyPath<State, ChildState>,
    action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    // Inlined into the caller, so that the key path is a literal where its closure is made (see
    // `ScopedKeyPath`): the child store's reads navigate through the property's getter.
    scopeChild(ScopedKeyPath(consume keyPath), action: embed)
  }

  @inlinable
  internal func scopeChild<ChildState, ChildAction>(
    _ path: __owned ScopedKeyPath<State, ChildState>,
    action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    let keyPath = path.keyPath
    if let cached = scopes[keyPath] as? Store<ChildState, ChildAction>, cached.isValid { return cached }
    // Read without tracking: a body that scopes a child does not depend on the child's slot (the
    // child store tells its own readers when the child is replaced).
    let initialState = withoutTracking { path.value(in: core.currentState) }
    return makeScopedStore(
      key: keyPath, initialState: initialState, extract: { path.value(at: $0) }, embed: embed,
      writablePath: keyPath as? WritableKeyPath<State, ChildState>, isOptional: false)
  }

  /// A store for the optional child state at `keyPath` while it is present, `nil` while it is
  /// absent. Enum state is scoped the same way, through an optional key path to one case's payload
  /// (a computed property that returns the payload or `nil`).
  ///
  /// The caller depends on the slot (inside a tracking scope it re-runs when the child appears,
  /// disappears or is replaced). When the child disappears, the store becomes invalid at that
  /// commit; a later child gets a new store. A child removed and another presented before the
  /// commit (`state.sheet = nil; state.sheet = Sheet()` in one action) was never absent at a
  /// commit: the store stays valid and shows the new child, whose readers hear it replaced.
  ///
  /// - Complexity: O(1) once cached.
  @inlinable @inline(__always)
  public func scope<ChildState, ChildAction>(
    state keyPath: consuming KeyPath<State, ChildState?>,
    action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction>? {
    // Inlined into the caller: see `scope(state:action:)` of a child.
    scopeOptionalChild(ScopedKeyPath(consume keyPath), action: embed)
  }

  @inlinable
  internal func scopeOptionalChild<ChildState, ChildAction>(
    _ path: __owned ScopedKeyPath<State, ChildState?>,
    action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction>? {
    guard isValid, let present = core.read({ path.value(in: $0) }) else { return nil }
    let keyPath = path.keyPath
    if let cached = scopes[keyPath] as? Store<ChildState, ChildAction>, cached.isValid { return cached }
    return makeScopedStore(
      key: keyPath, initialState: present, extract: { path.value(at: $0) }, embed: embed,
      writablePath: optionalChildPath(keyPath), isOptional: true)
  }

  /// The writable path to an optional scope's child, if `keyPath` is writable.
  @usableFromInline
  internal func optionalChildPath<ChildState>(_ keyPath: KeyPath<State, ChildState?>) -> AnyKeyPath? {
    (keyPath as? WritableKeyPath<State, ChildState?>)?.appending(path: \ChildState?.unsafelyUnwrappedChild)
  }

  /// Makes and caches a child or optional scope's store; its navigator is made here, specialized
  /// where this is inlined.
  @inlinable
  internal func makeScopedStore<ChildState, ChildAction>(
    key: AnyKeyPath,
    initialState: ChildState,
    extract: @escaping (UnsafePointer<State>) -> ChildState?,
    embed: @escaping (ChildAction) -> Action,
    writablePath: AnyKeyPath?,
    isOptional: Bool
  ) -> Store<ChildState, ChildAction> {
    let child = Store<ChildState, ChildAction>(
      core: ChildScope(
        parentStore: self, key: key, initialState: initialState, extract: extract, embed: embed,
        writablePath: writablePath, isOptional: isOptional,
        navigator: { ChildScope<State, Action, ChildState, ChildAction>.navigate($0) }))
    if child.isValid { scopes[key] = child }
    return child
  }

  /// A lazy collection of stores, one per element of the identified array at `keyPath`, whose
  /// actions are embedded with the element's id (`action: ListAction.row` for a case
  /// `row(id: Row.ID, action: Row.Action)`).
  ///
  /// The collection is a snapshot of the ids at this moment (so its indices stay valid while a
  /// view uses it); element stores are created only when accessed and are cached by id. The
  /// caller depends on the ids alone (inside a tracking scope it re-runs when rows are added,
  /// removed or moved) — not on the rows' fields, and not on a row replaced by a new value with
  /// the same id (that row's store tells its own readers). That holds however the array is
  /// written: rebuilt wholesale with new rows under the same ids in the same order
  /// (`state.rows = IdentifiedArray(uniqueElements: ids.map { Row(id: $0) })`), or this store's
  /// whole state replaced by one whose array has the same ids (`state = State(rows: ...)`), the
  /// caller does not re-run; each row's store tells its readers that its row is a new value. Ids
  /// removed and added back, or moved and moved back, within one action count as unchanged.
  ///
  /// At each commit that changes the array's structure, only the stores of removed or replaced
  /// elements are examined (through the array's structural journal, which the scope starts when
  /// the path from the root to the array is writable; otherwise, and when the array was rebuilt,
  /// every cached store is examined). A store whose element is gone becomes invalid; a store whose
  /// element was replaced by a new value with the same id tells its readers.
  ///
  /// To tell a rebuilt array's ids from the ones before, the scope keeps a copy of the ids when it
  /// hands out a collection after they changed (in storage of its own, so the reducer still
  /// inserts and removes rows in place): O(*n*) once per change of the ids, and one id per row of
  /// memory. Comparing them costs O(*n*) at a commit that rebuilt the array, or that kept the
  /// number of rows but changed their ids or order.
  ///
  /// - Complexity: O(1) to create the collection, plus the copy of the ids above after they
  ///   changed; O(1) per element store once cached.
  @inlinable @inline(__always)
  public func scope<ID: Hashable, ElementState, ElementAction>(
    state keyPath: consuming KeyPath<State, IdentifiedArray<ID, ElementState>>,
    action embed: @escaping (ID, ElementAction) -> Action
  ) -> StoreCollection<ID, ElementState, ElementAction> {
    // Inlined into the caller, so that the key path is a literal where its closure is made (see
    // `ScopedKeyPath`): row stores' reads navigate through the property's getter.
    scopeCollection(ScopedArrayPath(consume keyPath), action: embed)
  }

  @inlinable
  internal func scopeCollection<ID: Hashable, ElementState, ElementAction>(
    _ path: __owned ScopedArrayPath<State, ID, ElementState>,
    action embed: @escaping (ID, ElementAction) -> Action
  ) -> StoreCollection<ID, ElementState, ElementAction> {
    typealias Stores = CollectionStores<State, Action, ID, ElementState, ElementAction>
    let keyPath = path.keyPath
    let stores: Stores
    if let cached = scopes[keyPath] as? Stores, cached.scope.isValid {
      stores = cached
    } else {
      typealias Element = ElementScope<State, Action, ID, ElementState, ElementAction>
      stores = Stores(
        scope: CollectionScope(
          parent: core, path: path, embed: embed, elementNavigator: { Element.navigate($0) }))
      if stores.scope.isValid { scopes[keyPath] = stores }
    }
    return collectionSnapshot(keyPath, stores: stores)
  }

  /// The collection of `stores` over the array at `keyPath` now; the caller depends on its ids.
  @usableFromInline
  internal func collectionSnapshot<ID: Hashable, ElementState, ElementAction>(
    _ keyPath: KeyPath<State, IdentifiedArray<ID, ElementState>>,
    stores: CollectionStores<State, Action, ID, ElementState, ElementAction>
  ) -> StoreCollection<ID, ElementState, ElementAction> {
    let epoch = stores.scope.removals.epoch
    guard isValid else {
      let elements = withoutTracking { core.lastKnownState[keyPath: keyPath] }
      return StoreCollection(elements: elements, epoch: epoch, stores: stores)
    }
    // The caller depends on the ids alone (the scope's slot, under this store's guard): not on
    // this store's identity. A commit that replaces this store's state examines the scope, which
    // tells the caller if the new state's ids differ.
    let state = core.currentState
    if isTrackingAccesses { withTrackingGuard(core.guardForReads) { stores.scope.recordIDsRead() } }
    let elements = withoutTracking { state[keyPath: keyPath] }
    stores.scope.noteSnapshot(of: elements)
    return StoreCollection(elements: elements, epoch: epoch, stores: stores)
  }
}

extension Optional {
  /// The wrapped value, for the writable path of an optional scope: reached only through a store
  /// whose child is present (the scope is invalid once it is `nil`).
  fileprivate var unsafelyUnwrappedChild: Wrapped {
    get { self! }
    set { self = newValue }
  }
}
