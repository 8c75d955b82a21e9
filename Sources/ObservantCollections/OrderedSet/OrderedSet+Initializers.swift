extension OrderedSet {
  /// Creates a set of the distinct elements of a sequence, in order of first appearance.
  ///
  /// Later duplicates are dropped:
  ///
  /// ```swift
  /// OrderedSet([3, 1, 3, 2, 1]).elements  // [3, 1, 2]
  /// ```
  ///
  /// - Complexity: O(*n*) expected, where *n* is the length of the sequence.
  @inlinable
  public init(_ elements: some Sequence<Element>) {
    self.init()
    reserveCapacity(elements.underestimatedCount)
    for element in elements {
      append(element)
    }
  }

  /// Creates a set of elements that you guarantee to be unique, skipping the duplicate check.
  ///
  /// Duplicates are not detected and leave the set broken; `_checkInvariants()` reports them.
  /// Use this initializer only for elements that are unique by construction.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the length of the sequence.
  @inlinable
  public init(uncheckedUniqueElements elements: some Sequence<Element>) {
    self.init(_uncheckedUniqueElements: ContiguousArray(elements))
  }
}
