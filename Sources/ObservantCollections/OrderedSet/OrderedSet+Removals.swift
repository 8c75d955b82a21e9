extension OrderedSet {
  /// Removes `element` if it is a member.
  ///
  /// - Returns: The removed member, or `nil` if `element` was not a member.
  /// - Complexity: O(*n*) where *n* is the number of elements (later elements shift);
  ///   O(1) expected when removing the last element.
  @inlinable
  @discardableResult
  public mutating func remove(_ element: Element) -> Element? {
    let probe = _find(element)
    guard let offset = probe.offset else { return nil }
    return _removeExisting(at: offset, bucket: _index.isEnabled ? probe.bucket : nil)
  }

  /// Removes and returns the element at `index`, which must be a valid index.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements (later elements shift);
  ///   O(1) expected when removing the last element.
  @inlinable
  @discardableResult
  public mutating func remove(at index: Int) -> Element {
    _checkPrecondition(index >= 0 && index < count, "OrderedSet index \(index) is out of bounds 0..<\(count)")
    return _removeExisting(at: index, bucket: nil)
  }

  /// Removes every element.
  ///
  /// - Parameter keepCapacity: Whether to keep the storage for reuse; `false` by default.
  /// - Complexity: O(*n*) where *n* is the number of elements.
  @inlinable
  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
    _elements.removeAll(keepingCapacity: keepCapacity)
    if keepCapacity, _index.isEnabled {
      _index.removeAllEntries()
    } else {
      _index = _HashIndex()
    }
  }

  /// Removes the elements at the given offsets, keeping the order of the rest.
  ///
  /// Each offset must be a valid index; repeated offsets count once.
  ///
  /// - Complexity: O(*n*) expected where *n* is the number of elements, plus the cost of reading
  ///   the offsets.
  @inlinable
  public mutating func remove(atOffsets offsets: some Sequence<Int>) {
    let ranges = _rangeSet(ofOffsets: offsets, count: count, operation: "OrderedSet.remove(atOffsets:)")
    _removeSubranges(ranges)
  }

  /// Removes the elements that satisfy `shouldBeRemoved`, keeping the order of the rest.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    _removeSubranges(try _elements.indices(where: shouldBeRemoved))
  }

  /// Removes the elements in `ranges`, then re-indexes the rest if anything was removed.
  @inlinable
  internal mutating func _removeSubranges(_ ranges: RangeSet<Int>) {
    guard !ranges.isEmpty else { return }
    _elements.removeSubranges(ranges)
    _reindex()
  }
}
