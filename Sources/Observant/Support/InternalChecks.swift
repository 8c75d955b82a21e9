/// Whether the package was built with its internal invariant checks (`-D OBSERVANT_INTERNAL_CHECKS`,
/// which `Scripts/fuzz`, `Scripts/sanitize` and CI's optimized test run pass). The data structures
/// most likely to hide a bug (the observer table, the recorder and its index, the transaction
/// context and its write records, the flush's observer queue) check themselves with
/// `_checkInvariants()` after every mutation when it is on; the checks compile away otherwise (a
/// constant, folded wherever it is asked). Tests call `_checkInvariants()` directly in every build.
@inlinable @inline(__always)
internal var _internalChecksEnabled: Bool {
  #if OBSERVANT_INTERNAL_CHECKS
  return true
  #else
  return false
  #endif
}

/// Up to this many entries, a structure checks itself in full after a mutation that touched one
/// entry; beyond, it checks what the mutation touched (so that a test of 100,000 reads or writes
/// stays linear with internal checks on). Its mutations at run and transaction boundaries check
/// in full.
internal var _fullCheckLimit: Int { 256 }

/// Stops with `message` if an internal invariant is broken (only with internal checks on).
@inline(never)
internal func _invariantViolated(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line)
  -> Never
{
  fatalError("Observant internal invariant broken: \(message())", file: file, line: line)
}
