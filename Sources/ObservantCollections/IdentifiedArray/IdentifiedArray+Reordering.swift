extension IdentifiedArray {
  /// Exchanges the elements at two valid indices; swapping an index with itself changes nothing.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public mutating func swapAt(_ i: Int, _ j: Int) {
    _checkPrecondition(
      indices.contains(i) && indices.contains(j), "IdentifiedArray.swapAt(\(i), \(j)): index out of bounds 0..<\(count)"
    )
    _ids.swapAt(i, j)
    guard i != j else { return }
    _elements.swapAt(i, j)
    _structureDidChange()
  }

  /// Sorts the array in place, ordering elements with `areInIncreasingOrder`.
  ///
  /// An array that is already sorted is left untouched (a linear check runs first), so its
  /// ``version`` does not change. If `areInIncreasingOrder` throws during the sort, the array holds
  /// its elements in an unspecified order, with ids consistent.
  ///
  /// - Complexity: O(*n* log *n*) where *n* is the number of elements; O(*n*) if already sorted.
  @inlinable
  public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
    var offset = 1
    while offset < count, try !areInIncreasingOrder(_elements[offset], _elements[offset &- 1]) {
      offset &+= 1
    }
    guard offset < count else { return }
    defer {
      _ids._elements.removeAll(keepingCapacity: true)
      for position in _elements.indices {
        _ids._elements.append(_id(at: position))
      }
      _ids._reindex()
      _structureDidChange()
    }
    try _elements.sort(by: areInIncreasingOrder)
  }

  /// Moves the elements at `offsets` so that they sit together, in their current relative order,
  /// right before the element that was at `destination` (SwiftUI's `onMove` semantics).
  ///
  /// ```swift
  /// // ids [a, b, c, d, e]
  /// rows.move(fromOffsets: [1, 3], toOffset: 5)  // ids [a, c, e, b, d]
  /// ```
  ///
  /// A move that leaves the order as it was changes nothing.
  ///
  /// - Parameters:
  ///   - offsets: Valid indices; repeated offsets count once.
  ///   - destination: An insertion point in the array before the move, `0 ... count`.
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public mutating func move(fromOffsets offsets: some Sequence<Int>, toOffset destination: Int) {
    let ranges = _rangeSet(ofOffsets: offsets, count: count, operation: "IdentifiedArray.move(fromOffsets:toOffset:)")
    _checkPrecondition(
      destination >= 0 && destination <= count,
      "IdentifiedArray.move destination \(destination) is out of bounds 0...\(count)")
    guard _ids._moveSubranges(ranges, to: destination) else { return }
    _elements.moveSubranges(ranges, to: destination)
    _structureDidChange()
  }

  /// Moves the element at `source` so that it ends up at `destination`, shifting the elements in
  /// between by one (UIKit's `moveRowAt:to:` semantics); equal offsets change nothing.
  ///
  /// ```swift
  /// // ids [a, b, c, d]
  /// rows.move(from: 0, to: 2)  // ids [b, c, a, d]
  /// ```
  ///
  /// - Parameters:
  ///   - source: A valid index.
  ///   - destination: The element's index after the move; a valid index.
  /// - Complexity: O(|`destination` - `source`|) expected.
  @inlinable
  public mutating func move(from source: Int, to destination: Int) {
    _checkPrecondition(
      indices.contains(source) && indices.contains(destination),
      "IdentifiedArray.move(from: \(source), to: \(destination)): index out of bounds 0..<\(count)"
    )
    _ids.move(from: source, to: destination)
    guard source != destination else { return }
    _elements._rotate(from: source, to: destination)
    _structureDidChange()
  }

  /// Reverses the order of the elements in place; an array of fewer than two elements is unchanged.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements; no id is rehashed.
  @inlinable
  public mutating func reverse() {
    guard count > 1 else { return }
    _ids.reverse()
    _elements.reverse()
    _structureDidChange()
  }
}

extension IdentifiedArray where Element: Comparable {
  /// Sorts the array in place, in ascending order; see ``sort(by:)``.
  ///
  /// - Complexity: O(*n* log *n*) where *n* is the number of elements; O(*n*) if already sorted.
  @inlinable
  public mutating func sort() {
    sort(by: <)
  }
}
