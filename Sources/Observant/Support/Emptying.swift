extension Array {
  /// Removes every element, keeping the storage: removed one by one from the end, which for the
  /// few elements of a transaction costs a fraction of `removeAll(keepingCapacity:)` (a
  /// `replaceSubrange`). (`removeLast()`, not `popLast()`: a popped element is copied into an
  /// optional before it is destroyed.)
  @inline(__always)
  mutating func empty() {
    while !isEmpty { removeLast() }
  }
}

extension ContiguousArray {
  /// Removes every element, keeping the storage (see `Array.empty()`).
  @inline(__always)
  mutating func empty() {
    while !isEmpty { removeLast() }
  }
}
