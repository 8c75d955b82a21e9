extension IdentifiedArray: CustomStringConvertible {
  /// The elements in brackets, formatted like an array's: `[Todo(id: 1, title: "Milk")]`.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements.
  public var description: String {
    _describeElements(_elements)
  }
}

extension IdentifiedArray: CustomDebugStringConvertible {
  /// The type and its elements: `IdentifiedArray<Int, Todo>([Todo(id: 1, title: "Milk")])`.
  ///
  /// - Complexity: O(*n*) where *n* is the number of elements.
  public var debugDescription: String {
    _describeElements(_elements, typeName: "IdentifiedArray<\(ID.self), \(Element.self)>")
  }
}

extension IdentifiedArray: CustomReflectable {
  /// A mirror that shows the array as a collection of its elements (debuggers, `dump`).
  ///
  /// - Complexity: O(1)
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: _elements, displayStyle: .collection)
  }
}
