/// A plain-text table with aligned columns.
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
      cells.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return rightAligned.contains(column) ? padding + cell : cell + padding
      }.joined(separator: "  ")
    }
    let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
  }
}

/// `12.3` style formatting without Foundation.
func format(_ value: Double, decimals: Int = 1) -> String {
  guard value.isFinite else { return "n/a" }
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let rounded = (value * scale).rounded() / scale
  var text = String(rounded)
  if let dot = text.firstIndex(of: ".") {
    let fraction = text[text.index(after: dot)...]
    if fraction.count < decimals { text += String(repeating: "0", count: decimals - fraction.count) }
    if decimals == 0 { text = String(text[..<dot]) }
  } else if decimals > 0 {
    text += "." + String(repeating: "0", count: decimals)
  }
  return text
}
