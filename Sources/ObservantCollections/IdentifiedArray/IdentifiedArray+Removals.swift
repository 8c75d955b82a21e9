extension IdentifiedArray {
  /// Removes the element with the given id, if there is one.
  ///
  /// - Returns: The removed element, or `nil` if no element had the id (then nothing changes).
  /// - Complexity: O(*n*) where *n* is the number of elements (later elements shift);
  ///   O(1) expected when removing the last element.
  @inlinable
  @discardableResult
  public mutating func remove(id: ID) -> Element? {
    let probe = _ids._find(id)
    guard let offset = probe.offset else { return nil }
    return _removeExisting(at: offset, probe: probe)
  }

  /// Removes and returns the element at `index`, which must be a valid index.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements (later elements shift);
  ///   O(1) expected when removing the last element.
  @inlinable
  @discardableResult
  public mutating func remove(at index: Int) -> Element {
    _checkPrecondition(index >= 0 && index < count, "IdentifiedArray index \(index) is out of bounds 0..<\(count)")
    let removedID = _ids._removeExisting(at: index, bucket: nil)
    let removed = _elements.remove(at: index)
    _structureDidChange(removed: [removedID])
    return removed
  }

  /// Removes every element; an empty array stays unchanged.
  ///
  /// - Parameter keepCapacity: Whether to keep the storage for reuse; `false` by default.
  /// - Complexity: O(*n*) where *n* is the number of elements.
  @inlinable
  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
    guard !isEmpty else { return }
    let removedIDs = _journal == nil ? [] : _ids.elements
    _ids.removeAll(keepingCapacity: keepCapacity)
    _elements.removeAll(keepingCapacity: keepCapacity)
    _structureDidChange(removed: removedIDs)
  }

  /// Removes the elements that satisfy `shouldBeRemoved`, keeping the order of the rest.
  ///
  /// If no element satisfies it, nothing changes.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    _removeSubranges(try _elements.indices(where: shouldBeRemoved))
  }

  /// Removes the elements at the given offsets (for example from SwiftUI's `onDelete`), keeping
  /// the order of the rest.
  ///
  /// Each offset must be a valid index; repeated offsets count once.
  ///
  /// - Complexity: O(*n*) expected where *n* is the number of elements, plus the cost of reading
  ///   the offsets.
  @inlinable
  public mutating func remove(atOffsets offsets: some Sequence<Int>) {
    _removeSubranges(_rangeSet(ofOffsets: offsets, count: count, operation: "IdentifiedArray.remove(atOffsets:)"))
  }

  /// Returns the elements that satisfy `isIncluded`, in order, as an identified array with the
  /// same id extractor.
  ///
  /// If every element is included, the result is an unmutated copy: it shares storage and
  /// ``version`` with this array.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> Self {
    var result = self
    try result.removeAll { try !isIncluded($0) }
    return result
  }

  /// Removes the element at `offset`, found by the look-up `probe`, and records the change.
  @inlinable
  @discardableResult
  internal mutating func _removeExisting(at offset: Int, probe: _HashIndex.Probe) -> Element {
    let removedID = _ids._removeExisting(at: offset, bucket: _ids._index.isEnabled ? probe.bucket : nil)
    let removed = _elements.remove(at: offset)
    _structureDidChange(removed: [removedID])
    return removed
  }

  /// Removes the elements in `ranges` and records the change, if there are any.
  @inlinable
  internal mutating func _removeSubranges(_ ranges: RangeSet<Int>) {
    guard !ranges.isEmpty else { return }
    let removedIDs = _journal == nil ? [] : ranges.ranges.flatMap { _ids[$0] }
    _elements.removeSubranges(ranges)
    _ids._removeSubranges(ranges)
    _structureDidChange(removed: removedIDs)
  }
}
