/// A child's key among its siblings, with its hash computed once.
///
/// `AnyHashable` hashes its value again (canonicalizing numbers first) on every dictionary probe
/// and on every rehash when the table grows; a parent with 100,000 children pays that per child
/// on every run. This wrapper pays it once per declaration.
internal struct ChildKey: Hashable {
  let base: AnyHashable
  private let hash: Int

  init(_ base: AnyHashable) {
    self.base = base
    self.hash = base.hashValue
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.hash == rhs.hash && lhs.base == rhs.base
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(hash)
  }
}
