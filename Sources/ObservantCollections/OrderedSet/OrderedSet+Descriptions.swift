extension OrderedSet: CustomStringConvertible {
  /// The elements in brackets, formatted like an array's: `[1, 2, 3]`.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements.
  public var description: String {
    _describeElements(_elements)
  }
}

extension OrderedSet: CustomDebugStringConvertible {
  /// The type and its elements: `OrderedSet<Int>([1, 2, 3])`.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements.
  public var debugDescription: String {
    _describeElements(_elements, typeName: "OrderedSet<\(Element.self)>")
  }
}

extension OrderedSet: CustomReflectable {
  /// A mirror that shows the set as a collection of its elements.
  ///
  /// - Complexity: O(1)
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: _elements, displayStyle: .set)
  }
}
