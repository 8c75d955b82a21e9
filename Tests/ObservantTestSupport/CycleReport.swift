import _TestSupportShims

// Shared by the leak tests of several test targets: they run many cycles in the child process of
// an exit test (so that the heap is measured with no other test allocating at the same time),
// and the child reports what it measured on one line of standard output.

/// What a child process measured over a run of cycles, one `key=value` per field.
public struct CycleReport: Sendable {
  public var fields: [String: Int] = [:]

  public subscript(key: String) -> Int? {
    get { fields[key] }
    set { fields[key] = newValue }
  }

  static let prefix = "OBSERVANT-CYCLES"

  public init() {}

  /// Prints the report on one line, for the parent test to read.
  public func print() {
    Swift.print(Self.prefix + fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined())
  }

  /// The report in a child's standard output, or `nil` if it printed none.
  public init?(output: [UInt8]?) {
    guard
      let line = String(decoding: output ?? [], as: UTF8.self).split(separator: "\n")
        .first(where: { $0.hasPrefix(Self.prefix) })
    else { return nil }
    for pair in line.dropFirst(Self.prefix.count).split(separator: " ") {
      let parts = pair.split(separator: "=")
      if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
    }
  }
}

/// Bytes in use on the heap (glibc), or `nil` where the platform cannot tell.
public func heapBytesInUse() -> Int? {
  // A sanitizer's allocator answers the C library's statistics with zeros: not a measurement.
  guard !RandomTestBudget.isSanitized else { return nil }
  let bytes = observant_test_heap_bytes_in_use()
  return bytes < 0 ? nil : bytes
}
