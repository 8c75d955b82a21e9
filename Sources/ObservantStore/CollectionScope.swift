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
  private var lastStructuralVersion: UInt64
  private var observer: ChangeObserver!
  let examinationOrder: Int
  private var isValid = true

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
    self.lastStructuralVersion = 0
    self.observer = ChangeObserver(onChange: parent.tree.enqueueHandler(for: self))
    let elements = track(parent.currentState)
    lastStructuralVersion = elements.structuralVersion
    startJournal(elements)
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
      let parent, let modify = parent.modifyState
    else { return }
    _ = modify { $0[keyPath: writable].recordStructuralChanges() }
  }

  /// The store for `id`: cached, or made now. An id absent from the current state (a snapshot
  /// that outlived its row) gets an invalid store showing `fallback`, which is not cached.
  func store(for id: ID, fallback: ElementState) -> Store<ElementState, ElementAction> {
    if let cached = stores[id] { return cached }
    let keyPath = self.keyPath
    let embed = self.embed
    let current = parent?.currentStateIfPresent?[keyPath: keyPath][id: id]
    let store = Store<ElementState, ElementAction>(
      tree: tree,
      path: "\(parent?.path ?? "?")\("\(keyPath)".drop { $0 != "." })[id: \(id)]",
      initialState: current ?? fallback,
      readState: { [weak parent] in parent?.currentStateIfPresent?[keyPath: keyPath][id: id] },
      forward: { [weak parent] action in
        guard let parent else { return false }
        parent.send(embed(id, action))
        return true
      },
      modifyState: nil)
    guard isValid, current != nil else {
      store.invalidate()
      return store
    }
    store.detach = { [weak self, weak store] in
      guard let self, let store, self.stores[id] === store else { return }
      self.stores[id] = nil
    }
    stores[id] = store
    return store
  }

  /// The array's structure changed (or its slot was replaced): examine the stores of removed and
  /// replaced elements only, when the journal can tell which; otherwise every cached store.
  func examine() -> Int {
    guard isValid else { return 0 }
    guard let parent, let parentState = parent.currentStateIfPresent else {
      invalidate()
      return 1
    }
    let elements = track(parentState)
    defer { lastStructuralVersion = elements.structuralVersion }
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

  /// Number of cached element stores (for tests and diagnostics).
  var cachedStoreCount: Int { stores.count }
}
