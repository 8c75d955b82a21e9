extension IdentifiedArray {
  /// Stops the program if the array's internal state is inconsistent: ids not unique, or ids and
  /// elements disagreeing in count or order. Tests call it after every mutation.
  ///
  /// - Complexity: O(*n*) expected, where *n* is the number of elements.
  public func _checkInvariants() {
    _ids._checkInvariants()
    _checkPrecondition(
      _ids.count == _elements.count,
      "IdentifiedArray has \(_ids.count) ids for \(_elements.count) elements"
    )
    for offset in _elements.indices {
      let elementID = _id(at: offset)
      _checkPrecondition(
        elementID == _ids[offset],
        "IdentifiedArray element at offset \(offset) has id \(String(reflecting: elementID)), but the index says \(String(reflecting: _ids[offset]))"
      )
    }
  }
}
