import Synchronization

/// What a documentation example printed, line by line, so that a test can assert the exact output
/// the example's comments promise (`// prints "count: 1"`).
///
/// The example's code stays verbatim: a suite whose examples print declares a member that shadows
/// the standard library's `print` (Swift finds members before global functions), and every
/// unqualified `print` in its tests, closures included, lands here:
///
/// ```swift
/// let printed = PrintedLines()
/// func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }
/// ```
public final class PrintedLines: Sendable {
  private let storage = Mutex<[String]>([])

  public init() {}

  /// Everything printed so far, one element per call.
  public var lines: [String] { storage.withLock { $0 } }

  /// Records one call of `print(items..., separator: separator)`, as one line.
  public func append(_ items: [Any], separator: String = " ") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    storage.withLock { $0.append(line) }
  }

  /// Returns what was printed since the last call, and forgets it.
  public func take() -> [String] {
    storage.withLock { lines in
      defer { lines.removeAll() }
      return lines
    }
  }
}
