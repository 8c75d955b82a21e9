/// Whether the package was built with its internal invariant checks (`-D OBSERVANT_INTERNAL_CHECKS`,
/// which `Scripts/fuzz` and `Scripts/sanitize` pass). The data structures most likely to hide a bug
/// check themselves after every mutation when it is on; the checks compile away otherwise.
@usableFromInline
internal let _internalChecksEnabled: Bool = {
  #if OBSERVANT_INTERNAL_CHECKS
  return true
  #else
  return false
  #endif
}()

/// Stops with `message` if an internal invariant is broken (only with internal checks on).
@inline(never)
internal func _invariantViolated(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line)
  -> Never
{
  fatalError("Observant internal invariant broken: \(message())", file: file, line: line)
}
