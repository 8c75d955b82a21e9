extension OrderedSet: Encodable where Element: Encodable {
  /// Encodes the elements, in order, into an unkeyed container (the same format as an array).
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements.
  @inlinable
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(contentsOf: _elements)
  }
}

extension OrderedSet: Decodable where Element: Decodable {
  /// Decodes a set from an unkeyed container (the same format as an array).
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the element and its offset if the data holds a
  ///   duplicate, or any error decoding an element throws.
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    self.init()
    if let count = container.count {
      reserveCapacity(count)
    }
    while !container.isAtEnd {
      let offset = container.currentIndex
      let element = try container.decode(Element.self)
      guard append(element).inserted else {
        throw _dataCorruptedError(
          at: offset, in: container,
          "Duplicate element \(String(reflecting: element)) at offset \(offset) of an OrderedSet"
        )
      }
    }
  }
}
