import ObservantCollections

/// A key path given to `scope(state:action:)` and its application, in one closure made where the
/// key path is written.
///
/// Applying a key path at run time walks its components generically: about a thousand
/// instructions for one computed property, on every read through a scoped store after an action.
/// The optimizer turns the application of a literal key path into a direct access, and carries a
/// literal into an escaping closure when the closure consumes it (its single use). So `scope`
/// consumes its key path into this one closure, which applies it to a state or, asked without one,
/// hands it back (for the scope caches and diagnostics).
@usableFromInline
internal struct ScopedKeyPath<Root, Value> {
  /// Given the address of a state, the value at the key path in it; given none, the key path. (An
  /// address, so that reading the value of a state held elsewhere copies nothing but the value.)
  @usableFromInline
  internal let access: (UnsafePointer<Root>?) -> (keyPath: KeyPath<Root, Value>?, value: Value?)

  /// Made where `scope(state:action:)` is inlined, from the caller's key path.
  @inlinable @inline(__always)
  internal init(_ keyPath: consuming KeyPath<Root, Value>) {
    let keyPath = consume keyPath
    access = { root in
      guard let root else { return (keyPath, nil) }
      return (nil, _applyInPlace(UnsafeMutablePointer(mutating: root), keyPath))
    }
  }

  /// The key path.
  @inlinable
  internal var keyPath: KeyPath<Root, Value> { access(nil).keyPath! }

  /// The value at the key path in `root`.
  @inlinable
  internal func value(in root: Root) -> Value {
    withUnsafePointer(to: root) { access($0).value! }
  }

  /// The value at the key path in the state at `root`.
  @inlinable
  internal func value(at root: UnsafePointer<Root>) -> Value { access(root).value! }
}

/// `root.pointee[keyPath: keyPath]`, with the state passed `inout`: the getter then borrows it
/// where it is (through a pointer it is copied first, retaining all it holds, since any call could
/// write the memory a pointer points to). Nothing is written.
@inlinable @inline(__always)
internal func _applyInPlace<Root, Value>(_ root: UnsafeMutablePointer<Root>, _ keyPath: KeyPath<Root, Value>) -> Value {
  _applyInout(&root.pointee, keyPath)
}

@inlinable
internal func _applyInout<Root, Value>(_ root: inout Root, _ keyPath: KeyPath<Root, Value>) -> Value {
  root[keyPath: keyPath]
}

/// `ScopedKeyPath` for an identified array, which also looks an element up where the array is.
///
/// A row store reads its row after every action. Through `ScopedKeyPath` that copied the array out
/// of the state (retaining its storage, its ids and its id reader) only to take one element and
/// release the copy. Here the element is looked up inside the closure that holds the literal key
/// path: the optimizer sees the property's getter, the lookup and the end of the array's use
/// together, and borrows the array where it is.
@usableFromInline
internal struct ScopedArrayPath<Root, ID: Hashable, Element> {
  @usableFromInline typealias Elements = IdentifiedArray<ID, Element>

  /// Given the address of a state and no id, the array at the key path in it; with an id, the
  /// element with that id (looked for first at the index `position` points to, which is updated
  /// when the element is elsewhere); given no state, the key path.
  @usableFromInline
  internal let access:
    (UnsafePointer<Root>?, ID?, UnsafeMutablePointer<Int>?) -> (
      keyPath: KeyPath<Root, Elements>?, elements: Elements?, element: Element?
    )

  /// Made where `scope(state:action:)` is inlined, from the caller's key path.
  @inlinable @inline(__always)
  internal init(_ keyPath: consuming KeyPath<Root, Elements>) {
    let keyPath = consume keyPath
    access = { root, id, position in
      guard let root else { return (keyPath, nil, nil) }
      guard let id, let position else {
        return (nil, _applyInPlace(UnsafeMutablePointer(mutating: root), keyPath), nil)
      }
      return (nil, nil, _elementInPlace(UnsafeMutablePointer(mutating: root), keyPath, id, position))
    }
  }

  /// The key path.
  @inlinable
  internal var keyPath: KeyPath<Root, Elements> { access(nil, nil, nil).keyPath! }

  /// The array at the key path in `root`.
  @inlinable
  internal func value(in root: Root) -> Elements {
    withUnsafePointer(to: root) { access($0, nil, nil).elements! }
  }

  /// The array at the key path in the state at `root`.
  @inlinable
  internal func value(at root: UnsafePointer<Root>) -> Elements { access(root, nil, nil).elements! }

  /// The element with `id` in the array at the key path in the state at `root`, if any; `position`
  /// is where to look first, updated when the element is found elsewhere.
  @inlinable
  internal func element(_ id: ID, at root: UnsafePointer<Root>, position: inout Int) -> Element? {
    access(root, id, &position).element
  }

  /// The element with `id` in the array at the key path in `root`, if any (see
  /// `element(_:at:position:)`).
  @inlinable
  internal func element(_ id: ID, in root: Root, position: inout Int) -> Element? {
    withUnsafePointer(to: root) { access($0, id, &position).element }
  }
}

/// The element with `id` in `root.pointee[keyPath: keyPath]`, the state passed `inout` (see
/// `_applyInPlace`): at `position.pointee` if the id is there, otherwise looked up (and
/// `position.pointee` updated). Nothing is written to the state.
@inlinable @inline(__always)
internal func _elementInPlace<Root, ID: Hashable, Element>(
  _ root: UnsafeMutablePointer<Root>, _ keyPath: KeyPath<Root, IdentifiedArray<ID, Element>>, _ id: ID,
  _ position: UnsafeMutablePointer<Int>
) -> Element? {
  _elementInout(&root.pointee, keyPath, id, position)
}

@inlinable @inline(__always)
internal func _elementInout<Root, ID: Hashable, Element>(
  _ root: inout Root, _ keyPath: KeyPath<Root, IdentifiedArray<ID, Element>>, _ id: ID,
  _ position: UnsafeMutablePointer<Int>
) -> Element? {
  let elements = root[keyPath: keyPath]
  let index = position.pointee
  if index >= 0, index < elements.count, elements.ids[index] == id { return elements[index] }
  guard let found = elements.index(id: id) else { return nil }
  position.pointee = found
  return elements[found]
}
