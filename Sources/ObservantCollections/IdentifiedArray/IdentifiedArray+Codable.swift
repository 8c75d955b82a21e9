extension IdentifiedArray: Encodable where Element: Encodable {
  /// Encodes the elements, in order, into an unkeyed container (the same format as an array).
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements.
  @inlinable
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(contentsOf: _elements)
  }
}

extension IdentifiedArray: Decodable where Element: Decodable & Identifiable, ID == Element.ID {
  /// Decodes an array of identifiable elements from an unkeyed container (the same format as an
  /// array).
  ///
  /// Never stops the program: duplicate ids are reported as an error.
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the id and its offset if two elements share an
  ///   id, or any error decoding an element throws.
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
      let elementID = element.id
      let probe = _ids._find(elementID)
      if let existing = probe.offset {
        throw _dataCorruptedError(
          at: offset, in: container,
          "Duplicate id \(String(reflecting: elementID)) at offset \(offset) of an IdentifiedArray (first at offset \(existing))"
        )
      }
      _insertNewWithoutRecording(element, id: elementID, at: count, probe: probe)
    }
    if !isEmpty { _structureDidChange() }
  }
}
