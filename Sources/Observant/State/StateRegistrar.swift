/// The registrar an `ObservableState` value stores: the observer table its copies share, the
/// value's identity, and the stamp of its last change.
///
/// Declare it first, as a variable:
///
/// ```swift
/// struct Counter: ObservableState {
///   var registrar = StateRegistrar<Self>()
///   private var _count = StateField(0)
///   var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
/// }
/// ```
///
/// Copies of a value share its identity (`ObservableStateID`) and its observer table, so a reader
/// of a field hears writes made through the copy it read. Each copy carries its own stamps, so a
/// write through one copy does not disturb the readers of another one more than once, and a copy
/// that was changed and is assigned back is recognized as a change.
///
/// It takes no part in the value's equality, hashing or coding: `==` is always true, hashing adds
/// nothing, encoding writes `nil`, and a decoded value gets a fresh registrar (it is a new value).
public struct StateRegistrar<Owner>: Sendable {
  /// The tracking registrar (and through it the observer table) shared by all copies of the value.
  /// (A variable only so that a write can ask whether any other copy of the value exists.)
  @usableFromInline
  internal var tracking: TrackingRegistrar

  /// The value's identity, shared by its copies.
  public let id: ObservableStateID

  /// The stamp of the value's last change, its own or a nested one (internal bookkeeping). Two
  /// copies with the same id and the same stamp have identical content.
  @usableFromInline
  internal var stamp: UInt64

  /// A registrar for a new value, with a fresh `ObservableStateID`.
  ///
  /// - Complexity: O(1); one small allocation (the shared registrar object).
  @inlinable
  public init() {
    tracking = TrackingRegistrar()
    id = InstanceIdentity.make()
    stamp = Stamp.next()
  }
}

extension StateRegistrar {
  /// The number of observer entries installed on the fields of this value and its copies (an
  /// observer of two fields counts twice). Meant for tests and diagnostics: zero once every
  /// observer is cancelled.
  public var observerEntryCount: Int { tracking.observerEntryCount }
}

/// The identity of an `ObservableState` value: a fresh value gets a new one, copies share it.
///
/// It is a number from a process-wide counter, not a UUID: making one allocates nothing.
public typealias ObservableStateID = InstanceIdentity

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
  public var description: String { "StateRegistrar<\(Owner.self)>(\(id.rawValue))" }
}

/// Lets the runtime reach a registrar inside a value whose type it knows only at run time.
internal protocol _AnyStateRegistrar {
  var _trackingRegistrar: TrackingRegistrar { get }
  var _stamp: UInt64 { get }
}

extension StateRegistrar: _AnyStateRegistrar {
  var _trackingRegistrar: TrackingRegistrar { tracking }
  var _stamp: UInt64 { stamp }
}
