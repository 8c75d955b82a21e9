// The standard conformances delegate to `_isIdentityEqual`, the one implementation of the identity
// table, so that statically and dynamically typed code get the same answers.

extension ObservableState {
  /// Same `ObservableStateID`: the values' fields report their own changes.
  ///
  /// - Complexity: O(1).
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    lhs.observableStateID == rhs.observableStateID
  }
}

extension Optional: IdentityComparable where Wrapped: IdentityComparable {
  /// Both `nil`, or both present and identity-equal.
  ///
  /// - Complexity: that of `Wrapped`'s rule.
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
  /// The same structure version: copies of one array, with no insertion, removal, move or
  /// replacement of an element by a new value since. An array rebuilt from the same elements
  /// (`IdentifiedArray(uniqueElements: rows.elements)`) has a new structure version, so it is
  /// conservatively not identity-equal.
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
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool { _pairwiseSameIdentity(lhs, rhs) }
}

extension ContiguousArray: IdentityComparable where Element: ObservableState {
  /// Same count and pairwise the same `ObservableStateID`.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool { _pairwiseSameIdentity(lhs, rhs) }
}

extension ArraySlice: IdentityComparable where Element: ObservableState {
  /// Same count and pairwise the same `ObservableStateID`.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool { _pairwiseSameIdentity(lhs, rhs) }
}

extension Dictionary: IdentityComparable where Value: ObservableState {
  /// The same keys, each with the same `ObservableStateID`.
  ///
  /// - Complexity: O(*n*), with hashing.
  @inlinable
  public static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for (key, value) in lhs {
      guard let other = rhs[key], other.observableStateID == value.observableStateID else { return false }
    }
    return true
  }
}

/// Same count and pairwise the same `ObservableStateID`.
@inlinable
internal func _pairwiseSameIdentity<States: Collection>(_ lhs: States, _ rhs: States) -> Bool
where States.Element: ObservableState {
  lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.observableStateID == $1.observableStateID }
}
