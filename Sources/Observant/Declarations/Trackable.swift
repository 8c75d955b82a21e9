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
    // The key path arguments are never used as objects: a use anywhere makes the compiler build
    // both on every access. `storageKeyPath` is only applied, which the optimizer folds into a
    // direct field access (and the field's identity into a constant storage offset) once these
    // accessors are inlined into the property's synthesized accessors, where the key paths are
    // literals. Hence `@inline(__always)`, and slow paths kept out of line.
    //
    // A read outside a tracking scope is a plain read access. A tracked read needs the field's
    // identity, its storage offset, which Swift yields only through a modifying access (taking
    // the address): that access touches no memory, but ThreadSanitizer would report two threads
    // reading one field as a race, so it is hidden from the sanitizer (see `_storageForReading`),
    // and the value is then read through the address. Writes take the address the same way; they
    // are writes, and a write concurrent with any other access is the caller's race to prevent.
    // Observers always run outside every access of this library's own: only `_modify` holds one
    // (checked as usual) across user code.
    @inline(__always)
    get {
      guard let recorder = ThreadLocal.recorder else { return object[keyPath: storageKeyPath].value }
      let storage = _storageForReading(object, storageKeyPath)
      recorder._withUnsafeGuaranteedRef {
        $0.record(object.trackingRegistrar, _fieldKey(object, storage), .storedProperty(Object.self))
      }
      return storage.pointee.value
    }
    @inline(__always)
    set {
      let registrar = object.trackingRegistrar
      let storage = _storage(object, storageKeyPath)
      var opened = false
      if registrar.hasObservers {
        // Observers run before the store: an observer may read the old value.
        opened = registrar._announceWrite(_fieldKey(object, storage), from: storage.pointee.value, to: newValue)
      }
      storage.pointee.value = newValue
      if opened { registrar._didChange() }
    }
    @inline(__always)
    _modify {
      // Writes nested in this mutation (fields of a child state, say) must not re-run reactions
      // while the storage is still being modified: a reaction reading this property would then
      // conflict with the access. Trivially copyable values contain no such fields.
      let defersReactions = !_isPOD(Value.self)
      if defersReactions { _beginInPlaceMutation() }
      defer { if defersReactions { _endInPlaceMutation() } }
      let registrar = object.trackingRegistrar
      if !registrar.hasObservers {
        yield &object[keyPath: storageKeyPath].value
      } else {
        var modification = _FieldModification(
          registrar, key: { _fieldKey(object, storageKeyPath) },
          current: { object[keyPath: storageKeyPath].value })
        defer {
          modification.finish(
            key: { _fieldKey(object, storageKeyPath) },
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

  /// The field's identity: the offset of its storage in the object, which optimized code folds to
  /// a constant. Called only outside any other access to the storage (the inout access below is
  /// instantaneous: it takes an address, it reads and writes nothing).
  @inlinable @inline(__always)
  internal static func _fieldKey<Object: AnyObject>(
    _ object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> FieldKey {
    _fieldKey(object, _storage(object, storageKeyPath))
  }

  @inlinable @inline(__always)
  internal static func _fieldKey<Object: AnyObject>(_ object: Object, _ storage: UnsafeMutablePointer<Self>) -> FieldKey {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    return FieldKey(storedPropertyOffset: UnsafeRawPointer(storage) - base)
  }

  /// The address of the storage for a read: the same, with the modifying access that takes it
  /// hidden from ThreadSanitizer (a load and a branch when it is not in the build).
  @inlinable @inline(__always)
  internal static func _storageForReading<Object: AnyObject>(
    _ object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> UnsafeMutablePointer<Self> {
    ThreadLocal.hidingFromThreadSanitizer { _storage(object, storageKeyPath) }
  }

  /// The address of the storage inside `object` (which keeps it alive), taken with an
  /// instantaneous modifying access; valid while `object` is.
  @inlinable @inline(__always)
  internal static func _storage<Object: AnyObject>(
    _ object: Object, _ storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> UnsafeMutablePointer<Self> {
    _withUnprotectedUnsafeMutablePointer(to: &object[keyPath: storageKeyPath]) { $0 }
  }
}

extension Tracked: Sendable where Value: Sendable {}
