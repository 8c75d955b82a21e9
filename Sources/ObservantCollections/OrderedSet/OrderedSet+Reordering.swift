extension OrderedSet {
  /// Exchanges the elements at two valid indices.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public mutating func swapAt(_ i: Int, _ j: Int) {
    _checkPrecondition(
      indices.contains(i) && indices.contains(j), "OrderedSet.swapAt(\(i), \(j)): index out of bounds 0..<\(count)")
    guard i != j else { return }
    if _index.isEnabled {
      let bucketOfI = _index.bucket(ofOffset: i, in: _elements)
      let bucketOfJ = _index.bucket(ofOffset: j, in: _elements)
      _index.setOffset(j, inBucket: bucketOfI)
      _index.setOffset(i, inBucket: bucketOfJ)
    }
    _elements.swapAt(i, j)
  }

  /// Sorts the set in place, ordering elements with `areInIncreasingOrder`.
  ///
  /// If `areInIncreasingOrder` throws, the set holds its elements in an unspecified order.
  ///
  /// - Complexity: O(*n* log *n*) where *n* is the number of elements.
  @inlinable
  public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
    defer { _reindex() }
    try _elements.sort(by: areInIncreasingOrder)
  }

  /// Moves the elements at `offsets` so that they sit together, in their current relative order,
  /// right before the element that was at `destination` (SwiftUI's `onMove` semantics).
  ///
  /// ```swift
  /// var set: OrderedSet = ["a", "b", "c", "d", "e"]
  /// set.move(fromOffsets: [1, 3], toOffset: 5)  // ["a", "c", "e", "b", "d"]
  /// ```
  ///
  /// - Parameters:
  ///   - offsets: Valid indices; repeated offsets count once.
  ///   - destination: An insertion point in the set before the move, `0 ... count`.
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public mutating func move(fromOffsets offsets: some Sequence<Int>, toOffset destination: Int) {
    let ranges = _rangeSet(ofOffsets: offsets, count: count, operation: "OrderedSet.move(fromOffsets:toOffset:)")
    _checkPrecondition(
      destination >= 0 && destination <= count,
      "OrderedSet.move destination \(destination) is out of bounds 0...\(count)")
    _moveSubranges(ranges, to: destination)
  }

  /// Moves the element at `source` so that it ends up at `destination`, shifting the elements
  /// in between by one (UIKit's `moveRowAt:to:` semantics).
  ///
  /// ```swift
  /// var set: OrderedSet = ["a", "b", "c", "d"]
  /// set.move(from: 0, to: 2)  // ["b", "c", "a", "d"]
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
      "OrderedSet.move(from: \(source), to: \(destination)): index out of bounds 0..<\(count)")
    guard source != destination else { return }
    let movedBucket = _index.isEnabled ? _index.bucket(ofOffset: source, in: _elements) : 0
    _elements._rotate(from: source, to: destination)
    if _index.isEnabled {
      if source < destination {
        _index.shiftOffsets(source &+ 1..<destination &+ 1, by: -1, in: _elements)
      } else {
        _index.shiftOffsets(destination..<source, by: 1, in: _elements)
      }
      _index.setOffset(destination, inBucket: movedBucket)
    }
  }

  /// Reverses the order of the elements in place.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements; no element is rehashed.
  @inlinable
  public mutating func reverse() {
    guard count > 1 else { return }
    _elements.reverse()
    let last = count &- 1
    _index.remapOffsets { last &- $0 }
  }

  /// Moves the elements in `ranges` before `destination` and re-indexes the set.
  /// - Returns: Whether the order changed.
  @inlinable
  @discardableResult
  internal mutating func _moveSubranges(_ ranges: RangeSet<Int>, to destination: Int) -> Bool {
    guard _moveChangesOrder(ranges, to: destination) else { return false }
    _elements.moveSubranges(ranges, to: destination)
    _reindex()
    return true
  }
}

extension OrderedSet where Element: Comparable {
  /// Sorts the set in place, in ascending order.
  ///
  /// - Complexity: O(*n* log *n*) where *n* is the number of elements.
  @inlinable
  public mutating func sort() {
    sort(by: <)
  }
}

// MARK: - Shared by OrderedSet and IdentifiedArray

/// The offsets as a `RangeSet`, after checking that each one is in `0 ..< count`.
@inlinable
internal func _rangeSet(ofOffsets offsets: some Sequence<Int>, count: Int, operation: StaticString) -> RangeSet<Int> {
  var ranges = RangeSet<Int>()
  for offset in offsets {
    _checkPrecondition(offset >= 0 && offset < count, "\(operation): offset \(offset) is out of bounds 0..<\(count)")
    ranges.insert(contentsOf: offset..<offset &+ 1)
  }
  return ranges
}

/// Whether moving the elements in `ranges` before `destination` changes the order: it does not
/// when nothing moves, or when one contiguous run is "moved" to where it already is.
@inlinable
internal func _moveChangesOrder(_ ranges: RangeSet<Int>, to destination: Int) -> Bool {
  guard let first = ranges.ranges.first else { return false }
  if ranges.ranges.count == 1 {
    return !(first.lowerBound...first.upperBound).contains(destination)
  }
  return true
}

extension ContiguousArray {
  /// Moves the element at `source` to `destination`, shifting the elements in between by one.
  @inlinable
  internal mutating func _rotate(from source: Int, to destination: Int) {
    if source < destination {
      for offset in source..<destination { swapAt(offset, offset &+ 1) }
    } else {
      for offset in (destination..<source).reversed() { swapAt(offset, offset &+ 1) }
    }
  }
}
