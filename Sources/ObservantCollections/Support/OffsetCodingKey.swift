/// The coding key of the element at an offset of an unkeyed container, so that decoding errors
/// point at the offending element (`codingPath` ends with its offset).
@usableFromInline
internal struct _OffsetCodingKey: CodingKey {
  @usableFromInline internal let intValue: Int?

  @inlinable
  internal init(offset: Int) {
    intValue = offset
  }

  @inlinable
  internal init?(intValue: Int) {
    self.intValue = intValue
  }

  @inlinable
  internal init?(stringValue: String) {
    guard let offset = Int(stringValue) else { return nil }
    intValue = offset
  }

  @inlinable
  internal var stringValue: String {
    "Index \(intValue ?? 0)"
  }
}

/// A `dataCorrupted` error for the element at `offset` of the unkeyed `container`.
@inlinable
internal func _dataCorruptedError(
  at offset: Int, in container: some UnkeyedDecodingContainer, _ description: String
) -> DecodingError {
  DecodingError.dataCorrupted(
    DecodingError.Context(
      codingPath: container.codingPath + [_OffsetCodingKey(offset: offset)],
      debugDescription: description
    )
  )
}
