extension OrderedSet: Equatable {
  /// Whether two sets contain the same elements in the same order.
  ///
  /// Sets that share storage (a copy and its original, with no mutation since) compare equal
  /// without reading any element.
  ///
  /// - Complexity: O(1) when the sets share storage or differ in count; otherwise O(*n*) where
  ///   *n* is the number of elements.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs._storageIdentity == rhs._storageIdentity { return true }
    return lhs._elements.elementsEqual(rhs._elements)
  }
}
