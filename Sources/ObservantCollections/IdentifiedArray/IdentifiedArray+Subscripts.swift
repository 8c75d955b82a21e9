extension IdentifiedArray {
  /// The element at `position`, which must be a valid index: any other stops the program
  /// with a message naming it and the bounds, in every build configuration.
  ///
  /// You can write through this subscript, but not change the element's id: that would break the
  /// array's index, so it stops the program with a message naming both ids.
  ///
  /// ```swift
  /// todos[0].isDone = true            // in place
  /// todos[0] = Todo(id: 9, title: "") // stops the program if todos[0].id != 9
  /// ```
  ///
  /// Mutation through the subscript happens in place: neither the storage nor the element is
  /// copied. See ``structuralVersion`` for how writes are classified.
  ///
  /// - Complexity: O(1)
  @inlinable
  public subscript(position: Int) -> Element {
    get {
      _checkPosition(position)
      return _elements[position]
    }
    set {
      _checkPosition(position)
      let oldID = _ids._elements[position]
      let newID = _id(of: newValue)
      if newID != oldID { Self._positionalIDChangeFailure(at: position, from: oldID, to: newID) }
      let old = _elements[position]
      _elements[position] = newValue
      _elementWasAssigned(at: position, replacing: old)
    }
    // Always inlined: a yield-once coroutine that is not inlined keeps the yielded element in a
    // frame that it may allocate on the heap.
    @inline(__always)
    _modify {
      _checkPosition(position)
      let oldID = _ids._elements[position]
      let oldIdentity = _instanceIdentity(at: position)
      let token = Self._willModifyInPlace(_elements[position])
      defer { _finishPositionalModify(at: position, oldID: oldID, oldIdentity: oldIdentity, token: token) }
      yield &_elements[position]
    }
  }

  /// Checks and records an access through `subscript(position:)` once the caller is done; runs
  /// even when the access is abandoned by a thrown error.
  @inlinable
  internal mutating func _finishPositionalModify(
    at position: Int, oldID: ID, oldIdentity: InstanceIdentity?, token: UInt64
  ) {
    Self._didModifyInPlace(_elements[position], identity: oldIdentity, token: token)
    let newID = _id(at: position)
    if newID != oldID { Self._positionalIDChangeFailure(at: position, from: oldID, to: newID) }
    _elementDidChange(at: position, from: oldIdentity)
  }

  /// The element with the given id, or `nil` if there is none.
  ///
  /// Writing through the subscript updates, inserts or removes:
  ///
  /// ```swift
  /// todos[id: 2]?.isDone = true             // mutate in place (nothing happens if 2 is absent)
  /// todos[id: 7] = Todo(id: 7, title: "Go") // append: 7 was absent
  /// todos[id: 2] = nil                      // remove
  /// ```
  ///
  /// Storing an element under an id other than its own stops the program with a message naming
  /// both ids.
  ///
  /// Mutation through the subscript happens in place: the element is moved out of its slot into
  /// the optional the caller mutates, then moved back, so neither the storage nor the element is
  /// copied (an array inside the element stays uniquely referenced and grows in place too).
  ///
  /// Performance note: an access the compiler inlines allocates nothing, for example
  /// `todos[id: 2]!.isDone = true`. Swift does not inline an accessor that its caller ends on two
  /// paths, which optional chaining does (`todos[id: 2]?.isDone = true`); such an access keeps its
  /// state in a coroutine frame that costs one short-lived heap allocation. (The standard
  /// `Dictionary` subscript makes more in the same situation.) The positional subscript never
  /// needs one.
  ///
  /// - Complexity: O(1) expected to read, update or append; O(*n*) to remove, where *n* is the
  ///   number of elements.
  @inlinable
  public subscript(id id: ID) -> Element? {
    get {
      _ids.firstIndex(of: id).map { _elements[$0] }
    }
    set {
      let probe = _ids._find(id)
      switch (probe.offset, newValue) {
      case let (offset?, newValue?):
        let newID = _id(of: newValue)
        if newID != id { Self._keyedIDChangeFailure(from: id, to: newID) }
        let old = _elements[offset]
        _elements[offset] = newValue
        _elementWasAssigned(at: offset, replacing: old)
      case let (offset?, nil):
        _removeExisting(at: offset, probe: probe)
      case let (nil, newValue?):
        let newID = _id(of: newValue)
        if newID != id { Self._keyedIDChangeFailure(from: id, to: newID) }
        _insertNew(newValue, id: id, at: count, probe: probe)
      case (nil, nil):
        break
      }
    }
    // Always inlined: a yield-once coroutine that is not inlined keeps the yielded element in a
    // frame that it may allocate on the heap.
    @inline(__always)
    _modify {
      var (element, access) = _prepareKeyedModify(id: id)
      defer { _finishKeyedModify(of: &element, access) }
      yield &element
    }
  }

  // MARK: In-place access by id
  //
  // `subscript(id:)._modify` lends the caller an `Element?`. To lend the stored element itself
  // (not a copy, which would force copy-on-write of everything it holds), the element is moved out
  // of its slot, leaving the slot uninitialized for the duration of the access, and moved back when
  // the access ends. This is sound because the access holds `self` exclusively, so no code can
  // observe `_elements` while the slot is empty, and because `_finishKeyedModify` runs in a
  // `defer`, so the slot is refilled even when the access is abandoned by a thrown error. The last
  // element is taken with `removeLast()` instead, which leaves no empty slot at all.

  /// What `_finishKeyedModify` needs to know about an access through `subscript(id:)`.
  @usableFromInline
  internal struct _KeyedAccess {
    /// The subscript's id.
    @usableFromInline internal let id: ID
    /// Where the id was found (its offset), or where it would be indexed.
    @usableFromInline internal let probe: _HashIndex.Probe
    /// The instance identity of the element before the access.
    @usableFromInline internal let oldIdentity: InstanceIdentity?
    /// The element type's token for the in-place mutation (see `InstanceIdentifiable`).
    @usableFromInline internal let token: UInt64

    @inlinable
    internal init(id: ID, probe: _HashIndex.Probe, oldIdentity: InstanceIdentity?, token: UInt64 = 0) {
      self.id = id
      self.probe = probe
      self.oldIdentity = oldIdentity
      self.token = token
    }
  }

  /// Starts an access through `subscript(id:)`: moves the element with the id, if any, out of
  /// storage (the last element by `removeLast()`; any other by leaving its slot uninitialized until
  /// `_finishKeyedModify` refills it).
  ///
  /// Preparation and completion live in their own functions, and the accessor is always inlined,
  /// because a coroutine that is not inlined heap-allocates its frame, which here holds the element.
  @inlinable
  internal mutating func _prepareKeyedModify(id: ID) -> (Element?, _KeyedAccess) {
    let probe = _ids._find(id)
    guard let offset = probe.offset else {
      return (nil, _KeyedAccess(id: id, probe: probe, oldIdentity: nil))
    }
    let oldIdentity = _instanceIdentity(at: offset)
    let element: Element
    if offset == _elements.count &- 1 {
      element = _elements.removeLast()
    } else {
      element = _elements.withUnsafeMutableBufferPointer { buffer in
        (buffer.baseAddress! + offset).move()
      }
    }
    let token = Self._willModifyInPlace(element)
    return (element, _KeyedAccess(id: id, probe: probe, oldIdentity: oldIdentity, token: token))
  }

  /// Ends an access through `subscript(id:)`: puts the element moved out by `_prepareKeyedModify`
  /// back, or removes or appends it according to what the caller left in `element`, and records
  /// the change.
  @inlinable
  internal mutating func _finishKeyedModify(of element: inout Element?, _ access: _KeyedAccess) {
    let (id, probe) = (access.id, access.probe)
    guard let offset = probe.offset else {
      // The id was absent: the caller may have supplied an element to append.
      guard let newValue = element.take() else { return }
      let newID = _id(of: newValue)
      if newID != id { Self._keyedIDChangeFailure(from: id, to: newID) }
      _insertNew(newValue, id: id, at: count, probe: probe)
      return
    }
    let tookLast = offset == _elements.count
    if element != nil {
      if tookLast {
        _elements.append(element.take()!)
      } else {
        _elements.withUnsafeMutableBufferPointer { buffer in
          (buffer.baseAddress! + offset).initialize(to: element.take()!)
        }
      }
      Self._didModifyInPlace(_elements[offset], identity: access.oldIdentity, token: access.token)
      let newID = _id(at: offset)
      if newID != id { Self._keyedIDChangeFailure(from: id, to: newID) }
      _elementDidChange(at: offset, from: access.oldIdentity)
    } else {
      Self._didModifyInPlace(nil, identity: access.oldIdentity, token: access.token)
      // The caller removed the element.
      if !tookLast {
        // Fill the empty slot with a copy of a neighbour, then remove that stand-in the usual way.
        _elements.withUnsafeMutableBufferPointer { buffer in
          let slot = buffer.baseAddress! + offset
          slot.initialize(to: buffer[offset == 0 ? 1 : 0])
        }
        _elements.remove(at: offset)
      }
      _ = _ids._removeExisting(at: offset, bucket: _ids._index.isEnabled ? probe.bucket : nil)
      _structureDidChange(removed: [id])
    }
  }
}
