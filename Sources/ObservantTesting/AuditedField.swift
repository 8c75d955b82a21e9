import Observant

/// One field of an `ObservableState` type for ``TrackingAudit``: its key path, a sample value to
/// write, and, for fields that are changed in place, a mutation to make through the property.
///
/// ```swift
/// .field(\.count, sample: 1)
/// .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") })
/// .child(\.detail, sample: Detail(), inPlace: { $0.detail.count += 1 })
/// ```
///
/// The sample must differ from the field's initial value (a new child state always does: it has a
/// new identity). The in-place mutation runs on a value that holds the sample, so it can change an
/// element of it (`$0.rows[id: 1]?.count += 1` after the sample `[Row(id: 1)]`), and it must go
/// through the property without reading it otherwise: a key path cannot be used for it, because
/// Swift applies writable key paths with the getter and the setter, never with `_modify`.
public struct AuditedField<State: ObservableState> {
  /// What the field holds, as far as the audit's advice is concerned.
  enum Kind { case value, collection, child }

  let kind: Kind
  let read: (State) -> Void
  let writeSample: (inout State) -> Void
  /// Whether the field reads as the sample (`nil`: the field's type cannot be compared).
  let holdsSample: (State) -> Bool?
  /// Reads the field now; the returned closure tells whether it reads the same in another value
  /// (`nil`: the field's type cannot be compared).
  let watch: (State) -> (State) -> Bool?
  let inPlace: ((inout State) -> Void)?

  private init<Value>(
    _ keyPath: WritableKeyPath<State, Value>, sample: Value, inPlace: ((inout State) -> Void)?
  ) {
    kind = Kind(of: Value.self)
    read = { _ = $0[keyPath: keyPath] }
    writeSample = { $0[keyPath: keyPath] = sample }
    holdsSample = { sameValue(sample, $0[keyPath: keyPath]) }
    watch = { state in
      let before = state[keyPath: keyPath]
      return { sameValue(before, $0[keyPath: keyPath]) }
    }
    self.inPlace = inPlace
  }

  /// A field that is only ever assigned: a number, a string, an enum, a struct.
  ///
  /// ```swift
  /// .field(\.title, sample: "Groceries")
  /// ```
  ///
  /// Collections and child state are changed in place, so their `_modify` accessor needs checking
  /// too: audit them with `collection(_:sample:inPlace:)` and `child(_:sample:inPlace:)`.
  /// (`String` counts as a plain value here.)
  ///
  /// - Parameters:
  ///   - keyPath: the field.
  ///   - sample: a value to write, different from the field's initial value.
  public static func field<Value>(_ keyPath: WritableKeyPath<State, Value>, sample: Value) -> Self {
    Self(keyPath, sample: sample, inPlace: nil)
  }

  /// A collection-typed field (an array, a dictionary, a set, an identified array), checked also
  /// for a `_modify` accessor that mutates its own storage in place.
  ///
  /// ```swift
  /// .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") })
  /// .collection(\.rows, sample: [Row(id: 1)], inPlace: { $0.rows[id: 1]?.count += 1 })
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: the field.
  ///   - sample: a value to write, different from the field's initial value.
  ///   - inPlace: a mutation through the property (`$0.tags.append("b")`) that changes the sample.
  ///     It must not read the property in any other way.
  public static func collection<Value: Collection>(
    _ keyPath: WritableKeyPath<State, Value>, sample: Value, inPlace: @escaping (inout State) -> Void
  ) -> Self {
    Self(keyPath, sample: sample, inPlace: inPlace)
  }

  /// An optional collection (`[String]?`), checked like ``collection(_:sample:inPlace:)``.
  ///
  /// ```swift
  /// .collection(\.note, sample: "draft", inPlace: { $0.note?.append("!") })
  /// ```
  public static func collection<Wrapped: Collection>(
    _ keyPath: WritableKeyPath<State, Wrapped?>, sample: Wrapped, inPlace: @escaping (inout State) -> Void
  ) -> Self {
    Self(keyPath, sample: sample, inPlace: inPlace)
  }

  /// A field holding child state, checked also for a `_modify` accessor that mutates the child in
  /// place (without it, every change of a child's field copies the child, and with it the
  /// collections it holds).
  ///
  /// ```swift
  /// .child(\.detail, sample: Detail(), inPlace: { $0.detail.count += 1 })
  /// ```
  ///
  /// The child's own fields are audited on their own: `TrackingAudit.problems(in: Detail(), …)`.
  ///
  /// - Parameters:
  ///   - keyPath: the field.
  ///   - sample: a new child (a new value has a new identity, so it differs from the initial one).
  ///   - inPlace: a mutation of the child through the property (`$0.detail.count += 1`). It must
  ///     not read the property in any other way.
  public static func child<Child: ObservableState>(
    _ keyPath: WritableKeyPath<State, Child>, sample: Child, inPlace: @escaping (inout State) -> Void
  ) -> Self {
    Self(keyPath, sample: sample, inPlace: inPlace)
  }

  /// A field holding optional child state, checked like ``child(_:sample:inPlace:)``; the mutation
  /// runs after the sample was written, so optional chaining reaches it.
  ///
  /// ```swift
  /// .child(\.alert, sample: Alert(), inPlace: { $0.alert?.message = "Saved" })
  /// ```
  public static func child<Child: ObservableState>(
    _ keyPath: WritableKeyPath<State, Child?>, sample: Child, inPlace: @escaping (inout State) -> Void
  ) -> Self {
    Self(keyPath, sample: sample, inPlace: inPlace)
  }
}

/// Whether a slot changing from `old` to `new` would change nothing a reader can tell (identity,
/// then `==`, then `===`); `nil` for values that cannot be compared at all.
private func sameValue<Value>(_ old: Value, _ new: Value) -> Bool? {
  guard _isUnchanged(old, old) else { return nil }
  return _isUnchanged(old, new)
}

extension AuditedField.Kind {
  init(of type: Any.Type) {
    let unwrapped = (type as? any _OptionalType.Type)?.wrappedType ?? type
    if unwrapped is any ObservableState.Type {
      self = .child
    } else if unwrapped is any Collection.Type, !(unwrapped is any StringProtocol.Type) {
      self = .collection
    } else {
      self = .value
    }
  }
}

private protocol _OptionalType {
  static var wrappedType: Any.Type { get }
}

extension Optional: _OptionalType {
  static var wrappedType: Any.Type { Wrapped.self }
}
