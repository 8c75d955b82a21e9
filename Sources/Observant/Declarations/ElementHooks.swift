// How collections that hold observable state keep its readers informed. `IdentifiedArray` calls
// these hooks (declared by `InstanceIdentifiable`) around every write of an element.

// The two hooks around an element's in-place mutation are inlinable, so that each element type's
// conformance gets them specialized: generic, the optional element alone is a metadata lookup.

extension ObservableState {
  /// An element is about to be mutated in place: opens an in-place frame for it (anchored when the
  /// collection is a tracked field of live state). Returns its stamp before the mutation.
  @inlinable
  public static func _willModifyInstanceInPlace(_ element: Self) -> UInt64 {
    _beginElementFrame(element.registrar.tracking, stamp: element.registrar.stamp, identity: element.registrar.id)
    return element.registrar.stamp
  }

  /// The in-place mutation of an element ended (`element` is `nil` when it was removed): a value
  /// replaced by an edited copy of itself rather than changed through its accessors has its
  /// readers reconciled.
  @inlinable
  public static func _didModifyInstanceInPlace(_ element: Self?, identity: InstanceIdentity, stampBefore: UInt64) {
    guard let element else {
      _endInPlaceFrame(stamp: 0, sameIdentity: false)
      return
    }
    let sameIdentity = element.registrar.id == identity
    let verified = _endInPlaceFrame(stamp: element.registrar.stamp, sameIdentity: sameIdentity)
    if !verified && sameIdentity && element.registrar.stamp != stampBefore {
      _reconcile(element)
    }
  }

  /// An element was overwritten by `new`, a value with the same identity (an edited copy assigned
  /// back): the readers of the fields that differ hear it.
  public static func _instanceWasReplaced(_ old: Self, by new: inout Self) {
    guard old.registrar.stamp != new.registrar.stamp else { return }
    let live = InPlaceFrames.innermostIsContainer && InPlaceFrames.innermostIsAnchored
    ContentDiff.apply(
      old: old, new: &new, live: live,
      writePlace: _WritePlace.element(of: InPlaceFrames.innermostContainerPlace, identity: old.registrar.id.rawValue))
  }
}

extension ObservableState {
  /// An element arrived in a collection (inserted, or stored over an element of another
  /// identity): if the readers of it or of a state it holds read other states of their fields
  /// than it holds (an older copy coming back), they are told. O(1) when nobody reads it and it
  /// holds no state.
  @inlinable
  public static func _instanceDidArrive(_ element: Self) {
    guard _isArrivalObservable(element) else { return }
    _reconcileArrival(element)
  }
}

/// Opens the in-place frame of an element (anchored when the collection is a tracked field of live
/// state), for the inlinable hook.
@usableFromInline
internal func _beginElementFrame(_ registrar: TrackingRegistrar, stamp: UInt64, identity: ObservableStateID) {
  let anchored = InPlaceFrames.innermostIsContainer && InPlaceFrames.innermostIsAnchored
  // The element's place: its identity in the container (an identified array: no two elements are
  // copies of one state), not the address it is lent from (see `_WritePlace`).
  let place = _WritePlace.element(of: InPlaceFrames.innermostContainerPlace, identity: identity.rawValue)
  InPlaceFrames.begin(registrar, stamp: stamp, anchored: anchored, place: place)
}
