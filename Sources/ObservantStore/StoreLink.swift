import Observant

/// How a store reaches its state, its parent and its place in the tree: one object per store
/// (rather than a closure per concern, each with its own heap context).
@MainActor
internal class StoreLink<State, Action> {
  /// The current state, navigated from the root without tracking; `nil` when it is gone.
  func read() -> State? { nil }
  /// Hands an action to the parent; `false` when the parent is gone.
  func forward(_ action: Action) -> Bool { false }
  /// Mutates the state in place through the parent; `false` when that is not possible.
  func modify(_ body: (inout State) -> Void) -> Bool { false }
  /// Removes `store` from its parent's cache (on invalidation).
  func detach(_ store: Store<State, Action>) {}
  /// Where the store is, for diagnostics (e.g. `root.rows[id: 7]`); built only when asked.
  var path: String { location.description }
  /// Where the store is; also where scopes below it are.
  var location: StoreLocation { fatalError("StoreLink subclasses provide a location") }
}

/// The root's link: the processor owns the state.
internal final class RootLink<State, Action>: StoreLink<State, Action> {
  unowned let processor: RootProcessor<State, Action>
  private let rootLocation = StoreLocation.root()

  init(_ processor: RootProcessor<State, Action>) { self.processor = processor }

  override var location: StoreLocation { rootLocation }

  override func read() -> State? { processor.state }
  override func forward(_ action: Action) -> Bool {
    processor.process(action)
    return true
  }
  override func modify(_ body: (inout State) -> Void) -> Bool {
    body(&processor.state)
    return true
  }
}

/// A child or optional scope: a key path from the parent's state.
internal final class ScopeLink<ParentState, ParentAction, State, Action>: StoreLink<State, Action> {
  weak var parent: Store<ParentState, ParentAction>?
  let key: AnyKeyPath
  let extract: (ParentState) -> State?
  let embed: (Action) -> ParentAction
  let modifyChild: ((inout ParentState, (inout State) -> Void) -> Void)?
  private let scopeLocation: StoreLocation

  init(
    parent: Store<ParentState, ParentAction>, key: AnyKeyPath, extract: @escaping (ParentState) -> State?,
    embed: @escaping (Action) -> ParentAction, modifyChild: ((inout ParentState, (inout State) -> Void) -> Void)?,
    location: StoreLocation
  ) {
    self.parent = parent
    self.scopeLocation = location
    self.key = key
    self.extract = extract
    self.embed = embed
    self.modifyChild = modifyChild
  }

  override func read() -> State? { parent?.currentStateIfPresent.flatMap(extract) }

  override func forward(_ action: Action) -> Bool {
    guard let parent else { return false }
    parent.send(embed(action))
    return true
  }

  override func modify(_ body: (inout State) -> Void) -> Bool {
    guard let parent, let modifyChild else { return false }
    return parent.modifyState { modifyChild(&$0, body) }
  }

  override func detach(_ store: Store<State, Action>) {
    guard let parent, parent.scopes[key] === store else { return }
    parent.scopes[key] = nil
  }

  override var location: StoreLocation { scopeLocation }
}

/// An element of a collection scope: an id in an identified array of the parent's state.
internal final class ElementLink<ParentState, ParentAction, ID: Hashable, State, Action>: StoreLink<State, Action> {
  weak var parent: Store<ParentState, ParentAction>?
  weak var scope: CollectionScope<ParentState, ParentAction, ID, State, Action>?
  let keyPath: KeyPath<ParentState, IdentifiedArray<ID, State>>
  let id: ID
  let embed: (ID, Action) -> ParentAction
  /// The collection's location (shared by its element stores); the id completes the path.
  private let collectionLocation: StoreLocation

  init(
    parent: Store<ParentState, ParentAction>?, scope: CollectionScope<ParentState, ParentAction, ID, State, Action>,
    keyPath: KeyPath<ParentState, IdentifiedArray<ID, State>>, id: ID, embed: @escaping (ID, Action) -> ParentAction,
    collectionLocation: StoreLocation
  ) {
    self.parent = parent
    self.collectionLocation = collectionLocation
    self.scope = scope
    self.keyPath = keyPath
    self.id = id
    self.embed = embed
  }

  override func read() -> State? { parent?.currentStateIfPresent?[keyPath: keyPath][id: id] }

  override func forward(_ action: Action) -> Bool {
    guard let parent else { return false }
    parent.send(embed(id, action))
    return true
  }

  override func detach(_ store: Store<State, Action>) {
    scope?.forget(id, store)
  }

  /// Made when first needed (a scope below this element, a diagnostic): none per row otherwise.
  private var elementLocation: StoreLocation?

  override var location: StoreLocation {
    if let elementLocation { return elementLocation }
    let made = collectionLocation.appending(component: "[id: \(id)]")
    elementLocation = made
    return made
  }
}
