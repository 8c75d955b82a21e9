/// Checks a documented precondition of the collections' API. Unlike `precondition`, whose message
/// is stripped from optimized builds, the message is printed in every build configuration, so a
/// crash report says which index or id was at fault.
@usableFromInline @inline(__always)
internal func _checkPrecondition(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #file, line: UInt = #line
) {
  if _slowPath(!condition()) { _preconditionFailed(message(), file: file, line: line) }
}

/// Stops the program with `message` (kept in every build configuration).
@usableFromInline @inline(never)
internal func _preconditionFailed(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
  fatalError(message, file: file, line: line)
}
