/// A table printed as aligned plain text (stdout) or as Markdown (report.md).
struct TextTable {
  var header: [String]
  var rows: [[String]] = []
  /// Columns aligned to the right (numbers).
  var rightAligned: Set<Int> = []

  mutating func append(_ row: [String]) { rows.append(row) }

  func render() -> String {
    let widths = header.indices.map { column in
      ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      let padded = cells.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return rightAligned.contains(column) ? padding + cell : cell + padding
      }
      var text = padded.joined(separator: "  ")
      while text.last == " " { text.removeLast() }
      return text
    }
    let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
  }

  func markdown() -> String {
    func line(_ cells: [String]) -> String {
      "| " + cells.map { $0.replacingPipes }.joined(separator: " | ") + " |"
    }
    let rule = "|" + header.indices.map { rightAligned.contains($0) ? "---:|" : "---|" }.joined()
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
  }
}

extension String {
  fileprivate var replacingPipes: String {
    split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
  }
}

/// `12.3` style formatting without Foundation; `n/a` for NaN and infinities.
func format(_ value: Double, decimals: Int = 1) -> String {
  guard value.isFinite else { return "n/a" }
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let scaled = (abs(value) * scale).rounded()
  guard scaled < 9e15 else { return String(value) }
  let units = Int(scaled)
  var whole = String(units / Int(scale))
  if value < 0 && units != 0 { whole = "-" + whole }
  guard decimals > 0 else { return whole }
  var fraction = String(units % Int(scale))
  fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
  return whole + "." + fraction
}

/// Nanoseconds in the unit that keeps three or four significant digits: `512.3 ns`, `4.21 µs`,
/// `153.2 ms`.
func formatDuration(nanoseconds: Double) -> String {
  guard nanoseconds.isFinite else { return "n/a" }
  let units: [(Double, String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1, "ns")]
  let (scale, unit) = units.first { nanoseconds >= $0.0 } ?? (1, "ns")
  let value = nanoseconds / scale
  return format(value, decimals: value < 10 ? 2 : 1) + " " + unit
}

/// `4.00x`, `0.0013x`, or `n/a`: two significant digits at least.
func formatRatio(_ value: Double) -> String {
  guard value.isFinite else { return "n/a" }
  let decimals =
    switch value {
    case ..<0.01: 4
    case ..<0.1: 3
    case ..<10: 2
    default: 1
    }
  return format(value, decimals: decimals) + "x"
}
