extension Array {
  /// Removes every element, keeping the storage: popped one by one, which for the few elements
  /// of a transaction costs a fraction of `removeAll(keepingCapacity:)` (a `replaceSubrange`).
  @inline(__always)
  mutating func empty() {
    while popLast() != nil {}
  }
}

extension ContiguousArray {
  /// Removes every element, keeping the storage (see `Array.empty()`).
  @inline(__always)
  mutating func empty() {
    while popLast() != nil {}
  }
}
