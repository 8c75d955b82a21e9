/// A type that can tell when a slot holding it needs to notify its own readers.
///
/// `isIdentityEqual(lhs, rhs)` returning `true` promises that every difference between the two
/// values is reported to observers by the values' own registrars, so the slot holding them can
/// skip its notification. It must never return `true` for a real change that nobody else reports.
///
/// `ObservableState` values conform through their identity. A value assigned over another one
/// with the same identity but different content (an edited copy, a draft saved, an undo snapshot
/// restored) is a change the values' registrars report: the readers of the fields that differ are
/// notified, whatever slot the value sits in.
///
/// Enums that hold observable state can conform with a `switch`, comparing each case's payload by
/// the rules of the identity table:
///
/// ```swift
/// extension Destination: IdentityComparable {
///   static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
///     switch (lhs, rhs) {
///     case let (.detail(l), .detail(r)): Observant.isIdentityEqual(l, r)  // same ObservableStateID
///     case let (.alert(l), .alert(r)): l == r                              // Equatable payload
///     default: false                                                       // another case
///     }
///   }
/// }
/// ```
public protocol IdentityComparable {
  /// Whether a slot changing from `lhs` to `rhs` may skip notifying (see the protocol docs).
  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool
}
