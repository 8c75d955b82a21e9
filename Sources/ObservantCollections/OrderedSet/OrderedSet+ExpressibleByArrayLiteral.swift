extension OrderedSet: ExpressibleByArrayLiteral {
  /// Creates a set from an array literal, whose elements must be unique.
  ///
  /// ```swift
  /// let primes: OrderedSet = [2, 3, 5, 7]
  /// ```
  ///
  /// A duplicate in a literal is a programming error: it stops the program with a message naming
  /// the duplicate. Use ``init(_:)`` to drop duplicates instead.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(arrayLiteral elements: Element...) {
    self.init()
    reserveCapacity(elements.count)
    for element in elements where !append(element).inserted {
      _orderedSetDuplicateLiteralElementFailure(element)
    }
  }
}

/// The message for a duplicate element in an `OrderedSet` array literal.
internal func _orderedSetDuplicateLiteralElementMessage(_ element: some Hashable) -> String {
  "Duplicate element \(String(reflecting: element)) in an OrderedSet array literal"
}

/// Stops the program for a duplicate literal element; out of line so callers stay small.
@usableFromInline
@inline(never)
internal func _orderedSetDuplicateLiteralElementFailure(_ element: some Hashable) -> Never {
  fatalError(_orderedSetDuplicateLiteralElementMessage(element))
}
