import Observant

/// The core of an element store: the element with an id in an identified array of the parent's
/// state. Its collection scope examines it when the element is removed or replaced.
///
/// It keeps the state last read through it or committed to it (`keepsState`, see `ScopedCore`):
/// what it shows once its row is gone.
@MainActor
@usableFromInline
internal final class ElementScope<ParentState, ParentAction, ID: Hashable, State, Action>: ScopedCore<State, Action> {
  /// Keeps the collection scope (which examines this store) and, through it, the parent alive.
  @usableFromInline let collection: CollectionScope<ParentState, ParentAction, ID, State, Action>
  @usableFromInline let id: ID
  /// Where the element was last found: its index, where a read looks first (the id there is
  /// compared), so that a read after an action that did not move rows takes the row at its index
  /// instead of looking its id up.
  @usableFromInline @exclusivity(unchecked) var position = ElementPosition()

  init(
    collection: CollectionScope<ParentState, ParentAction, ID, State, Action>, id: ID, showing state: State,
    isValid: Bool
  ) {
    self.collection = collection
    self.id = id
    super.init(
      identity: _observableIdentity(of: state), initialState: state, isValid: isValid,
      shape: collection.elementShape, keepsState: true)
  }

  /// The navigator of an element store: its element in the collection scope's array, made by the
  /// collection scope's maker (specialized there) and shared by all its element stores.
  @inlinable
  static func navigate(_ core: StoreCore<State, Action>) -> State? {
    let element = unsafeDowncast(core, to: ElementScope.self)
    return element.collection.navigatedElement(element.id, position: &element.position)
  }

  override func deliver(_ action: Action) { collection.deliver(action, from: id) }

  /// Made each time it is asked for (a diagnostic, a scope below this element, which keeps its
  /// own): none kept per row.
  override var location: StoreLocation {
    collection.location.appending(component: "[id: \(id)]")
  }

  override func willInvalidate() {
    collection.forget(id, self)
  }
}

/// An element store's last known position in its array (see `ElementScope.position`).
@usableFromInline
internal struct ElementPosition {
  @usableFromInline var index = -1

  @inlinable init() {}
}
