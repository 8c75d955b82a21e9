/// An ordered collection of unique elements with O(1) expected membership tests.
///
/// `OrderedSet` keeps its elements in an array, in the order you put them there, and indexes them
/// with a hash table, so it is an `Array` that refuses duplicates and answers ``contains(_:)`` and
/// ``firstIndex(of:)`` without a linear search:
///
/// ```swift
/// var tags: OrderedSet = ["swift", "ui"]
/// tags.append("swift")          // (inserted: false, index: 0): already a member
/// tags.append("linux")          // (inserted: true, index: 2)
/// tags.firstIndex(of: "linux")  // 2, found by hashing
/// ```
///
/// It is a `RandomAccessCollection` with `Int` indices starting at zero. It is deliberately not a
/// `MutableCollection` or `RangeReplaceableCollection`: their generic algorithms could store a
/// duplicate. It offers the safe subset directly instead (``append(_:)``, ``insert(_:at:)``,
/// ``remove(at:)``, ``swapAt(_:_:)``, ``sort(by:)``, ``move(fromOffsets:toOffset:)`` and so on).
///
/// Sets of up to 16 elements have no hash table: scanning a few elements is faster than hashing
/// one. Larger sets keep a table of offsets (8 bytes per bucket, at most 3/4 full) next to the
/// array; the elements themselves are stored once.
public struct OrderedSet<Element: Hashable> {
  /// The members, in order.
  @usableFromInline
  internal var _elements: ContiguousArray<Element>

  /// Maps each member to its offset in `_elements`.
  @usableFromInline
  internal var _index: _HashIndex

  /// Creates a set of `elements`, which must be unique (checked by ``_checkInvariants()`` only).
  @inlinable
  internal init(_uncheckedUniqueElements elements: ContiguousArray<Element>) {
    _elements = elements
    _index = _HashIndex(indexing: elements)
  }

  /// Creates an empty set.
  ///
  /// - Complexity: O(1)
  @inlinable
  public init() {
    _elements = []
    _index = _HashIndex()
  }

  /// The members of the set, in order, as an array.
  ///
  /// - Complexity: O(1): the array shares the set's storage.
  @inlinable
  public var elements: [Element] {
    Array(_elements)
  }

  /// Reserves room for `minimumCapacity` elements, so that adding that many does not reallocate.
  ///
  /// - Complexity: O(*n*) when storage has to grow, where *n* is the number of elements.
  @inlinable
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    _elements.reserveCapacity(minimumCapacity)
    if minimumCapacity > _HashIndex.linearScanLimit, minimumCapacity > _index.capacity {
      _index = _HashIndex(indexing: _elements, minimumCapacity: minimumCapacity)
    }
  }
}

// Swift checks a `Sendable` conformance only in the file that declares the type, so it lives here.
/// A set is sendable when its elements are: it is a value type whose storage is copied on write.
extension OrderedSet: Sendable where Element: Sendable {}

// MARK: - Internal primitives

extension OrderedSet {
  /// Looks `element` up: its offset if it is a member, else where the index would record it.
  @inlinable
  internal func _find(_ element: Element) -> _HashIndex.Probe {
    if _index.isEnabled {
      return _index.probe(for: element, in: _elements)
    }
    return _HashIndex.Probe(offset: _elements.firstIndex(of: element), bucket: 0, fragment: 0)
  }

  /// Inserts `element`, which the failed look-up `probe` proved absent, at `offset`.
  @inlinable
  internal mutating func _insertNew(_ element: Element, at offset: Int, probe: _HashIndex.Probe) {
    _elements.insert(element, at: offset)
    guard _index.isEnabled else {
      if _elements.count > _HashIndex.linearScanLimit {
        _index = _HashIndex(indexing: _elements)
      }
      return
    }
    _index.shiftOffsets(offset..<_elements.count &- 1, by: 1, in: _elements)
    _index.insert(offset: offset, probe: probe, count: _elements.count)
  }

  /// Removes and returns the member at `offset`; `bucket` is its bucket if already known.
  @inlinable
  internal mutating func _removeExisting(at offset: Int, bucket: Int?) -> Element {
    if _index.isEnabled {
      _index.delete(bucket: bucket ?? _index.bucket(ofOffset: offset, in: _elements))
    }
    let removed = _elements.remove(at: offset)
    _index.shiftOffsets(offset &+ 1..<_elements.count &+ 1, by: -1, in: _elements)
    return removed
  }

  /// Re-indexes every member after `_elements` was reordered or compacted wholesale,
  /// keeping the table's current capacity.
  @inlinable
  internal mutating func _reindex() {
    _index = _HashIndex(indexing: _elements, minimumCapacity: _index.isEnabled ? _index.capacity : 0)
  }

  /// An identifier of the element storage: equal for sets that share it (used by the `==` fast
  /// path and by tests that check mutations happen in place).
  @inlinable
  internal var _storageIdentity: UnsafeRawPointer? {
    _elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }
}
