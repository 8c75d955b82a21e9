import Synchronization

/// A value whose copies share one identity that is independent of `Identifiable.id`: a value
/// created afresh gets a new identity even when its `id` is equal.
///
/// ``IdentifiedArray`` uses the identity to tell an element mutated in place (same identity) from
/// an element replaced by a new value (new identity), and records only the latter as a structural
/// change (see ``IdentifiedArray/structuralVersion``). Observant's `ObservableState` conforms.
///
/// Conforming types store an ``InstanceIdentity`` made once, when the value is created:
///
/// ```swift
/// struct Row: Identifiable, InstanceIdentifiable {
///   let id: Int
///   var title: String
///   let instanceIdentity = InstanceIdentity.make()
/// }
///
/// var copy = row          // copies share the identity
/// copy.title = "Edited"   // so does a copy mutated in place
/// Row(id: row.id, title: "Edited").instanceIdentity == row.instanceIdentity  // false
/// ```
public protocol InstanceIdentifiable {
  /// The identity shared by this value and all of its copies.
  ///
  /// Reading it must be O(1) and must not allocate: collections read it on every element write.
  var instanceIdentity: InstanceIdentity { get }

  /// A number that differs between two copies whose content differs (0 when the type does not
  /// keep one). Observant's `ObservableState` keeps one; collections pass it to the hooks below.
  var _instanceVersion: UInt64 { get }

  /// Called by a collection before it lends an element for mutation in place; returns a token for
  /// `_didModifyInstanceInPlace`. (Hooks for observation runtimes; the defaults do nothing.)
  static func _willModifyInstanceInPlace(_ element: Self) -> UInt64

  /// Called by a collection after an element lent for mutation in place is back (`nil` if the
  /// caller removed it); `identity` is the element's identity before, `stampBefore` the token.
  static func _didModifyInstanceInPlace(_ element: Self?, identity: InstanceIdentity, stampBefore: UInt64)

  /// Called by a collection after it overwrote an element with a value of the same identity;
  /// `new` is the stored element (the hook may update its bookkeeping).
  static func _instanceWasReplaced(_ old: Self, by new: inout Self)
  /// Called by a collection after an element arrived where it was not: inserted, or stored over
  /// an element of another identity. (An older copy of a value coming back must bring its readers
  /// up to date.)
  static func _instanceDidArrive(_ element: Self)
}

extension InstanceIdentifiable {
  /// No version: content changes are not tracked.
  @inlinable
  public var _instanceVersion: UInt64 { 0 }

  @inlinable
  public static func _willModifyInstanceInPlace(_ element: Self) -> UInt64 { 0 }

  @inlinable
  public static func _didModifyInstanceInPlace(_ element: Self?, identity: InstanceIdentity, stampBefore: UInt64) {}

  @inlinable
  public static func _instanceWasReplaced(_ old: Self, by new: inout Self) {}

  @inlinable
  public static func _instanceDidArrive(_ element: Self) {}
}

/// An identity token shared by a value and its copies; see ``InstanceIdentifiable``.
///
/// Identities are plain 64-bit numbers drawn from a process-wide counter: making one costs a single
/// relaxed atomic increment and never allocates, unlike a `UUID`.
public struct InstanceIdentity: Hashable, Sendable, CustomStringConvertible {
  /// The number behind the identity. Identities made by ``make()`` are never zero.
  public let rawValue: UInt64

  /// Creates the identity with the given number.
  ///
  /// Prefer ``make()``: an identity built from an arbitrary number may equal one that ``make()``
  /// hands out. This initializer exists to restore identities, for example in tests.
  ///
  /// - Complexity: O(1)
  @inlinable
  public init(rawValue: UInt64) {
    self.rawValue = rawValue
  }

  /// Returns a new identity, distinct from every identity made before in this process.
  ///
  /// Thread-safe and allocation-free: one relaxed atomic increment of a process-wide counter.
  ///
  /// - Complexity: O(1)
  public static func make() -> InstanceIdentity {
    InstanceIdentity(rawValue: instanceIdentityCounter.wrappingAdd(1, ordering: .relaxed).newValue)
  }

  /// A textual representation of the identity, such as `InstanceIdentity(42)`.
  ///
  /// - Complexity: O(1)
  public var description: String {
    "InstanceIdentity(\(rawValue))"
  }
}

/// The source of ``InstanceIdentity/make()``. Relaxed ordering is enough: a read-modify-write on
/// one atomic hands out each value once, whatever the ordering; nothing else is published with it.
private let instanceIdentityCounter = Atomic<UInt64>(0)
