@_spi(Reflection) import Swift
import Synchronization

/// Where an `ObservableState` type keeps its registrar and its tracked fields, found once per type
/// by reflection (`_forEachField`) and cached.
///
/// Only the slow paths use it: comparing two copies of a value field by field after an edited copy
/// was assigned back, and reconciling readers after a value was replaced wholesale. Hot paths never
/// reflect.
internal struct StateLayout: @unchecked Sendable {
  struct Field {
    let offset: Int
    let storage: any _AnyStateField.Type
  }

  let registrarOffset: Int?
  let registrarType: (any _AnyStateRegistrar.Type)?
  let fields: [Field]

  private static let cache = Mutex<[ObjectIdentifier: StateLayout]>([:])

  /// The layout of `type` (a struct conforming to `ObservableState`).
  static func of(_ type: Any.Type) -> StateLayout {
    let id = ObjectIdentifier(type)
    if let cached = cache.withLock({ $0[id] }) { return cached }
    var registrarOffset: Int?
    var registrarType: (any _AnyStateRegistrar.Type)?
    var fields: [Field] = []
    _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 0)) { _, offset, fieldType, _ in
      if let storage = fieldType as? any _AnyStateField.Type {
        fields.append(Field(offset: offset, storage: storage))
      } else if let registrar = fieldType as? any _AnyStateRegistrar.Type, registrarOffset == nil {
        registrarOffset = offset
        registrarType = registrar
      }
      return true
    }
    let layout = StateLayout(registrarOffset: registrarOffset, registrarType: registrarType, fields: fields)
    cache.withLock { $0[id] = layout }
    return layout
  }
}

/// Lets the runtime read a `StateField` whose value type it knows only at run time.
internal protocol _AnyStateField {
  /// The stamp of the field stored at `address`.
  static func _stamp(at address: UnsafeRawPointer) -> UInt64
  /// Notifies the readers of observable state held in the two fields whose content differs
  /// (see `ContentDiff`); the fields' own stamps are compared by the caller.
  static func _diffContent(old: UnsafeRawPointer, new: UnsafeRawPointer, into diff: inout ContentDiff)
  /// Collects the state held in the field at `address` for a reconciliation.
  static func _collect(at address: UnsafeRawPointer, into reconciliation: inout Reconciliation)
  /// Compares the field at `old` with the field at `new` (about to replace it): a field whose
  /// content equals the old one takes the old stamp; one that differs is reported to `diff` (for
  /// the readers of `table`). Returns whether the new field is now identical to the old one.
  @discardableResult
  static func _adopt(
    old: UnsafeRawPointer, new: UnsafeMutableRawPointer, table: ObserverTable?, fixed: Bool,
    into diff: inout ContentDiff
  ) -> Bool
}

extension _AnyStateField {
  @discardableResult
  static func _adopt(
    old: UnsafeRawPointer, new: UnsafeMutableRawPointer, table: ObserverTable?, into diff: inout ContentDiff
  ) -> Bool {
    _adopt(old: old, new: new, table: table, fixed: false, into: &diff)
  }
}

extension StateField: _AnyStateField {
  static func _stamp(at address: UnsafeRawPointer) -> UInt64 {
    address.assumingMemoryBound(to: StateField<Value>.self).pointee.stamp
  }

  static func _diffContent(old: UnsafeRawPointer, new: UnsafeRawPointer, into diff: inout ContentDiff) {
    guard _TypeTraits.flags(of: Value.self) & _TypeTraits.mayHoldState != 0 else { return }
    diff.compare(
      old.assumingMemoryBound(to: StateField<Value>.self).pointee.value,
      new.assumingMemoryBound(to: StateField<Value>.self).pointee.value)
  }

  static func _collect(at address: UnsafeRawPointer, into reconciliation: inout Reconciliation) {
    guard _TypeTraits.flags(of: Value.self) & _TypeTraits.mayHoldState != 0 else { return }
    reconciliation.collect(address.assumingMemoryBound(to: StateField<Value>.self).pointee.value)
  }

  @discardableResult
  static func _adopt(
    old: UnsafeRawPointer, new: UnsafeMutableRawPointer, table: ObserverTable?, fixed: Bool,
    into diff: inout ContentDiff
  ) -> Bool {
    let oldField = old.assumingMemoryBound(to: StateField<Value>.self)
    let newField = new.assumingMemoryBound(to: StateField<Value>.self)
    let oldStamp = oldField.pointee.stamp
    let values = { _changeValues(oldField.pointee.value, newField.pointee.value) }
    if _TypeTraits.flags(of: Value.self) & _TypeTraits.mayHoldState != 0 {
      guard _isIdentityEqual(oldField.pointee.value, newField.pointee.value) else {
        if oldStamp != newField.pointee.stamp {
          diff.fieldChanged(table, from: oldStamp, to: &newField.pointee.stamp, fixed: fixed, values: values)
          // The slot's readers heard that it holds something else; the readers of the states it
          // held that it still holds (the rows of an array that gained a row, say) must hear
          // what differs inside them.
          diff.compare(oldField.pointee.value, newField.pointee.value)
        }
        return false
      }
      // The slot holds the same identity: its readers need not hear; what is inside may differ.
      if fixed {
        // The storage keeps its own stamp: the slot's readers take it as an alias (as for equal
        // values below), or a later write of the slot, from that stamp, would pass them by.
        if oldStamp != newField.pointee.stamp {
          diff.fieldAliased(table, from: oldStamp, to: newField.pointee.stamp)
        }
        diff.compare(oldField.pointee.value, newField.pointee.value)
        return false
      }
      newField.pointee.stamp = oldStamp
      return diff.compare(oldField.pointee.value, adopting: &newField.pointee.value)
    }
    if oldStamp == newField.pointee.stamp { return true }
    if _isUnchanged(oldField.pointee.value, newField.pointee.value) {
      if fixed {
        // The storage keeps its own stamp: the readers of the old state take it as an alias.
        diff.fieldAliased(table, from: oldStamp, to: newField.pointee.stamp)
        return false
      }
      newField.pointee.stamp = oldStamp
      return true
    }
    diff.fieldChanged(table, from: oldStamp, to: &newField.pointee.stamp, fixed: fixed, values: values)
    return false
  }
}

extension ObservableState {
  /// The stamps of this value's tracked fields, in declaration order.
  internal var _fieldStamps: [UInt64] {
    let layout = StateLayout.of(Self.self)
    return withUnsafeBytes(of: self) { raw in
      layout.fields.map { $0.storage._stamp(at: raw.baseAddress! + $0.offset) }
    }
  }
}
