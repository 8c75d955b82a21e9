/// The storage of one tracked field of an `ObservableState` value: the value, and the stamp of the
/// write that last changed it.
///
/// Declare it private, next to the computed property that reads and writes it through the value's
/// registrar:
///
/// ```swift
/// private var _count = StateField(0)
/// var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
/// ```
///
/// The stamp is what lets copies of a value be told apart: a copy carries the stamps of the value
/// it was copied from, and a copy that is changed carries new ones. Equality, hashing and coding
/// look at the value only.
///
/// - Complexity: Creating one takes a stamp: a thread-local increment.
public struct StateField<Value> {
  /// The field's value. Read and write it through the registrar's `read` and `write` (or the
  /// `subscript(tracking:)` of `ObservableState` for in-place mutation); writing it directly skips
  /// observation.
  public var value: Value

  /// The stamp of the last change (internal bookkeeping).
  @usableFromInline
  internal var stamp: UInt64

  /// Storage holding `value`.
  @inlinable
  public init(_ value: Value) {
    self.value = value
    self.stamp = Stamp.next()
  }
}

extension StateField: Sendable where Value: Sendable {}

/// Lets the runtime ask a `StateField` it found by reflection for the type of its value.
internal protocol _StateFieldValueType {
  static var _valueType: Any.Type { get }
}

extension StateField: _StateFieldValueType {
  static var _valueType: Any.Type { Value.self }
}

extension StateField: Equatable where Value: Equatable {
  /// Compares the values; stamps are bookkeeping.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.value == rhs.value }
}

extension StateField: Hashable where Value: Hashable {
  /// Hashes the value; stamps are bookkeeping.
  @inlinable
  public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

extension StateField: Encodable where Value: Encodable {
  /// Encodes the value alone.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

extension StateField: Decodable where Value: Decodable {
  /// Decodes the value; the field gets a fresh stamp.
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(Value.self))
  }
}

extension StateField: CustomStringConvertible {
  public var description: String { String(describing: value) }
}

extension StateField: ExpressibleByNilLiteral where Value: ExpressibleByNilLiteral {
  /// Storage holding `nil`: `private var _detail: StateField<Detail?> = nil`.
  @inlinable
  public init(nilLiteral: ()) { self.init(nil) }
}
