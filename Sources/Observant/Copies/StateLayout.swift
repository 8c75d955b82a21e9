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
