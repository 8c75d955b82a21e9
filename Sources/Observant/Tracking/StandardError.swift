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
