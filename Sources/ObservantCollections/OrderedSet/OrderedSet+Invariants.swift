extension OrderedSet {
  /// Stops the program if the set's internal state is inconsistent: elements not unique, or the
  /// hash index disagreeing with the element array. Tests call it after every mutation.
  ///
  /// - Complexity: O(*n*) expected where *n* is the number of elements (O(*n*²) below the
  ///   linear-scan limit of 16, which is tiny).
  public func _checkInvariants() {
    guard _index.isEnabled else {
      _checkPrecondition(count <= _HashIndex.linearScanLimit, "OrderedSet of \(count) elements has no hash index")
      for offset in indices {
        _checkPrecondition(
          _elements[..<offset].firstIndex(of: _elements[offset]) == nil,
          "OrderedSet holds a duplicate: \(String(reflecting: _elements[offset])) at offset \(offset)"
        )
      }
      return
    }
    let bucketCount = _index.bucketCount
    _checkPrecondition(
      bucketCount & (bucketCount - 1) == 0, "OrderedSet bucket count \(bucketCount) is not a power of two")
    _checkPrecondition(count <= _index.capacity, "OrderedSet of \(count) elements overfills \(bucketCount) buckets")
    let occupied = _index._buckets.reduce(0) { $1 == 0 ? $0 : $0 + 1 }
    _checkPrecondition(occupied == count, "OrderedSet index has \(occupied) entries for \(count) elements")
    for offset in indices {
      let element = _elements[offset]
      let probe = _index.probe(for: element, in: _elements)
      _checkPrecondition(
        probe.offset == offset,
        "OrderedSet index maps \(String(reflecting: element)) to \(String(describing: probe.offset)), not \(offset)"
      )
    }
  }
}
