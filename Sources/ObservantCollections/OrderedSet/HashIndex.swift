/// The hash table behind ``OrderedSet``: it maps an element's hash to the element's offset in the
/// set's array, so membership tests and index look-ups are O(1) expected.
///
/// Design choices, each made to keep ``OrderedSet`` cheap to reorder and small:
/// - Open addressing with linear probing in one flat buffer of 64-bit entries. The elements live
///   only in the set's array; the table stores offsets, so an element is never stored twice.
/// - Each entry packs 32 bits of the element's hash next to its offset. A probe compares hash bits
///   before it touches an element (fewer `==` calls and cache misses), and growing, deleting or
///   renumbering never rehashes an element.
/// - Deletion shifts the following cluster back instead of leaving tombstones, so the table never
///   needs periodic cleaning.
/// - Sets with at most ``linearScanLimit`` elements have no table at all: scanning a few elements
///   is faster than hashing one, and costs no memory.
@usableFromInline
internal struct _HashIndex: Sendable {
  /// The buckets. `0` marks an empty bucket; any other entry is `fragment << 32 | (offset + 1)`,
  /// where `fragment` is 32 bits of the element's hash (see `_fragment(of:)`). The bucket count is zero (no
  /// table) or a power of two between ``minimumBucketCount`` and ``maximumBucketCount``.
  @usableFromInline
  internal var _buckets: ContiguousArray<UInt64>

  /// Creates a disabled index: the set is searched by linear scan.
  @inlinable
  internal init() {
    _buckets = []
  }

  /// Creates an index of `elements`, which must be unique, sized to hold at least
  /// `minimumCapacity` elements before it grows; disabled if both fit within ``linearScanLimit``.
  @inlinable
  internal init<Element: Hashable>(indexing elements: ContiguousArray<Element>, minimumCapacity: Int = 0) {
    let capacity = Swift.max(elements.count, minimumCapacity)
    guard capacity > Self.linearScanLimit else {
      _buckets = []
      return
    }
    _buckets = ContiguousArray(repeating: 0, count: Self.bucketCount(forCapacity: capacity))
    for offset in elements.indices {
      _insertEntry(Self._entry(offset: offset, fragment: Self._fragment(of: elements[offset])))
    }
  }
}

// MARK: - Geometry

extension _HashIndex {
  /// Sets with at most this many elements may go without a table and be searched linearly.
  @inlinable
  internal static var linearScanLimit: Int { 16 }

  /// The smallest table: room for more than ``linearScanLimit`` elements at the maximum load.
  @inlinable
  internal static var minimumBucketCount: Int { 32 }

  /// The largest table: a bucket is chosen from the 32 stored hash bits.
  @inlinable
  internal static var maximumBucketCount: Int { 1 << 32 }

  /// Whether a table exists; when it does not, the set is searched linearly.
  @inlinable
  internal var isEnabled: Bool { !_buckets.isEmpty }

  /// The number of buckets (zero when disabled).
  @inlinable
  internal var bucketCount: Int { _buckets.count }

  /// How many elements the table holds before it must grow (a maximum load factor of 3/4).
  @inlinable
  internal var capacity: Int { Self.capacity(forBucketCount: _buckets.count) }

  @inlinable
  internal static func capacity(forBucketCount bucketCount: Int) -> Int {
    bucketCount - bucketCount / 4
  }

  /// The smallest power-of-two bucket count whose capacity is at least `capacity`.
  @inlinable
  internal static func bucketCount(forCapacity capacity: Int) -> Int {
    var bucketCount = minimumBucketCount
    while Self.capacity(forBucketCount: bucketCount) < capacity {
      _checkPrecondition(bucketCount < maximumBucketCount, "OrderedSet cannot hold \(capacity) elements")
      bucketCount &<<= 1
    }
    return bucketCount
  }
}

// MARK: - Entries

extension _HashIndex {
  @inlinable @inline(__always)
  internal static func _entry(offset: Int, fragment: UInt32) -> UInt64 {
    UInt64(fragment) &<< 32 | UInt64(truncatingIfNeeded: offset &+ 1)
  }

  @inlinable @inline(__always)
  internal static func _offset(of entry: UInt64) -> Int {
    Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) &- 1
  }

  @inlinable @inline(__always)
  internal static func _fragment(of entry: UInt64) -> UInt32 {
    UInt32(truncatingIfNeeded: entry &>> 32)
  }

  /// The hash bits an entry keeps for `element`.
  ///
  /// `Int` elements (the usual ids) are mixed here, with a finalizer of a few multiplications and
  /// shifts, instead of by `Hasher` (SipHash: about 90 instructions a look-up); other types use
  /// their `hashValue`. In specialized code the test folds away.
  @inlinable @inline(__always)
  internal static func _fragment<Element: Hashable>(of element: Element) -> UInt32 {
    if Element.self == Int.self { return _mixedFragment(UInt64(UInt(bitPattern: element as! Int))) }
    return UInt32(truncatingIfNeeded: element.hashValue)
  }

  /// 32 well-mixed bits of `value`: MurmurHash3's 64-bit finalizer (a bijection in which every
  /// input bit affects every output bit) of `value` combined with a seed that differs from process
  /// to process, as `Hasher`'s does (the address of this type's metadata, placed by address-space
  /// layout randomization), so that colliding ids cannot be chosen in advance.
  @inlinable @inline(__always)
  internal static func _mixedFragment(_ value: UInt64) -> UInt32 {
    var mixed = value ^ UInt64(UInt(bitPattern: ObjectIdentifier(_HashIndex.self)))
    mixed ^= mixed &>> 33
    mixed &*= 0xff51_afd7_ed55_8ccd
    mixed ^= mixed &>> 33
    mixed &*= 0xc4ce_b9fe_1a85_ec53
    mixed ^= mixed &>> 33
    return UInt32(truncatingIfNeeded: mixed)
  }

  /// The bucket where probing for `fragment` starts.
  @inlinable @inline(__always)
  internal func _idealBucket(for fragment: UInt32) -> Int {
    Int(fragment) & (_buckets.count &- 1)
  }
}

// MARK: - Lookup

extension _HashIndex {
  /// The outcome of looking an element up.
  @usableFromInline
  internal struct Probe {
    /// The element's offset in the set, or `nil` if the set does not contain it.
    @usableFromInline internal var offset: Int?
    /// The element's bucket if found, else the empty bucket where it would be stored
    /// (meaningless when the index is disabled).
    @usableFromInline internal var bucket: Int
    /// The element's hash bits (meaningless when the index is disabled).
    @usableFromInline internal var fragment: UInt32

    @inlinable
    internal init(offset: Int?, bucket: Int, fragment: UInt32) {
      self.offset = offset
      self.bucket = bucket
      self.fragment = fragment
    }
  }

  /// Looks `element` up in an enabled table indexing `elements`.
  ///
  /// The table is never full, so the probe always ends at the element or at an empty bucket.
  @inlinable
  internal func probe<Element: Hashable>(for element: Element, in elements: ContiguousArray<Element>) -> Probe {
    let fragment = Self._fragment(of: element)
    return _buckets.withUnsafeBufferPointer { buckets in
      let mask = buckets.count &- 1
      var bucket = Int(fragment) & mask
      while true {
        let entry = buckets[bucket]
        if entry == 0 {
          return Probe(offset: nil, bucket: bucket, fragment: fragment)
        }
        if Self._fragment(of: entry) == fragment {
          let offset = Self._offset(of: entry)
          if elements[offset] == element {
            return Probe(offset: offset, bucket: bucket, fragment: fragment)
          }
        }
        bucket = (bucket &+ 1) & mask
      }
    }
  }

  /// The bucket holding the entry for `offset`, whose element hashes to `fragment`.
  /// Compares offsets only: an offset appears in at most one entry.
  @inlinable
  internal func _bucket(ofOffset offset: Int, fragment: UInt32) -> Int {
    _buckets.withUnsafeBufferPointer { buckets in
      let mask = buckets.count &- 1
      var bucket = Int(fragment) & mask
      while Self._offset(of: buckets[bucket]) != offset {
        _checkPrecondition(buckets[bucket] != 0, "OrderedSet index is missing offset \(offset)")
        bucket = (bucket &+ 1) & mask
      }
      return bucket
    }
  }

  /// The bucket holding the entry for `elements[offset]`.
  @inlinable
  internal func bucket<Element: Hashable>(ofOffset offset: Int, in elements: ContiguousArray<Element>) -> Int {
    _bucket(ofOffset: offset, fragment: Self._fragment(of: elements[offset]))
  }
}

// MARK: - Mutation

extension _HashIndex {
  /// Stores `entry` in the first empty bucket of its probe sequence. The table must have room.
  @inlinable
  internal mutating func _insertEntry(_ entry: UInt64) {
    _buckets.withUnsafeMutableBufferPointer { buckets in
      let mask = buckets.count &- 1
      var bucket = Int(Self._fragment(of: entry)) & mask
      while buckets[bucket] != 0 {
        bucket = (bucket &+ 1) & mask
      }
      buckets[bucket] = entry
    }
  }

  /// Records a new element at `offset` after the set grew to `count` elements, using the empty
  /// bucket a failed ``probe(for:in:)`` returned unless the table has to grow first.
  @inlinable
  internal mutating func insert(offset: Int, probe: Probe, count: Int) {
    let entry = Self._entry(offset: offset, fragment: probe.fragment)
    if count > capacity {
      grow(toHold: count)
      _insertEntry(entry)
    } else {
      _buckets[probe.bucket] = entry
    }
  }

  /// Empties `bucket`, shifting later members of its cluster back so that every probe sequence
  /// stays unbroken (no tombstones).
  @inlinable
  internal mutating func delete(bucket: Int) {
    _buckets.withUnsafeMutableBufferPointer { buckets in
      let mask = buckets.count &- 1
      var hole = bucket
      var next = (hole &+ 1) & mask
      while buckets[next] != 0 {
        let ideal = Int(Self._fragment(of: buckets[next])) & mask
        // The entry at `next` may fill the hole unless its probe starts after the hole,
        // i.e. unless `ideal` lies cyclically within (hole, next].
        if (next &- ideal) & mask >= (next &- hole) & mask {
          buckets[hole] = buckets[next]
          hole = next
        }
        next = (next &+ 1) & mask
      }
      buckets[hole] = 0
    }
  }

  /// Rebuilds the table with room for `capacity` elements, reusing the stored hash bits.
  @inlinable
  internal mutating func grow(toHold capacity: Int) {
    let old = _buckets
    _buckets = ContiguousArray(repeating: 0, count: Self.bucketCount(forCapacity: capacity))
    for entry in old where entry != 0 {
      _insertEntry(entry)
    }
  }

  /// Clears every bucket, keeping the table's size.
  @inlinable
  internal mutating func removeAllEntries() {
    _buckets.withUnsafeMutableBufferPointer { buckets in
      buckets.update(repeating: 0)
    }
  }

  /// Replaces the offset of the entry in `bucket`, keeping its hash bits.
  @inlinable
  internal mutating func setOffset(_ offset: Int, inBucket bucket: Int) {
    _buckets[bucket] = Self._entry(offset: offset, fragment: Self._fragment(of: _buckets[bucket]))
  }

  /// Renumbers every entry, in one pass over the buckets and without hashing.
  @inlinable
  internal mutating func remapOffsets(_ transform: (Int) -> Int) {
    _buckets.withUnsafeMutableBufferPointer { buckets in
      for bucket in buckets.indices where buckets[bucket] != 0 {
        let entry = buckets[bucket]
        buckets[bucket] = Self._entry(offset: transform(Self._offset(of: entry)), fragment: Self._fragment(of: entry))
      }
    }
  }

  /// Adds `delta` to the offsets in `oldOffsets` after the set's array moved those elements,
  /// so that `elements[offset + delta]` is the element that was at `offset`.
  ///
  /// A few elements are found by hashing them; many are renumbered by one pass over the buckets.
  @inlinable
  internal mutating func shiftOffsets<Element: Hashable>(
    _ oldOffsets: Range<Int>, by delta: Int, in elements: ContiguousArray<Element>
  ) {
    guard isEnabled, !oldOffsets.isEmpty, delta != 0 else { return }
    if oldOffsets.count &* 8 < _buckets.count {
      // Visit offsets in the direction of the shift, so no entry is renumbered to an offset that
      // another entry, not yet visited, still holds.
      if delta > 0 {
        for offset in oldOffsets.reversed() { _shiftOffset(offset, by: delta, in: elements) }
      } else {
        for offset in oldOffsets { _shiftOffset(offset, by: delta, in: elements) }
      }
    } else {
      remapOffsets { oldOffsets.contains($0) ? $0 &+ delta : $0 }
    }
  }

  @inlinable
  internal mutating func _shiftOffset<Element: Hashable>(
    _ offset: Int, by delta: Int, in elements: ContiguousArray<Element>
  ) {
    let bucket = _bucket(ofOffset: offset, fragment: Self._fragment(of: elements[offset &+ delta]))
    setOffset(offset &+ delta, inBucket: bucket)
  }
}
