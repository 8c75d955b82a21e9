/// Runs `body` as one transaction: reactions that depend on what it writes re-run once, after it
/// ends, and none of them sees a half-applied change.
///
/// Transactions nest; only the end of the outermost one re-runs reactions. A field that ends the
/// transaction where it began (set and set back) re-runs nothing; the Identity rules article lists
/// the few changes undone in place whose readers still re-run once.
///
/// ```swift
/// transaction {
///   model.first = "Ada"
///   model.last = "Lovelace"
/// }  // a reaction reading both fields runs once, here
/// ```
///
/// Transactions belong to the current thread; writes made on other threads meanwhile form their
/// own transactions.
@discardableResult
public func transaction<Result>(_ body: () throws -> Result) rethrows -> Result {
  // The context unretained: the thread keeps it (see `TransactionContext.withCurrent`).
  TransactionContext.withCurrent { $0.begin() }
  defer { TransactionContext.withCurrent { $0.end() } }
  return try body()
}

/// `transaction(_:)` for a body whose last statement returns a value nobody wants
/// (`transaction { state.rows.append(row) }`, whose `append` is `@discardableResult`).
public func transaction(_ body: () throws -> Void) rethrows {
  TransactionContext.withCurrent { $0.begin() }
  defer { TransactionContext.withCurrent { $0.end() } }
  try body()
}
