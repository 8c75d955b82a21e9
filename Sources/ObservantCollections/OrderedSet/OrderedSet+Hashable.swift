extension OrderedSet: Hashable {
  /// Hashes the number of elements and each element, in order.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements.
  @inlinable
  public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for element in _elements {
      hasher.combine(element)
    }
  }
}
