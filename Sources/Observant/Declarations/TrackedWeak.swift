/// Makes a `weak` reference of a `Trackable` class observable: a delegate, a parent, a
/// coordinator the object does not own.
///
/// ```swift
/// final class Row: Trackable {
///   let trackingRegistrar = TrackingRegistrar()
///   @TrackedWeak var parent: Section?
/// }
/// ```
///
/// Reads record the property; assigning another object (or `nil`) notifies its readers. The
/// referenced object going away on its own does not notify (Swift offers no hook for it): a
/// reader sees `nil` the next time it runs. Assigning `nil` after the object went away notifies
/// (its readers may still show the object).
@propertyWrapper
public struct TrackedWeak<Object: AnyObject> {
  @usableFromInline
  internal weak var object: Object?
  /// Whether an object was assigned last (it may have gone away since): `nil` assigned over it is
  /// a change, though the weak reference already reads `nil`.
  @usableFromInline
  internal var holdsObject: Bool

  /// The property's initial object, held weakly: `@TrackedWeak var parent: Section?` starts as `nil`.
  @inlinable
  public init(wrappedValue: Object?) {
    object = wrappedValue
    holdsObject = wrappedValue != nil
  }

  /// Unavailable: `@TrackedWeak` reaches its object's registrar through the enclosing instance, so
  /// it works only on properties of classes that conform to `Trackable`.
  @available(
    *, unavailable, message: "@TrackedWeak can only be used on properties of a class that conforms to Trackable"
  )
  public var wrappedValue: Object? {
    get { fatalError("@TrackedWeak can only be used on properties of a class that conforms to Trackable") }
    set { fatalError("@TrackedWeak can only be used on properties of a class that conforms to Trackable") }
  }

  @inlinable
  public static subscript<Owner: Trackable>(
    _enclosingInstance owner: Owner,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Object?>,
    storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
  ) -> Object? {
    get {
      if let recorder = ThreadLocal.recorderForReads {
        recorder._withUnsafeGuaranteedRef {
          $0.record(
            owner.trackingRegistrar, _fieldKey(owner, storageKeyPath), .storedProperty(Owner.self), seen: Stamp.none)
        }
      }
      return owner[keyPath: storageKeyPath].object
    }
    set {
      let registrar = owner.trackingRegistrar
      let old = owner[keyPath: storageKeyPath].object
      // `nil` over an object that went away on its own: the weak reference reads `nil`, but the
      // readers that saw the object have not heard of it going away.
      let clearsGoneObject = old == nil && newValue == nil && owner[keyPath: storageKeyPath].holdsObject
      guard old !== newValue || clearsGoneObject else { return }
      // A reader that starts depending on the property between the announcement and the store
      // hears the write after the fact (see `TrackingRegistrar._readersMayHaveMissed(since:)`).
      let ticket = registrar._writeTicket
      var opened = false
      if registrar.hasObservers {
        // (No values for a gone object: `nil` and `nil` are no change a set-back could undo.)
        opened = registrar._announceClassFieldWrite(
          _fieldKey(owner, storageKeyPath), owner: Owner.self,
          values: { clearsGoneObject ? nil : _changeValues(old, newValue) })
      }
      owner[keyPath: storageKeyPath].object = newValue
      owner[keyPath: storageKeyPath].holdsObject = newValue != nil
      if registrar._readersMayHaveMissed(since: ticket) {
        registrar._deliverLate(_fieldKey(owner, storageKeyPath), overwriting: Stamp.none)
      }
      if opened { _endImplicitTransaction() }
    }
  }

  @inlinable @inline(__always)
  internal static func _fieldKey<Owner: AnyObject>(
    _ owner: Owner, _ storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
  ) -> FieldKey {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(owner).toOpaque())
    let storage = _withUnprotectedUnsafeMutablePointer(to: &owner[keyPath: storageKeyPath]) { UnsafeRawPointer($0) }
    return FieldKey(storedPropertyOffset: storage - base)
  }
}
