// How collections that hold observable state keep its readers informed. `IdentifiedArray` calls
// these hooks (declared by `InstanceIdentifiable`) around every write of an element.

extension ObservableState {
  /// An element is about to be mutated in place: opens an in-place frame for it (anchored when the
  /// collection is a tracked field of live state). Returns its stamp before the mutation.
  public static func _willModifyInstanceInPlace(_ element: Self) -> UInt64 {
    let anchored = InPlaceFrames.innermostIsContainer && InPlaceFrames.innermostIsAnchored
    InPlaceFrames.begin(element.registrar.registrar, stamp: element.registrar.stamp, anchored: anchored)
    return element.registrar.stamp
  }

  /// The in-place mutation of an element ended (`element` is `nil` when it was removed): a value
  /// replaced by an edited copy of itself rather than changed through its accessors has its
  /// readers reconciled.
  public static func _didModifyInstanceInPlace(_ element: Self?, identity: InstanceIdentity, stampBefore: UInt64) {
    guard let element else {
      InPlaceFrames.end(stamp: 0, sameIdentity: false)
      return
    }
    let sameIdentity = element.registrar.id == identity
    let verified = InPlaceFrames.end(stamp: element.registrar.stamp, sameIdentity: sameIdentity)
    if !verified && sameIdentity && element.registrar.stamp != stampBefore {
      _reconcile(element)
    }
  }

  /// An element was overwritten by `new`, a value with the same identity (an edited copy assigned
  /// back): the readers of the fields that differ hear it.
  public static func _instanceWasReplaced(_ old: Self, by new: inout Self) {
    guard old.registrar.stamp != new.registrar.stamp else { return }
    let live = InPlaceFrames.innermostIsContainer && InPlaceFrames.innermostIsAnchored
    ContentDiff.apply(old: old, new: &new, live: live)
  }
}
