/// A class whose `@Tracked` properties can be observed, without macros.
///
/// ```swift
/// final class Profile: Trackable {
///   let trackingRegistrar = TrackingRegistrar()
///   @Tracked var name = ""
///   @Tracked var followers = 0
///   var cache: [String: Int] = [:]   // not @Tracked: reads and writes are invisible to observers
/// }
/// ```
///
/// The registrar is the one stored property Swift cannot add for you without a macro; each
/// `@Tracked` property needs nothing else.
public protocol Trackable: AnyObject {
  /// The registrar of this object. Declare it as `let trackingRegistrar = TrackingRegistrar()`.
  var trackingRegistrar: TrackingRegistrar { get }
}

/// Makes a stored property of a `Trackable` class observable.
///
/// Reads inside a tracking scope record the property; writes notify its observers unless nothing
/// changed: `ObservableState` (and optionals, identified arrays of it) compare by identity,
/// `Equatable` values by `==`, class references by `===`; any other value always notifies.
///
/// In-place mutation (`profile.tags.append(t)`, `profile.count += 1`) mutates the storage in place,
/// with the checks described on `ObservableState`'s `subscript(tracking:storage:)`.
@propertyWrapper
public struct Tracked<Value> {
  @usableFromInline
  internal var value: Value

  @inlinable
  public init(wrappedValue: Value) {
    value = wrappedValue
  }

  /// Unavailable: `@Tracked` reaches its object's registrar through the enclosing instance, so it
  /// works only on properties of classes that conform to `Trackable`.
  @available(*, unavailable, message: "@Tracked can only be used on properties of a class that conforms to Trackable")
  public var wrappedValue: Value {
    get { fatalError("@Tracked can only be used on properties of a class that conforms to Trackable") }
    set { fatalError("@Tracked can only be used on properties of a class that conforms to Trackable") }
  }

  @inlinable
  public static subscript<Object: Trackable>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    get {
      _recordAccess(object.trackingRegistrar, wrappedKeyPath, .storage(storageKeyPath))
      return object[keyPath: storageKeyPath].value
    }
    set {
      let registrar = object.trackingRegistrar
      guard registrar.hasObservers else {
        object[keyPath: storageKeyPath].value = newValue
        return
      }
      // Observers run between the accesses, never inside one: an observer may read the object.
      let old = object[keyPath: storageKeyPath].value
      if _isUnchanged(old, newValue) {
        object[keyPath: storageKeyPath].value = newValue
        return
      }
      let opened = registrar._willChange(wrappedKeyPath, values: { _changeValues(old, newValue) })
      object[keyPath: storageKeyPath].value = newValue
      if opened { registrar._didChange() }
    }
    _modify {
      let registrar = object.trackingRegistrar
      if !registrar.hasObservers {
        yield &object[keyPath: storageKeyPath].value
      } else {
        var modification = _FieldModification(
          registrar, key: { wrappedKeyPath }, current: { object[keyPath: storageKeyPath].value })
        defer {
          modification.finish(
            key: { wrappedKeyPath },
            current: { object[keyPath: storageKeyPath].value },
            store: { object[keyPath: storageKeyPath].value = $0 })
        }
        if modification.yieldsCopy {
          yield &modification.copy!
        } else {
          yield &object[keyPath: storageKeyPath].value
        }
      }
    }
  }
}

extension Tracked: Sendable where Value: Sendable {}
