extension OrderedSet: RandomAccessCollection {
  /// The type of a position in the set: the offset from the start.
  public typealias Index = Int

  /// The indices that are valid for subscripting the set, in ascending order.
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

  /// The indices that are valid for subscripting the set.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var indices: Range<Int> { 0..<_elements.count }

  /// The number of elements in the set.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var count: Int { _elements.count }

  /// Whether the set is empty.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var isEmpty: Bool { _elements.isEmpty }

  /// The element at `position`, which must be a valid index: any other stops the program
  /// with a message naming it and the bounds, in every build configuration.
  ///
  /// - Complexity: O(1)
  @inlinable
  public subscript(position: Int) -> Element {
    _checkPrecondition(
      UInt(bitPattern: position) < UInt(bitPattern: _elements.count),
      Self._positionMessage(position, count: _elements.count))
    return _elements[position]
  }

  /// The message for a position outside `0..<count` given to `subscript(position:)`.
  @usableFromInline
  internal static func _positionMessage(_ position: Int, count: Int) -> String {
    "OrderedSet index \(position) is out of bounds 0..<\(count)"
  }

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

  /// Calls `body` with the set's contiguous storage; returns its result.
  ///
  /// - Complexity: O(1), plus the cost of `body`.
  @inlinable
  public func withContiguousStorageIfAvailable<Result>(
    _ body: (UnsafeBufferPointer<Element>) throws -> Result
  ) rethrows -> Result? {
    try _elements.withUnsafeBufferPointer(body)
  }
}

// MARK: - Membership

extension OrderedSet {
  /// Whether `element` is a member of the set.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public func contains(_ element: Element) -> Bool {
    _find(element).offset != nil
  }

  /// The position of `element` in the set, or `nil` if it is not a member.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public func firstIndex(of element: Element) -> Int? {
    _find(element).offset
  }

  /// The position of `element` in the set, or `nil` if it is not a member; members are unique, so
  /// this is ``firstIndex(of:)``.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public func lastIndex(of element: Element) -> Int? {
    _find(element).offset
  }

  // Generic code reaches the hashed look-ups through these `Sequence`/`Collection` hooks.

  /// Hook answering `contains(_:)` in generic code with a hashed look-up.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public func _customContainsEquatableElement(_ element: Element) -> Bool? {
    contains(element)
  }

  /// Hook answering `firstIndex(of:)` in generic code with a hashed look-up.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public func _customIndexOfEquatableElement(_ element: Element) -> Int?? {
    .some(firstIndex(of: element))
  }

  /// Hook answering `lastIndex(of:)` in generic code with a hashed look-up.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public func _customLastIndexOfEquatableElement(_ element: Element) -> Int?? {
    .some(firstIndex(of: element))
  }
}
