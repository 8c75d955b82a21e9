#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a diagnostic line to standard error (without Foundation). Shared by this package's
/// modules (reaction, store and render-tree diagnostics).
package func printToStandardError(_ message: String) {
  var line = message
  line.append("\n")
  line.withUTF8 { bytes in
    _ = write(2, bytes.baseAddress, bytes.count)
  }
}

/// Stops the program with `message`, in every build configuration.
///
/// `precondition` prints its message only in debug builds (`-Onone`); a documented stop must say
/// what went wrong in release builds too, so the package's own checks end here.
@inline(never)
package func observantFatalError(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line)
  -> Never
{
  fatalError(message(), file: file, line: line)
}

/// Checks a documented precondition of the package's API; the message is printed in every build
/// configuration (unlike `precondition`'s).
package func observantPrecondition(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #file, line: UInt = #line
) {
  if !condition() { observantFatalError(message(), file: file, line: line) }
}
