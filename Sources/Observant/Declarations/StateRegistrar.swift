/// The identity of an `ObservableState` value: a fresh value gets a new one, copies share it.
///
/// It is a number from a process-wide counter, not a UUID: making one allocates nothing.
public typealias ObservableStateID = InstanceIdentity

/// The registrar an `ObservableState` value stores: one `TrackingRegistrar`, shared by every copy
/// of the value, and with it the value's `ObservableStateID`.
///
/// Store it as `let stateRegistrar = StateRegistrar()`. It takes no part in the value's equality,
/// hashing or coding: `==` is always true, hashing adds nothing, encoding writes `nil`, and a decoded
/// value gets a fresh registrar (it is a new value).
public struct StateRegistrar: Sendable {
  /// The registrar shared by all copies of the value.
  public let registrar: TrackingRegistrar

  /// A registrar for a new value, with a fresh `ObservableStateID`.
  ///
  /// - Complexity: O(1); one allocation.
  @inlinable
  public init() { registrar = TrackingRegistrar() }

  /// The identity of the value that stores this registrar.
  @inlinable
  public var id: ObservableStateID { registrar.id }
}

extension StateRegistrar: Equatable {
  /// Always `true`: a registrar is bookkeeping, not part of the value.
  @inlinable
  public static func == (_: Self, _: Self) -> Bool { true }
}

extension StateRegistrar: Hashable {
  /// Adds nothing: a registrar is bookkeeping, not part of the value.
  @inlinable
  public func hash(into _: inout Hasher) {}
}

extension StateRegistrar: Codable {
  /// Decodes nothing: a decoded value is a new value with a fresh identity.
  public init(from decoder: any Decoder) throws { self.init() }

  /// Encodes `nil`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encodeNil()
  }
}

extension StateRegistrar: CustomStringConvertible {
  public var description: String { "StateRegistrar(\(id))" }
}
