extension IdentifiedArray {
  /// Appends `element` unless an element with its id is present; then nothing changes.
  ///
  /// ```swift
  /// todos.append(Todo(id: 3, title: "Tea"))   // (inserted: true, index: 2)
  /// todos.append(Todo(id: 1, title: "Other")) // (inserted: false, index: 0): unchanged
  /// ```
  ///
  /// - Returns: Whether the element was inserted, and the index of the element with its id.
  /// - Complexity: O(1) expected, amortized.
  @inlinable
  @discardableResult
  public mutating func append(_ element: Element) -> (inserted: Bool, index: Int) {
    let elementID = _id(of: element)
    let probe = _ids._find(elementID)
    if let offset = probe.offset {
      return (false, offset)
    }
    let offset = count
    _insertNew(element, id: elementID, at: offset, probe: probe)
    return (true, offset)
  }

  /// Appends each element of `newElements` whose id is not present yet, in order; an element
  /// whose id is present (or repeats within `newElements`) is skipped.
  ///
  /// - Complexity: O(*m*) expected, amortized, where *m* is the length of `newElements`.
  @inlinable
  public mutating func append(contentsOf newElements: some Sequence<Element>) {
    let oldCount = count
    for element in newElements {
      let elementID = _id(of: element)
      let probe = _ids._find(elementID)
      if probe.offset == nil {
        _insertNewWithoutRecording(element, id: elementID, at: count, probe: probe)
      }
    }
    if count != oldCount { _structureDidChange() }
  }

  /// Inserts `element` at `index` unless an element with its id is present; then nothing changes
  /// (the present element stays where it is).
  ///
  /// - Parameters:
  ///   - element: The element to insert.
  ///   - index: Where to insert; `0 ... count`.
  /// - Returns: Whether the element was inserted, and the index of the element with its id.
  /// - Complexity: O(*n*) where *n* is the number of elements (elements after `index` shift).
  @inlinable
  @discardableResult
  public mutating func insert(_ element: Element, at index: Int) -> (inserted: Bool, index: Int) {
    _checkPrecondition(
      index >= 0 && index <= count, "IdentifiedArray insertion index \(index) is out of bounds 0...\(count)")
    let elementID = _id(of: element)
    let probe = _ids._find(elementID)
    if let offset = probe.offset {
      return (false, offset)
    }
    _insertNew(element, id: elementID, at: index, probe: probe)
    return (true, index)
  }

  /// Replaces the element with the same id as `element`, or appends `element` if there is none.
  ///
  /// Replacing keeps the position. It is a structural change unless `element` has the same
  /// ``InstanceIdentity`` as the element it replaces (see ``structuralVersion``).
  ///
  /// - Returns: The replaced element, or `nil` if `element` was appended.
  /// - Complexity: O(1) expected, amortized.
  @inlinable
  @discardableResult
  public mutating func updateOrAppend(_ element: Element) -> Element? {
    let elementID = _id(of: element)
    let probe = _ids._find(elementID)
    guard let offset = probe.offset else {
      _insertNew(element, id: elementID, at: count, probe: probe)
      return nil
    }
    var replaced = element
    swap(&replaced, &_elements[offset])
    _elementWasAssigned(at: offset, replacing: replaced)
    return replaced
  }

  /// Inserts an element whose id the failed look-up `probe` proved absent, and records the change.
  @inlinable
  internal mutating func _insertNew(_ element: Element, id: ID, at offset: Int, probe: _HashIndex.Probe) {
    _insertNewWithoutRecording(element, id: id, at: offset, probe: probe)
    _structureDidChange()
  }

  /// Inserts an element whose id the failed look-up `probe` proved absent; the caller records
  /// the change.
  @inlinable
  internal mutating func _insertNewWithoutRecording(_ element: Element, id: ID, at offset: Int, probe: _HashIndex.Probe)
  {
    _ids._insertNew(id, at: offset, probe: probe)
    _elements.insert(element, at: offset)
    Self._instanceDidArrive(element)
  }
}
