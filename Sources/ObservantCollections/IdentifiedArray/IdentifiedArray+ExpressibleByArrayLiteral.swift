extension IdentifiedArray: ExpressibleByArrayLiteral where Element: Identifiable, ID == Element.ID {
  /// Creates an array of identifiable elements from an array literal; their ids must be unique.
  ///
  /// ```swift
  /// let todos: IdentifiedArrayOf<Todo> = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]
  /// ```
  ///
  /// A duplicate id in a literal is a programming error: it stops the program with a message
  /// naming the id.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(arrayLiteral elements: Element...) {
    self.init(
      _uniqueElements: elements, readID: _IdentifiableIDReader<Element>().id(at:),
      operation: "IdentifiedArray array literal"
    )
  }
}
