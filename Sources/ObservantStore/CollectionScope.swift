import Observant

/// The cache behind `Store.scope(state:action:)` for an identified array: one store per accessed
/// element, kept in step with the array at each commit.
@MainActor
internal final class CollectionScope<State, Action, ID: Hashable, ElementState, ElementAction>: StoreNode, Examinable {
  private weak var parent: Store<State, Action>?
  private let tree: StoreTree
  private let keyPath: KeyPath<State, IdentifiedArray<ID, ElementState>>
  private let embed: (ID, ElementAction) -> Action
  private var stores: [ID: Store<ElementState, ElementAction>] = [:]
  private var lastStructuralVersion: UInt64 = 0
  private var lastIDsVersion: UInt64 = 0
  private var observer: ChangeObserver!
  /// The ids slot: callers of `scope(state:action:)` depend on it; it notifies when the ids or
  /// their order change. Made on the first tracked read.
  private var registrar: TrackingRegistrar?
  let examinationOrder: Int
  private var isValid = true
  /// The collection's place in the tree; its element stores add their id.
  private let location: StoreLocation

  private static var idsField: InternalField { InternalField(0, name: "ids", owner: CollectionScope.self) }

  init(
    parent: Store<State, Action>,
    keyPath: KeyPath<State, IdentifiedArray<ID, ElementState>>,
    embed: @escaping (ID, ElementAction) -> Action
  ) {
    self.parent = parent
    self.tree = parent.tree
    self.keyPath = keyPath
    self.embed = embed
    self.examinationOrder = parent.tree.makeOrder()
    let parentLocation = parent.location
    let parentState = parent.currentStateIfPresent
    self.location = withoutTracking {
      parentState.map { parentLocation.appending(keyPath, reading: $0) } ?? parentLocation
    }
    self.observer = ChangeObserver(onChange: parent.tree.enqueueHandler(for: self))
    if let parentState {
      let elements = track(parentState)
      lastStructuralVersion = elements.structuralVersion
      lastIDsVersion = elements.idsVersion
      startJournal(elements)
    }
  }

  /// Records, in the current tracking scope, a dependency on the ids.
  func recordIDsRead() {
    guard isTrackingAccesses else { return }
    let registrar = self.registrar ?? TrackingRegistrar()
    self.registrar = registrar
    registrar.access(Self.idsField)
  }

  /// Reads the array from `parentState`, recording the slots it depends on.
  private func track(_ parentState: State) -> IdentifiedArray<ID, ElementState> {
    observer.track { parentState[keyPath: keyPath] }
  }

  /// Asks the array to record which ids its structural changes remove or replace, so commits can
  /// examine just those stores. Needs a writable path; changes no version, notifies nobody.
  private func startJournal(_ elements: IdentifiedArray<ID, ElementState>) {
    guard !elements.isRecordingStructuralChanges,
      let writable = keyPath as? WritableKeyPath<State, IdentifiedArray<ID, ElementState>>,
      let parent
    else { return }
    // Through a key path the accessors run get-then-set: keep the get out of the caller's scope.
    _ = withoutTracking { parent.modifyState { $0[keyPath: writable].recordStructuralChanges() } }
  }

  /// The store for `id`: cached, or made now. An id absent from the current state (a snapshot
  /// that outlived its row) gets an invalid store showing `fallback`, which is not cached.
  func store(for id: ID, fallback: ElementState) -> Store<ElementState, ElementAction> {
    if let cached = stores[id] { return cached }
    let keyPath = self.keyPath
    let current = withoutTracking { parent?.currentStateIfPresent?[keyPath: keyPath][id: id] }
    let link = ElementLink(
      parent: parent, scope: self, keyPath: keyPath, id: id, embed: embed, collectionLocation: location)
    let store = Store(tree: tree, link: link, initialState: current ?? fallback)
    guard isValid, current != nil else {
      store.invalidate()
      return store
    }
    stores[id] = store
    return store
  }

  /// Drops `store` from the cache if it is the one cached for `id`.
  func forget(_ id: ID, _ store: Store<ElementState, ElementAction>) {
    if stores[id] === store { stores[id] = nil }
  }

  /// The array's structure changed (or its slot was replaced): examine the stores of removed and
  /// replaced elements only, when the journal can tell which; otherwise every cached store. Tell
  /// the callers of `scope` if the ids changed.
  func examine() -> Int {
    guard isValid else { return 0 }
    guard let parent, let parentState = parent.currentStateIfPresent else {
      invalidate()
      return 1
    }
    let elements = track(parentState)
    defer {
      lastStructuralVersion = elements.structuralVersion
      lastIDsVersion = elements.idsVersion
    }
    if elements.idsVersion != lastIDsVersion {
      registrar?.notifyChange(of: Self.idsField)
    }
    guard elements.structuralVersion != lastStructuralVersion else { return 1 }
    var examined = 1
    if let changes = elements.structuralChanges(since: lastStructuralVersion) {
      var seen = Set<ID>()
      for id in changes.removed + changes.replaced where stores[id] != nil && seen.insert(id).inserted {
        examined += examineStore(id, in: elements)
      }
    } else {
      for id in Array(stores.keys) { examined += examineStore(id, in: elements) }
      startJournal(elements)
    }
    return examined
  }

  private func examineStore(_ id: ID, in elements: IdentifiedArray<ID, ElementState>) -> Int {
    guard let store = stores[id] else { return 0 }
    if let element = elements[id: id] {
      return 1 + store.acceptCommittedState(element)
    }
    store.invalidate()
    return 1
  }

  func invalidate() {
    guard isValid else { return }
    isValid = false
    observer.cancel()
    let cached = stores.values
    stores = [:]
    for store in cached { store.invalidate() }
  }
}
