extension OrderedSet {
  /// Appends `element` unless it is already a member.
  ///
  /// ```swift
  /// var set: OrderedSet = [1, 2]
  /// set.append(3)  // (inserted: true, index: 2)
  /// set.append(1)  // (inserted: false, index: 0); the set is unchanged
  /// ```
  ///
  /// - Returns: Whether the element was inserted, and its index in the set (where it already was
  ///   if it was a member).
  /// - Complexity: O(1) expected, amortized.
  @inlinable
  @discardableResult
  public mutating func append(_ element: Element) -> (inserted: Bool, index: Int) {
    let probe = _find(element)
    if let offset = probe.offset {
      return (false, offset)
    }
    let offset = _elements.count
    _insertNew(element, at: offset, probe: probe)
    return (true, offset)
  }

  /// Appends each element of `newElements` that is not already a member, in order.
  ///
  /// - Complexity: O(*m*) expected, amortized, where *m* is the length of `newElements`.
  @inlinable
  public mutating func append(contentsOf newElements: some Sequence<Element>) {
    for element in newElements {
      append(element)
    }
  }

  /// Inserts `element` at `index` unless it is already a member.
  ///
  /// A member stays where it is:
  ///
  /// ```swift
  /// var set: OrderedSet = ["a", "b", "c"]
  /// set.insert("z", at: 1)  // (inserted: true, index: 1): ["a", "z", "b", "c"]
  /// set.insert("c", at: 0)  // (inserted: false, index: 3): unchanged
  /// ```
  ///
  /// - Parameters:
  ///   - element: The element to insert.
  ///   - index: Where to insert; `0 ... count`.
  /// - Returns: Whether the element was inserted, and its index in the set.
  /// - Complexity: O(*n*) where *n* is the number of elements (elements after `index` shift).
  @inlinable
  @discardableResult
  public mutating func insert(_ element: Element, at index: Int) -> (inserted: Bool, index: Int) {
    _checkPrecondition(
      index >= 0 && index <= count, "OrderedSet insertion index \(index) is out of bounds 0...\(count)")
    let probe = _find(element)
    if let offset = probe.offset {
      return (false, offset)
    }
    _insertNew(element, at: index, probe: probe)
    return (true, index)
  }
}
