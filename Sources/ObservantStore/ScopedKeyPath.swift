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
