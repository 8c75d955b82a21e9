// How an IdentifiedArray reads ids. The id extractor reads through a pointer, so that checking the
// id of a stored element (which every write through a subscript does) reads just the id, in place,
// instead of copying the whole element into a closure argument. For `Identifiable` elements the
// extractor is specialized down to a load of the `id` field.

extension IdentifiedArray {
  /// The id of the element at `offset`, read in place.
  @inlinable @inline(__always)
  internal func _id(at offset: Int) -> ID {
    _elements.withUnsafeBufferPointer { _readID($0.baseAddress! + offset) }
  }

  /// The id of `element`.
  @inlinable @inline(__always)
  internal func _id(of element: Element) -> ID {
    withUnsafePointer(to: element) { _readID($0) }
  }
}

/// Reads `Identifiable.id`: the id extractor of `IdentifiedArrayOf`'s initializers.
///
/// Why a method of an empty `Sendable` value rather than `{ $0.pointee.id }` or `\.id`: a closure
/// literal would capture `Element`'s metatype, which Swift warns about in a `@Sendable` closure
/// (an `Identifiable` conformance could be actor-isolated), and a key-path literal is applied
/// through the key-path runtime, which copies the element and measured several times slower per
/// read. This method is specialized like direct property access.
@usableFromInline
internal struct _IdentifiableIDReader<Element: Identifiable>: Sendable {
  @inlinable
  internal init() {}

  @inlinable
  internal func id(at element: UnsafePointer<Element>) -> Element.ID {
    element.pointee.id
  }
}

/// Adapts a caller-supplied `(Element) -> ID` closure to the pointer-based extractor.
@usableFromInline
internal struct _ClosureIDReader<ID, Element>: Sendable {
  @usableFromInline
  internal let id: @Sendable (Element) -> ID

  @inlinable
  internal init(_ id: @escaping @Sendable (Element) -> ID) {
    self.id = id
  }

  @inlinable
  internal func id(at element: UnsafePointer<Element>) -> ID {
    id(element.pointee)
  }
}
