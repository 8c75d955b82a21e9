/// A field of the runtime's own owners (a store's identity, a collection's ids): numbered, named
/// for access logs, observed like any other field.
package struct InternalField: Sendable {
  let key: FieldKey
  /// Named once: every dependency on the field shares the name.
  let fieldName: FieldName

  /// Field `number` of an owner, printed as `owner.name`.
  package init(_ number: Int, name: String, owner: Any.Type) {
    key = FieldKey(internalField: number)
    fieldName = .custom(name, owner: String(describing: owner))
  }

  private init(key: FieldKey, fieldName: FieldName) {
    self.key = key
    self.fieldName = fieldName
  }

  /// The field of the same name numbered `number`: a field of its own, where several owners record
  /// their fields in one table (stores over copies of one state share its table) and each must
  /// tell only its own readers.
  package func numbered(_ number: Int) -> InternalField {
    InternalField(key: FieldKey(internalField: number), fieldName: fieldName)
  }
}

extension TrackingRegistrar {
  /// Records a read of an internal field.
  package func access(_ field: InternalField) {
    _recordAccess(self, field.key, field.fieldName, seen: Stamp.none)
  }

  /// Tells the readers of an internal field that it changed (synchronous observers now, scheduled
  /// ones when the transaction ends).
  package func notifyChange(of field: InternalField) {
    notifyChange(of: field, isLive: false, values: { nil })
  }

  /// Tells the readers of an internal field that stands for a value (a store's plain state) that
  /// it went from `old` to `new`: kept by the transaction, so that a value changed and changed
  /// back within it (by two actions of one send, say) re-runs nobody, as a field set and set back.
  package func notifyChange<Value>(of field: InternalField, from old: Value, to new: Value) {
    notifyChange(of: field, isLive: true, values: { _changeValues(old, new) })
  }

  /// - Parameter isLive: the change may be set back within the transaction (its values are kept).
  private func notifyChange(of field: InternalField, isLive: Bool, values: () -> WriteValues?) {
    guard hasObservers, let table = existingTable else { return }
    var dependencies = table.dependencies(of: field.key, overwriting: Stamp.none)
    guard !dependencies.isEmpty else { return }
    let opened = Notifications.deliver(
      &dependencies, table: table, key: field.key, name: field.fieldName,
      from: Stamp.none, to: Stamp.none, isLive: isLive, values: values
    ).openedTransaction
    if opened { _endImplicitTransaction() }
  }
}
