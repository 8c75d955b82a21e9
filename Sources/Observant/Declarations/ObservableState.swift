/// A value type whose fields can be observed one by one, without macros.
///
/// Store one `StateRegistrar`, keep each tracked field in private storage, and expose it through a
/// computed property whose accessors call `read` and `write`:
///
/// ```swift
/// struct Counter: ObservableState {
///   let stateRegistrar = StateRegistrar()
///
///   private var _count = 0
///   var count: Int {
///     get { read(\.count, _count) }
///     set { write(\.count, &_count, newValue) }
///   }
/// }
/// ```
///
/// Collection-typed fields add a `_modify` accessor so element mutation happens in place (no
/// copy-on-write of the collection's storage):
///
/// ```swift
///   private var _rows: IdentifiedArrayOf<Row> = []
///   var rows: IdentifiedArrayOf<Row> {
///     get { read(\.rows, _rows) }
///     set { write(\.rows, &_rows, newValue) }
///     _modify { yield &self[tracking: \.rows, storage: \._rows] }
///   }
/// ```
///
/// Identity: a value created with `init` gets a fresh `ObservableStateID`; copies share it and
/// share the registrar, so an observer of `count` on one copy hears writes through any copy. A
/// slot that holds a child state notifies only when the child's identity changes; changes to the
/// child's own fields are reported by the child's registrar (see `IdentityComparable`).
public protocol ObservableState: IdentityComparable, InstanceIdentifiable {
  /// The registrar shared by this value and its copies. Declare it as
  /// `let stateRegistrar = StateRegistrar()`.
  var stateRegistrar: StateRegistrar { get }
}

extension ObservableState {
  /// The identity of this value, shared by its copies.
  @inlinable
  public var observableStateID: ObservableStateID { stateRegistrar.id }

  /// The identity `IdentifiedArray` uses to tell element replacement from in-place mutation.
  @inlinable
  public var instanceIdentity: InstanceIdentity { stateRegistrar.id }

  /// Same `ObservableStateID`: the values' fields report their own changes.
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    lhs.observableStateID == rhs.observableStateID
  }

  // MARK: Accessor helpers

  /// The getter of a tracked field: records the read, returns `value`.
  ///
  /// ```swift
  /// get { read(\.count, _count) }
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: the public property (not its storage). Built only when a tracking scope is active.
  ///   - value: the field's storage.
  ///   - field: the field's name in access logs; the default (`#function` inside a getter) is the
  ///     property name.
  /// - Complexity: O(1). Outside a tracking scope: one thread-local load.
  @inlinable @inline(__always)
  public func read<Value>(
    _ keyPath: @autoclosure () -> KeyPath<Self, Value>,
    _ value: Value,
    field: StaticString = #function
  ) -> Value {
    _recordAccess(stateRegistrar.registrar, FieldKey(keyPath()), .name(field))
    return value
  }

  /// The setter of a tracked field: stores `newValue` and notifies the field's observers, unless
  /// nothing changed (identity rules, then `==`, then `===`; see `isIdentityEqual`).
  ///
  /// ```swift
  /// set { write(\.count, &_count, newValue) }
  /// ```
  ///
  /// - Complexity: O(1) when nobody observes the value (one atomic load, no lock); otherwise the
  ///   comparison plus notifying the field's observers.
  @inlinable
  public func write<Value>(
    _ keyPath: @autoclosure () -> KeyPath<Self, Value>,
    _ storage: inout Value,
    _ newValue: Value
  ) {
    let registrar = stateRegistrar.registrar
    var opened = false
    if registrar.hasObservers {
      opened = registrar._announceWrite(FieldKey(keyPath()), from: storage, to: newValue)
    }
    storage = newValue
    if opened { registrar._didChange() }
  }

  /// The `_modify` accessor of a tracked field: yields the storage for in-place mutation.
  ///
  /// ```swift
  /// _modify { yield &self[tracking: \.rows, storage: \._rows] }
  /// ```
  ///
  /// Whether the mutation notifies depends on the field's type: a field with an O(1) identity
  /// (`ObservableState`, optional state, `IdentifiedArray`) is compared before and after, and
  /// notifies after the mutation only if its identity changed — so `rows[id: x]?.count += 1` does
  /// not notify readers of `rows`, while `child = Child()` or `rows.append(row)` does. A trivially
  /// copyable field is mutated as a copy and compared. Any other field notifies before the
  /// mutation, unconditionally: comparing it would need a copy, and a copy would force
  /// copy-on-write of its storage.
  @inlinable
  public subscript<Value>(
    tracking keyPath: @autoclosure () -> KeyPath<Self, Value>,
    storage storage: WritableKeyPath<Self, Value>
  ) -> Value {
    get { self[keyPath: storage] }
    _modify {
      // Reactions that writes nested in this mutation make dirty run after it (see `Tracked`).
      let defersReactions = !_isPOD(Value.self)
      if defersReactions { _beginInPlaceMutation() }
      defer { if defersReactions { _endInPlaceMutation() } }
      let registrar = stateRegistrar.registrar
      if !registrar.hasObservers {
        yield &self[keyPath: storage]
      } else {
        var modification = _FieldModification(registrar, key: { FieldKey(keyPath()) }, current: { self[keyPath: storage] })
        defer {
          modification.finish(key: { FieldKey(keyPath()) }, current: { self[keyPath: storage] }, store: { self[keyPath: storage] = $0 })
        }
        if modification.yieldsCopy {
          yield &modification.copy!
        } else {
          yield &self[keyPath: storage]
        }
      }
    }
  }
}

/// The `ObservableStateID` of `value` if its type is `ObservableState`, otherwise `nil`: for
/// generic code (a store comparing states it knows nothing about). The type test is answered
/// from a per-type cache, not a runtime conformance lookup each time.
@inlinable
public func observableStateID<Value>(of value: Value) -> ObservableStateID? {
  guard _TypeTraits.modification(of: Value.self) & _TypeTraits.inPlaceIdentity != 0,
    let stateType = Value.self as? any ObservableState.Type
  else { return nil }
  return _openObservableStateID(stateType, value)
}

@inlinable
internal func _openObservableStateID<State: ObservableState, Value>(_: State.Type, _ value: Value) -> ObservableStateID {
  (value as! State).observableStateID
}
