import Observant

/// What `Store.scope(state:action:)` keeps for an identified array: the element stores made so far,
/// kept in step with the array at each commit.
///
/// The scope holds its parent's core (it keeps the parent alive) and, by id, the element stores
/// made: so that asking twice for an id returns the same store, it holds them (strongly) while
/// the parent store's handle on it (`CollectionStores`) lives; each store's core holds the scope,
/// and the handle's end breaks that cycle (the scope then holds the cores weakly, for the stores
/// someone else keeps). One dictionary and no weak reference per row while the parent lives.
@MainActor
@usableFromInline
internal final class CollectionScope<ParentState, ParentAction, ID: Hashable, ElementState, ElementAction>:
  StoreDependent
{
  typealias Element = ElementScope<ParentState, ParentAction, ID, ElementState, ElementAction>

  @usableFromInline let parent: StoreCore<ParentState, ParentAction>
  let tree: StoreTree
  /// Identifies the scope in its parent's caches.
  private let keyPath: KeyPath<ParentState, IdentifiedArray<ID, ElementState>>
  /// Reads the array, or one element, from the parent's state (see `ScopedArrayPath`).
  @usableFromInline let path: ScopedArrayPath<ParentState, ID, ElementState>
  private let embed: (ID, ElementAction) -> ParentAction
  /// The root core's state, when the parent is the root: valid while the scope holds its parent.
  /// (Reached through the parent, the root core was retained for each read, and a retain of a core
  /// its tree references weakly takes the slow path.)
  @usableFromInline let rootStateAddress: UnsafeMutablePointer<ParentState>?
  /// The element stores made so far, by id: held while the parent store's handle on this scope
  /// lives, then their cores weakly (see the type's documentation).
  private var elements: [ID: ElementEntry<ParentState, ParentAction, ID, ElementState, ElementAction>] = [:]
  /// Whether the parent store's handle on this scope (`CollectionStores`) is alive: element stores
  /// are held, and cached, while it is.
  private var holdsStores = true
  private var lastStructuralVersion: UInt64 = 0
  private var lastIDsVersion: UInt64 = 0
  /// The ids at `lastIDsVersion`, in order, when known: copied when a collection of them is made
  /// (`noteSnapshot`), kept while commits leave the ids as they are, forgotten when they change.
  /// With them, a commit that rebuilt the array (whose versions are all new) can tell whether the
  /// ids changed, and which went away. In storage of their own: sharing the array's would make the
  /// reducer's next in-place insertion or removal copy the array's ids.
  private var knownIDs: ContiguousArray<ID>?
  private var observer: ChangeObserver?
  /// The ids slot: callers of `scope(state:action:)` depend on it; it notifies when the ids or
  /// their order change. Made on the first tracked read.
  private var registrar: TrackingRegistrar?
  let examinationOrder: Int
  @usableFromInline @exclusivity(unchecked) private(set) var isValid: Bool
  /// Which ids disappeared at recent commits, for snapshots taken before.
  private(set) var removals = RemovalLog<ID>()
  /// The element stores made invalid because their row was removed, by id, oldest removal first,
  /// held weakly: a snapshot taken before the removal answers the row's position with the store
  /// handed out for that row (showing the last state read through it), not with an older copy.
  /// Entries whose store is gone are dropped at each commit that removes rows.
  private var removedStores: [ID: [RemovedStore]] = [:]
  /// What the element stores of this scope share: their navigator and their identity field.
  let elementShape: StoreShape<ElementState, ElementAction>
  /// The collection's place in the tree; its element stores add their id.
  let location: StoreLocation
  /// Where the array is from the root, if writable: the structural journal is started through it.
  private let journalPath: AnyKeyPath?

  private static var idsField: InternalField { InternalField(0, name: "ids", owner: CollectionScope.self) }

  @usableFromInline
  init(
    parent: StoreCore<ParentState, ParentAction>,
    path: ScopedArrayPath<ParentState, ID, ElementState>,
    embed: @escaping (ID, ElementAction) -> ParentAction,
    elementNavigator: @escaping (StoreCore<ElementState, ElementAction>) -> ElementState?
  ) {
    self.parent = parent
    self.tree = parent.tree
    let keyPath = path.keyPath
    self.keyPath = keyPath
    self.path = path
    self.elementShape = StoreShape(tree: parent.tree, navigator: elementNavigator)
    self.embed = embed
    self.rootStateAddress = parent.stateAddressIfRoot
    self.examinationOrder = parent.tree.makeOrder()
    let parentLocation = parent.location
    let parentState = parent.presentState
    let named = parentState ?? parent.lastKnownState
    self.location = withoutTracking { parentLocation.appending(keyPath, reading: named) }
    self.journalPath =
      (keyPath is WritableKeyPath<ParentState, IdentifiedArray<ID, ElementState>>)
      ? parent.pathFromRoot?.appending(path: keyPath) : nil
    self.isValid = parentState != nil
    guard let parentState else { return }
    let observer = ChangeObserver(onChange: parent.tree.enqueueHandler(for: self))
    self.observer = observer
    let elements = observer.track { path.value(in: parentState) }
    lastStructuralVersion = elements.structuralVersion
    lastIDsVersion = elements.idsVersion
    startJournal(elements)
    parent.addDependent(self, for: keyPath)
  }

  /// Records, in the current tracking scope, a dependency on the ids.
  func recordIDsRead() {
    guard isTrackingAccesses else { return }
    let registrar = self.registrar ?? TrackingRegistrar()
    self.registrar = registrar
    registrar.access(Self.idsField)
  }

  /// A collection of `elements` is handed out: keeps a copy of their ids (see `knownIDs`), if they
  /// are the ids of the last commit and none is kept yet.
  ///
  /// - Complexity: O(*n*) in the ids when they are copied (once per change of the ids), else O(1).
  func noteSnapshot(of elements: IdentifiedArray<ID, ElementState>) {
    guard knownIDs == nil, isValid, elements.idsVersion == lastIDsVersion else { return }
    // Copied element by element into a new buffer (`ContiguousArray(elements.ids.elements)` would
    // share the set's own).
    knownIDs = ContiguousArray(elements.ids)
  }

  /// Whether the ids of `elements` are the ids of the last commit: by version, or else (a rebuilt
  /// array, or ids changed and changed back) by comparing them with `knownIDs`. `false` when that
  /// cannot be told.
  ///
  /// - Complexity: O(1) when the versions match or the counts differ, otherwise O(*n*).
  private func hasKnownIDs(_ elements: IdentifiedArray<ID, ElementState>) -> Bool {
    if elements.idsVersion == lastIDsVersion { return true }
    guard let knownIDs, knownIDs.count == elements.count else { return false }
    return knownIDs.elementsEqual(elements.ids)
  }

  /// The ids of the last commit that `elements` no longer holds; `nil` when they are not known.
  private func idsGone(from elements: IdentifiedArray<ID, ElementState>) -> Set<ID>? {
    knownIDs.map { Set($0.lazy.filter { elements.index(id: $0) == nil }) }
  }

  /// The current element with `id`, navigated from the root without recording; `nil` if absent.
  func currentElement(_ id: ID) -> ElementState? {
    guard isValid, let parentState = parent.presentState else { return nil }
    return withoutTracking { path.value(in: parentState)[id: id] }
  }

  /// `currentElement(_:)` for an element store's navigator (tracking suspended, the reducer known
  /// not to run). Below the root, the element is read from the root's state in place: only the
  /// element is copied. `position` is where the element was found last (see
  /// `ElementScope.position`).
  @inlinable
  func navigatedElement(_ id: ID, position: inout ElementPosition) -> ElementState? {
    guard isValid else { return nil }
    if let rootStateAddress { return path.element(id, at: rootStateAddress, position: &position.index) }
    guard let parentState = parent.navigatedState else { return nil }
    return path.element(id, in: parentState, position: &position.index)
  }

  /// Sends the action of the element store for `id` to the parent.
  func deliver(_ action: ElementAction, from id: ID) {
    parent.deliver(embed(id, action))
  }

  /// Asks the array to record which ids its structural changes remove or replace, so commits can
  /// examine just those stores. Needs a writable path from the root (through child and optional
  /// scopes; not through an element, whose arrays get every cached store examined instead).
  /// Changes no version, notifies nobody.
  private func startJournal(_ elements: IdentifiedArray<ID, ElementState>) {
    guard !elements.isRecordingStructuralChanges, let journalPath, let root = tree.root else { return }
    // Through a key path the accessors run get-then-set: keep the get out of the caller's scope.
    _ = withoutTracking {
      root.modifyLiveState(at: journalPath) { (array: inout IdentifiedArray<ID, ElementState>) in
        array.recordStructuralChanges()
      }
    }
  }

  // MARK: Element stores

  /// How a snapshot's position for `id`, showing `shown`, taken at removal epoch `epoch`, relates
  /// to the current state: the row it showed is still there (maybe changed, or replaced by a new
  /// value with the same id, in place or by rebuilding the array), or it is gone (removed at a
  /// commit since, even if the id is back).
  ///
  /// When the removal log cannot tell (the snapshot is older than its window), the answer is
  /// conservative: the same instance (`ObservableState` rows) is the same row; anything else,
  /// including every plain row, is taken for gone.
  func resolve(_ id: ID, showing shown: ElementState, since epoch: Int) -> ElementState? {
    guard let current = currentElement(id) else { return nil }
    switch removals.wasRemoved(id, since: epoch) {
    case false?: return current
    case true?: return nil
    case nil:
      guard let before = instanceIdentity(of: shown), let now = instanceIdentity(of: current) else { return nil }
      return before == now ? current : nil
    }
  }

  /// The store for the row a snapshot showed at a position: `shown`, with `id`, at the removal
  /// epoch `epoch`. The store made before for the id (cached while the parent's handle lives), or
  /// a new one, while that row is still in the array; otherwise an invalid store showing `shown`,
  /// neither cached nor examined.
  func store(for id: ID, showing shown: ElementState, since epoch: Int) -> Store<ElementState, ElementAction> {
    let current = resolve(id, showing: shown, since: epoch)
    if current != nil, case .held(let cached)? = elements[id], cached.isValid { return cached }
    guard let current, isValid else {
      if let removed = removedStores[id]?.first(where: { $0.epoch > epoch }) {
        if let store = removed.store { return store }
        if let core = removed.core { return Store(core: core) }
      }
      return Store(core: Element(collection: self, id: id, showing: shown, isValid: false))
    }
    let element = Element(collection: self, id: id, showing: current, isValid: true)
    let store = Store<ElementState, ElementAction>(core: element)
    elements[id] = holdsStores ? .held(store) : .weak(WeakElement(core: element))
    return store
  }

  /// Forgets the element store `core` made for `id` (it became invalid).
  func forget(_ id: ID, _ core: Element) {
    if elements[id]?.core === core { elements[id] = nil }
  }

  /// The parent store's handle on this scope ended: the element stores are no longer held (nor
  /// cached); the cores of those someone else keeps stay examined, held weakly.
  func stopHoldingStores() {
    guard holdsStores else { return }
    holdsStores = false
    let held = elements
    elements = [:]
    for (id, entry) in held {
      if let core = entry.core { elements[id] = .weak(WeakElement(core: core)) }
    }
  }

  // MARK: Commit

  /// The array's structure changed (or its slot was replaced, or the parent's state): examine the
  /// stores of removed and replaced elements only, when the journal can tell which; otherwise
  /// (a rebuilt array) every element store. Tell the callers of `scope` if the ids changed: a
  /// rebuilt array with the same ids in the same order is not a change of the ids (its rows are
  /// replaced by new values with the same ids, which their stores tell their own readers).
  func examine() -> Int {
    guard isValid, let observer else { return 0 }
    guard let parentState = parent.presentState else {
      invalidate()
      return 1
    }
    let elements = observer.track { path.value(in: parentState) }
    guard elements.structuralVersion != lastStructuralVersion else { return 1 }
    let sameIDs = hasKnownIDs(elements)
    if !sameIDs {
      registrar?.notifyChange(of: Self.idsField)
    }
    var examined = 1
    pruneRemovedStores()
    if let changes = elements.structuralChanges(since: lastStructuralVersion) {
      removals.record(Set(changes.removed.lazy.filter { elements.index(id: $0) == nil }))
      var seen = Set<ID>()
      for id in changes.removed + changes.replaced where self.elements[id] != nil && seen.insert(id).inserted {
        examined += examineElement(id, in: elements)
      }
    } else {
      // Which ids went away is known from the ids of the last commit, when they were kept; a
      // snapshot asking about a row of an id that was gone (also if it is back) is told so.
      removals.record(sameIDs ? [] : idsGone(from: elements))
      for id in Array(self.elements.keys) { examined += examineElement(id, in: elements) }
      startJournal(elements)
    }
    lastStructuralVersion = elements.structuralVersion
    lastIDsVersion = elements.idsVersion
    if !sameIDs { knownIDs = nil }
    return examined
  }

  private func examineElement(_ id: ID, in elements: IdentifiedArray<ID, ElementState>) -> Int {
    let entry = self.elements[id]
    guard let core = entry?.core else {
      self.elements[id] = nil
      return 0
    }
    if let element = elements[id: id] {
      return 1 + core.acceptCommittedState(element)
    }
    core.invalidate()
    // Removed at this commit: snapshots taken before it answer the row's position with this store.
    var store: Store<ElementState, ElementAction>?
    if case .held(let held)? = entry { store = held }
    removedStores[id, default: []].append(RemovedStore(epoch: removals.epoch, store: store, core: core))
    return 1
  }

  /// Drops the entries of `removedStores` whose store nobody holds any more.
  private func pruneRemovedStores() {
    guard !removedStores.isEmpty else { return }
    for id in Array(removedStores.keys) {
      removedStores[id]!.removeAll { $0.core == nil }
      if removedStores[id]!.isEmpty { removedStores[id] = nil }
    }
  }

  func invalidate() {
    guard isValid else { return }
    isValid = false
    observer?.cancel()
    observer = nil
    parent.removeDependent(self, for: keyPath)
    let entries = elements
    elements = [:]
    knownIDs = nil
    // The entries (and the stores they hold) are let go of once every core is invalid.
    for core in entries.values.compactMap({ $0.core }) { core.invalidate() }
  }
}

extension CollectionScope {
  /// An element store made invalid by the removal of its row at the commit of removal epoch
  /// `epoch`, held weakly (see `removedStores`).
  struct RemovedStore {
    let epoch: Int
    weak var store: Store<ElementState, ElementAction>?
    weak var core: Element?
  }
}

/// A weak reference to an element store's core.
internal struct WeakElement<ParentState, ParentAction, ID: Hashable, ElementState, ElementAction> {
  weak var core: ElementScope<ParentState, ParentAction, ID, ElementState, ElementAction>?
}

/// An element store made by a collection scope: held (and cached) while the parent's handle on
/// the scope lives, then its core weakly.
@MainActor
internal enum ElementEntry<ParentState, ParentAction, ID: Hashable, ElementState, ElementAction> {
  case held(Store<ElementState, ElementAction>)
  case weak(WeakElement<ParentState, ParentAction, ID, ElementState, ElementAction>)

  /// The store's core, if it still exists.
  var core: ElementScope<ParentState, ParentAction, ID, ElementState, ElementAction>? {
    switch self {
    case .held(let store):
      unsafeDowncast(store.core, to: ElementScope<ParentState, ParentAction, ID, ElementState, ElementAction>.self)
    case .weak(let reference):
      reference.core
    }
  }
}

/// The instance identity of `value`, if its type has one (`ObservableState` does).
private func instanceIdentity<Value>(of value: Value) -> InstanceIdentity? {
  (value as? any InstanceIdentifiable)?.instanceIdentity
}

/// A parent store's handle on one of its collection scopes: while it lives (the parent store
/// keeps it in its scope cache), the scope holds and caches the element stores it made, so that
/// asking twice for an id returns the same store while its row lives. Its end (with the parent
/// store) lets the scope hold the element stores' cores weakly instead, breaking the cycle
/// between the scope and the stores it holds.
@MainActor
@usableFromInline
internal final class CollectionStores<ParentState, ParentAction, ID: Hashable, ElementState, ElementAction> {
  @usableFromInline let scope: CollectionScope<ParentState, ParentAction, ID, ElementState, ElementAction>

  @usableFromInline
  init(scope: CollectionScope<ParentState, ParentAction, ID, ElementState, ElementAction>) {
    self.scope = scope
  }

  // On the main actor, as everything the scope holds is used: a parent store released elsewhere
  // hands this to the main actor (the stores stay held meanwhile).
  isolated deinit {
    scope.stopHoldingStores()
  }

  /// The store for the row a snapshot showed at a position (see `CollectionScope.store(for:)`).
  func store(for id: ID, showing shown: ElementState, since epoch: Int) -> Store<ElementState, ElementAction> {
    scope.store(for: id, showing: shown, since: epoch)
  }
}
