/// A type that can tell when a slot holding it needs to notify its observers.
///
/// `isIdentityEqual(lhs, rhs)` returning `true` promises that every difference between the two
/// values is reported to observers by the values' own registrars, so the slot holding them can
/// skip its notification. It must never return `true` for a real change that nobody else reports.
///
/// `ObservableState` values conform through their identity. Enums that hold observable state can
/// conform with a `switch`, comparing each case's payload by the rules in the identity table:
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

extension Optional: IdentityComparable where Wrapped: IdentityComparable {
  /// Both `nil`, or both present and identity-equal.
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case let (lhs?, rhs?): return Wrapped.isIdentityEqual(lhs, rhs)
    default: return false
    }
  }
}

extension IdentifiedArray: IdentityComparable where Element: ObservableState {
  /// Same elements, by `ObservableStateID`, in the same order.
  ///
  /// - Complexity: O(1): compares the arrays' structural versions, which every insertion, removal,
  ///   move and element replacement refreshes, and in-place element mutation does not.
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    lhs.hasSameStructure(as: rhs)
  }
}

extension Array: IdentityComparable where Element: ObservableState {
  /// Same count and pairwise the same `ObservableStateID`.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.observableStateID == $1.observableStateID }
  }
}
