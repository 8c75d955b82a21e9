import Synchronization

extension IdentifiedArray {
  /// A stamp that changes whenever the array is mutated in any way.
  ///
  /// Stamps are drawn from one process-wide counter and stored inline, so copies share them.
  /// Contract: if `a.version == b.version`, then `a` and `b` are copies with no mutation since (or
  /// both were created empty), so their content is identical. Operations that change nothing
  /// (appending an id that is present, removing an id that is absent, sorting a sorted array,
  /// reserving capacity) keep the stamp.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var version: UInt64 { _version }

  /// A stamp that changes whenever the array's structure changes: which elements it holds, in
  /// which order.
  ///
  /// Structural changes are insertions, removals, reorderings that change the order, and replacing
  /// an element by a different value. For an ``InstanceIdentifiable`` element, "different" means a
  /// different ``InstanceIdentity``: mutating an element in place, or writing back a modified copy,
  /// is not structural. For other elements every replacement counts as structural, including a
  /// mutation through a subscript, because a new value cannot be told from an edited one.
  ///
  /// Contract: if `a.structuralVersion == b.structuralVersion`, then `a` and `b` hold the same ids
  /// in the same order, and (when `Element` is ``InstanceIdentifiable``) elements with the same
  /// instance identities. Their fields may differ.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var structuralVersion: UInt64 { _structuralVersion }

  /// A stamp that changes whenever the ids or their order change: insertions, removals and
  /// reorderings, but not replacing an element by another value with the same id.
  ///
  /// Contract: if `a.idsVersion == b.idsVersion`, then `a.ids == b.ids` (same ids, same order). An
  /// owner that shows one entry per id (a list of rows, each with its own store) depends on this
  /// stamp, not on ``structuralVersion``: a replaced element is its entry's business.
  ///
  /// - Complexity: O(1)
  @inlinable
  public var idsVersion: UInt64 { _idsVersion }

  /// Whether the two arrays have the same structure: the same ids in the same order and, for
  /// ``InstanceIdentifiable`` elements, the same element instances (see ``structuralVersion``).
  ///
  /// `true` is exact; `false` may be conservative (for example after an element was replaced and
  /// then replaced back).
  ///
  /// - Complexity: O(1)
  @inlinable
  public func hasSameStructure(as other: Self) -> Bool {
    _structuralVersion == other._structuralVersion
  }

  /// Whether the two arrays are unmutated copies of one another, and so hold identical content
  /// (see ``version``).
  ///
  /// `true` is exact; `false` only means the content may differ.
  ///
  /// - Complexity: O(1)
  @inlinable
  public func isIdentical(to other: Self) -> Bool {
    _version == other._version
  }
}

// MARK: - Recording changes

extension IdentifiedArray {
  /// Records a structural change: every structural mutation goes through this one funnel, which
  /// refreshes the stamps and, when structural changes are recorded, tells the journal which ids
  /// were removed or replaced (evaluated only then).
  @inlinable
  internal mutating func _structureDidChange(
    removed: @autoclosure () -> [ID] = [],
    replaced: @autoclosure () -> [ID] = [],
    keepingIDs: Bool = false
  ) {
    let oldVersion = _structuralVersion
    let stamp = _VersionStamp.next()
    _version = stamp
    _structuralVersion = stamp
    if !keepingIDs { _idsVersion = stamp }
    _journal(from: oldVersion, removed: removed(), replaced: replaced())
  }

  /// Records a change of element content that keeps the structure.
  @inlinable
  internal mutating func _contentDidChange() {
    _version = _VersionStamp.next()
  }

  /// Records that the element at `offset` was written, given its instance identity before the
  /// write (`nil` when `Element` is not ``InstanceIdentifiable``, which makes every write
  /// structural). The identity after the write is read only when it can matter.
  @inlinable
  internal mutating func _elementDidChange(at offset: Int, from oldIdentity: InstanceIdentity?) {
    if let oldIdentity, oldIdentity == _instanceIdentity(at: offset) {
      _contentDidChange()
    } else {
      let replacedID = _journal == nil ? [] : [_id(at: offset)]
      _structureDidChange(replaced: replacedID, keepingIDs: true)
      Self._instanceDidArrive(_elements[offset])
    }
  }

  /// Records that the element at `offset` was overwritten by assignment; `old` is the element it
  /// replaced. A replacement by a value of the same identity (an edited copy) is not structural,
  /// and the element type hears of it, so that readers of what differs are told.
  @inlinable
  internal mutating func _elementWasAssigned(at offset: Int, replacing old: Element) {
    let oldIdentity = Self._instanceIdentity(of: old)
    _elementDidChange(at: offset, from: oldIdentity)
    if let oldIdentity, oldIdentity == _instanceIdentity(at: offset) {
      Self._instanceWasReplaced(old, by: &_elements[offset])
    }
  }

  /// The hooks of `InstanceIdentifiable` element types, called around in-place mutation of an
  /// element and after an element is overwritten with a value of the same identity. Nothing for
  /// other element types (the type test folds away in specialized code).
  @inlinable @inline(__always)
  internal static func _willModifyInPlace(_ element: Element) -> UInt64 {
    guard let identifiableType = Element.self as? any InstanceIdentifiable.Type else { return 0 }
    return _openWillModify(identifiableType, element)
  }

  @inlinable @inline(__always)
  internal static func _didModifyInPlace(_ element: Element?, identity: InstanceIdentity?, token: UInt64) {
    guard let identity, let identifiableType = Element.self as? any InstanceIdentifiable.Type else { return }
    _openDidModify(identifiableType, element, identity: identity, token: token)
  }

  @inlinable @inline(__always)
  internal static func _instanceWasReplaced(_ old: Element, by new: inout Element) {
    guard let identifiableType = Element.self as? any InstanceIdentifiable.Type else { return }
    _openWasReplaced(identifiableType, old, &new)
  }

  @inlinable @inline(__always)
  internal static func _instanceDidArrive(_ element: Element) {
    guard let identifiableType = Element.self as? any InstanceIdentifiable.Type else { return }
    _openDidArrive(identifiableType, element)
  }

  /// The instance identity of `element`, or `nil` if `Element` is not ``InstanceIdentifiable``.
  @inlinable @inline(__always)
  internal static func _instanceIdentity(of element: Element) -> InstanceIdentity? {
    withUnsafePointer(to: element) { _instanceIdentity(at: $0) }
  }

  /// The instance identity of the element at `element`, or `nil` if `Element` is not
  /// ``InstanceIdentifiable``.
  ///
  /// Reads through a pointer so that the element is neither copied nor boxed: the metatype is
  /// probed (never the value, which could box a large element in an existential), and the opened
  /// type reads the identity in place. In specialized code the probe folds to a constant.
  @inlinable @inline(__always)
  internal static func _instanceIdentity(at element: UnsafePointer<Element>) -> InstanceIdentity? {
    guard let identifiableType = Element.self as? any InstanceIdentifiable.Type else { return nil }
    return _readInstanceIdentity(at: UnsafeRawPointer(element), as: identifiableType)
  }

  /// The instance identity of the element at `offset`, read in place.
  @inlinable @inline(__always)
  internal func _instanceIdentity(at offset: Int) -> InstanceIdentity? {
    _elements.withUnsafeBufferPointer { Self._instanceIdentity(at: $0.baseAddress! + offset) }
  }
}

@inlinable
internal func _openWillModify<Identified: InstanceIdentifiable, Element>(_: Identified.Type, _ element: Element)
  -> UInt64
{
  Identified._willModifyInstanceInPlace(element as! Identified)
}

@inlinable
internal func _openDidModify<Identified: InstanceIdentifiable, Element>(
  _: Identified.Type, _ element: Element?, identity: InstanceIdentity, token: UInt64
) {
  Identified._didModifyInstanceInPlace(element.map { $0 as! Identified }, identity: identity, stampBefore: token)
}

@inlinable
internal func _openDidArrive<Identified: InstanceIdentifiable, Element>(_: Identified.Type, _ element: Element) {
  Identified._instanceDidArrive(element as! Identified)
}

@inlinable
internal func _openWasReplaced<Identified: InstanceIdentifiable, Element>(
  _: Identified.Type, _ old: Element, _ new: inout Element
) {
  var element = new as! Identified
  Identified._instanceWasReplaced(old as! Identified, by: &element)
  new = element as! Element
}

/// Reads the identity of the element at `element`, whose type is `Identified`: the caller's
/// element type, opened from a metatype probe, so the memory is already bound to it.
@inlinable @inline(__always)
internal func _readInstanceIdentity<Identified: InstanceIdentifiable>(
  at element: UnsafeRawPointer, as _: Identified.Type
) -> InstanceIdentity {
  element.assumingMemoryBound(to: Identified.self).pointee.instanceIdentity
}

// MARK: - Stamps

/// Version stamps for ``IdentifiedArray``: one process-wide counter, so a fresh stamp never equals
/// an earlier one.
@usableFromInline
internal enum _VersionStamp {
  /// The stamp of arrays created empty. All empty arrays have identical content, so sharing one
  /// stamp keeps the contract, and creating an empty array costs no atomic operation.
  @inlinable
  internal static var empty: UInt64 { 0 }

  /// A stamp never handed out before in this process.
  ///
  /// Thread-safe and allocation-free: one relaxed atomic increment. Relaxed is enough: a
  /// read-modify-write hands out each value once, and no other memory is published with it.
  @usableFromInline
  internal static func next() -> UInt64 {
    versionStampCounter.wrappingAdd(1, ordering: .relaxed).newValue
  }
}

private let versionStampCounter = Atomic<UInt64>(_VersionStamp.empty)

/// The latest version stamp handed out in this process (see ``IdentifiedArray/version``): every
/// version created later is greater. An observation runtime reads it when an array's in-place
/// mutation begins; an array that ends the mutation with another version no greater than this
/// one was not changed in place but replaced by a copy that existed before (`swap(&a, &b)`,
/// `self = saved` in a mutating method).
///
/// - Complexity: O(1): one relaxed atomic load.
public func _identifiedArrayVersionClock() -> UInt64 {
  versionStampCounter.load(ordering: .relaxed)
}
