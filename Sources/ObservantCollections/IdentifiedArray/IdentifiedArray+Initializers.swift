extension IdentifiedArray {
  /// Creates an empty array whose elements are identified by `id`.
  ///
  /// ```swift
  /// var users = IdentifiedArray<String, User>(id: \.email)
  /// ```
  ///
  /// - Complexity: O(1)
  @inlinable
  public init(id: @escaping @Sendable (Element) -> ID) {
    self.init(_ids: OrderedSet(), elements: [], readID: _ClosureIDReader(id).id(at:))
  }

  /// Creates an array of elements whose ids must be unique.
  ///
  /// A duplicate id is a programming error: it stops the program with a message naming the id.
  /// When duplicates can occur, use ``init(keepingFirstOf:id:)`` or ``init(_:id:uniquingIDsWith:)``.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(uniqueElements elements: some Sequence<Element>, id: @escaping @Sendable (Element) -> ID) {
    self.init(
      _uniqueElements: elements, readID: _ClosureIDReader(id).id(at:), operation: "IdentifiedArray(uniqueElements:)")
  }

  /// Creates an array of elements that you guarantee to have unique ids, skipping the check.
  ///
  /// Duplicate ids leave the array broken; `_checkInvariants()` reports them. Use this
  /// initializer only for elements that are unique by construction.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(uncheckedUniqueElements elements: some Sequence<Element>, id: @escaping @Sendable (Element) -> ID) {
    self.init(_uncheckedUniqueElements: elements, readID: _ClosureIDReader(id).id(at:))
  }

  /// Creates an array of elements, merging elements that share an id with `combine`.
  ///
  /// The merged element takes the position of the first element with that id:
  ///
  /// ```swift
  /// let scores = IdentifiedArray([Score(id: "a", points: 1), Score(id: "b", points: 2),
  ///                               Score(id: "a", points: 3)], id: _IdentifiableIDReader<Element>().id) { old, new in
  ///   Score(id: old.id, points: old.points + new.points)
  /// }
  /// // [Score(id: "a", points: 4), Score(id: "b", points: 2)]
  /// ```
  ///
  /// - Parameters:
  ///   - elements: The elements, in order.
  ///   - id: Extracts an element's id.
  ///   - combine: Called with the element kept so far and the next duplicate; returns the
  ///     element to keep, which must have the same id (a different id stops the program).
  /// - Complexity: O(*n*) expected, where *n* is the number of elements, plus the cost of `combine`.
  @inlinable
  public init(
    _ elements: some Sequence<Element>,
    id: @escaping @Sendable (Element) -> ID,
    uniquingIDsWith combine: (Element, Element) throws -> Element
  ) rethrows {
    try self.init(_merging: elements, readID: _ClosureIDReader(id).id(at:), uniquingIDsWith: combine)
  }

  /// Creates an array of elements, keeping the first element with each id and dropping later ones.
  ///
  /// Use it for data that may contain duplicates, such as a server response:
  ///
  /// ```swift
  /// let rows = IdentifiedArray(keepingFirstOf: response.rows, id: _IdentifiableIDReader<Element>().id)
  /// ```
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(keepingFirstOf elements: some Sequence<Element>, id: @escaping @Sendable (Element) -> ID) {
    self.init(_keepingFirstOf: elements, readID: _ClosureIDReader(id).id(at:))
  }

  /// Builds an array in one pass, calling `resolveDuplicate` with the element kept so far, the
  /// duplicate, and their id whenever an id repeats. One loop serves every checking initializer.
  @inlinable
  internal init(
    _building elements: some Sequence<Element>,
    readID: @escaping @Sendable (UnsafePointer<Element>) -> ID,
    resolveDuplicate: (_ existing: inout Element, _ duplicate: Element, _ id: ID) throws -> Void
  ) rethrows {
    var ids = OrderedSet<ID>()
    var stored = ContiguousArray<Element>()
    let expectedCount = elements.underestimatedCount
    ids.reserveCapacity(expectedCount)
    stored.reserveCapacity(expectedCount)
    for element in elements {
      let elementID = withUnsafePointer(to: element) { readID($0) }
      let (inserted, offset) = ids.append(elementID)
      if inserted {
        stored.append(element)
      } else {
        try resolveDuplicate(&stored[offset], element, elementID)
      }
    }
    self.init(_ids: ids, elements: stored, readID: readID)
  }

  /// Builds an array of elements whose ids must be unique; a duplicate stops the program with a
  /// message naming the id and `operation`.
  @inlinable
  internal init(
    _uniqueElements elements: some Sequence<Element>,
    readID: @escaping @Sendable (UnsafePointer<Element>) -> ID,
    operation: StaticString
  ) {
    self.init(_building: elements, readID: readID) { _, _, duplicateID in
      Self._duplicateIDFailure(duplicateID, in: operation)
    }
  }

  /// Builds an array, keeping the first element with each id.
  @inlinable
  internal init(
    _keepingFirstOf elements: some Sequence<Element>, readID: @escaping @Sendable (UnsafePointer<Element>) -> ID
  ) {
    self.init(_building: elements, readID: readID) { _, _, _ in }
  }

  /// Builds an array, merging elements that share an id with `combine`.
  @inlinable
  internal init(
    _merging elements: some Sequence<Element>,
    readID: @escaping @Sendable (UnsafePointer<Element>) -> ID,
    uniquingIDsWith combine: (Element, Element) throws -> Element
  ) rethrows {
    try self.init(_building: elements, readID: readID) { existing, duplicate, duplicateID in
      let merged = try combine(existing, duplicate)
      let mergedID = withUnsafePointer(to: merged) { readID($0) }
      if mergedID != duplicateID { Self._mergedIDFailure(from: duplicateID, to: mergedID) }
      existing = merged
    }
  }

  /// Creates an array of elements whose ids are unique, skipping the check.
  @inlinable
  internal init(
    _uncheckedUniqueElements elements: some Sequence<Element>,
    readID: @escaping @Sendable (UnsafePointer<Element>) -> ID
  ) {
    let elements = ContiguousArray(elements)
    let ids = elements.withUnsafeBufferPointer { buffer in
      ContiguousArray(buffer.indices.lazy.map { readID(buffer.baseAddress! + $0) })
    }
    self.init(_ids: OrderedSet(_uncheckedUniqueElements: ids), elements: elements, readID: readID)
  }
}

extension IdentifiedArray where Element: Identifiable, ID == Element.ID {
  /// Creates an empty array of identifiable elements.
  ///
  /// - Complexity: O(1)
  @inlinable
  public init() {
    self.init(_ids: OrderedSet(), elements: [], readID: _IdentifiableIDReader<Element>().id(at:))
  }

  /// Creates an array of identifiable elements whose ids must be unique.
  ///
  /// A duplicate id is a programming error: it stops the program with a message naming the id.
  /// When duplicates can occur, use ``init(keepingFirstOf:)`` or ``init(_:uniquingIDsWith:)``.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(uniqueElements elements: some Sequence<Element>) {
    self.init(
      _uniqueElements: elements, readID: _IdentifiableIDReader<Element>().id(at:),
      operation: "IdentifiedArray(uniqueElements:)"
    )
  }

  /// Creates an array of identifiable elements that you guarantee to be unique, skipping the check.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(uncheckedUniqueElements elements: some Sequence<Element>) {
    self.init(_uncheckedUniqueElements: elements, readID: _IdentifiableIDReader<Element>().id(at:))
  }

  /// Creates an array of identifiable elements, merging elements that share an id with `combine`;
  /// see ``init(_:id:uniquingIDsWith:)``.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements, plus the cost of `combine`.
  @inlinable
  public init(
    _ elements: some Sequence<Element>,
    uniquingIDsWith combine: (Element, Element) throws -> Element
  ) rethrows {
    try self.init(_merging: elements, readID: _IdentifiableIDReader<Element>().id(at:), uniquingIDsWith: combine)
  }

  /// Creates an array of identifiable elements, keeping the first element with each id.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  @inlinable
  public init(keepingFirstOf elements: some Sequence<Element>) {
    self.init(_keepingFirstOf: elements, readID: _IdentifiableIDReader<Element>().id(at:))
  }
}
