extension IdentifiedArray: RandomAccessCollection {
  /// The type of a position in the array: the offset from the start.
  public typealias Index = Int

  /// The indices that are valid for subscripting the array, in ascending order.
  public typealias Indices = Range<Int>

  /// The position of the first element: always zero.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var startIndex: Int { 0 }

  /// The position one past the last element: the number of elements.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var endIndex: Int { _elements.count }

  /// The indices that are valid for subscripting the array.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var indices: Range<Int> { 0..<_elements.count }

  /// The number of elements.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var count: Int { _elements.count }

  /// Whether the array is empty.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var isEmpty: Bool { _elements.isEmpty }

  /// The position after `index`.
  ///
  /// - Complexity: O(1)
  @inlinable
  public func index(after index: Int) -> Int { index + 1 }

  /// The position before `index`.
  ///
  /// - Complexity: O(1)
  @inlinable
  public func index(before index: Int) -> Int { index - 1 }

  /// Calls `body` with the array's contiguous element storage; returns its result.
  ///
  /// - Complexity: O(1), plus the cost of `body`.
  @inlinable
  public func withContiguousStorageIfAvailable<Result>(
    _ body: (UnsafeBufferPointer<Element>) throws -> Result
  ) rethrows -> Result? {
    try _elements.withUnsafeBufferPointer(body)
  }
}
