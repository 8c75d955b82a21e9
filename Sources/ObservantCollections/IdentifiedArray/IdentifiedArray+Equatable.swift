extension IdentifiedArray: Equatable where Element: Equatable {
  /// Whether two arrays hold equal ids and equal elements, in the same order.
  ///
  /// Arrays with equal ``version`` stamps (unmutated copies of one another) are equal without
  /// reading any element; so are arrays with equal ids that share element storage.
  ///
  /// - Complexity: O(1) for unmutated copies or different counts; otherwise O(*n*) where *n* is
  ///   the number of elements.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    if lhs._version == rhs._version { return true }
    guard lhs.count == rhs.count, lhs._ids == rhs._ids else { return false }
    if lhs._elementStorageIdentity == rhs._elementStorageIdentity { return true }
    return lhs._elements.elementsEqual(rhs._elements)
  }
}
