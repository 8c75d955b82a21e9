#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `scaling.svg`: time per row mutation against the number of rendered rows, both axes in log
/// scale, one line per strategy. Plain SVG text.
enum ScalingChart {
  private static let width = 780.0
  private static let height = 470.0
  private static let left = 90.0
  private static let right = 210.0
  private static let top = 56.0
  private static let bottom = 64.0

  private static let colors: [Strategy: String] = [
    .observant: "#1a7f37",
    .observantAppleBridge: "#2da44e",
    .appleValueArray: "#cf222e",
    .appleRowClasses: "#0969da",
    .wholeState: "#8250df",
    .equatableDiffing: "#9a6700",
  ]

  static func svg(_ results: [ScalingResult]) -> String {
    let points = results.filter { $0.nanosecondsPerAction.isFinite && $0.nanosecondsPerAction > 0 }
    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="-apple-system, Helvetica, Arial, sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="#ffffff"/>
      <text x="\(left)" y="24" font-size="15" font-weight="600">One row mutation, re-render included, with N rows rendered</text>
      <text x="\(left)" y="42" fill="#57606a">median time per action; both axes logarithmic; lower is better</text>

      """
    guard !points.isEmpty else { return svg + "<text x=\"\(left)\" y=\"120\">no scaling results</text>\n</svg>\n" }

    let sizes = points.map { log10(Double($0.rows)) }
    let times = points.map { log10($0.nanosecondsPerAction) }
    var xRange = (sizes.min()!, sizes.max()!)
    if xRange.0 == xRange.1 { xRange = (xRange.0 - 0.5, xRange.1 + 0.5) }
    let yRange = (times.min()!.rounded(.down), max(times.max()!.rounded(.up), times.min()!.rounded(.down) + 1))
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    func x(_ rows: Double) -> Double { left + (log10(rows) - xRange.0) / (xRange.1 - xRange.0) * plotWidth }
    func y(_ nanoseconds: Double) -> Double {
      top + (yRange.1 - log10(nanoseconds)) / (yRange.1 - yRange.0) * plotHeight
    }

    // Grid and axis labels at each decade.
    var decade = yRange.0
    while decade <= yRange.1 {
      let position = y(pow10(decade))
      svg += line(left, position, left + plotWidth, position, color: "#d0d7de")
      svg +=
        "<text x=\"\(coordinate(left - 8))\" y=\"\(coordinate(position + 4))\" text-anchor=\"end\">\(durationLabel(decade))</text>\n"
      decade += 1
    }
    for rows in Set(points.map(\.rows)).sorted() {
      let position = x(Double(rows))
      svg += line(position, top, position, top + plotHeight, color: "#d0d7de")
      svg +=
        "<text x=\"\(coordinate(position))\" y=\"\(coordinate(top + plotHeight + 18))\" text-anchor=\"middle\">\(rowsLabel(rows))</text>\n"
    }
    svg +=
      "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(coordinate(plotWidth))\" height=\"\(coordinate(plotHeight))\" fill=\"none\" stroke=\"#57606a\"/>\n"
    svg +=
      "<text x=\"\(coordinate(left + plotWidth / 2))\" y=\"\(coordinate(height - 18))\" text-anchor=\"middle\">rows rendered (N)</text>\n"
    svg +=
      "<text transform=\"translate(22 \(coordinate(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">time per action</text>\n"

    // One line per strategy, in the report's strategy order.
    var legendY = top + 8
    for strategy in Strategy.allCases {
      let series = points.filter { $0.strategy == strategy }.sorted { $0.rows < $1.rows }
      guard !series.isEmpty else { continue }
      let color = colors[strategy] ?? "#000000"
      let path = series.map { "\(coordinate(x(Double($0.rows)))),\(coordinate(y($0.nanosecondsPerAction)))" }.joined(
        separator: " ")
      svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2.5\"/>\n"
      for point in series {
        svg +=
          "<circle cx=\"\(coordinate(x(Double(point.rows))))\" cy=\"\(coordinate(y(point.nanosecondsPerAction)))\" r=\"4\" fill=\"\(color)\">"
        svg +=
          "<title>\(strategy.rawValue), \(formatThousands(point.rows)) rows: \(formatDuration(nanoseconds: point.nanosecondsPerAction))</title></circle>\n"
      }
      let legendX = left + plotWidth + 18
      svg += line(legendX, legendY, legendX + 24, legendY, color: color, width: 2.5)
      svg += "<text x=\"\(coordinate(legendX + 32))\" y=\"\(coordinate(legendY + 4))\">\(strategy.rawValue)</text>\n"
      legendY += 22
    }
    return svg + "</svg>\n"
  }

  private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, color: String, width: Double = 1)
    -> String
  {
    "<line x1=\"\(coordinate(x1))\" y1=\"\(coordinate(y1))\" x2=\"\(coordinate(x2))\" y2=\"\(coordinate(y2))\" stroke=\"\(color)\" stroke-width=\"\(format(width, decimals: 1))\"/>\n"
  }

  private static func coordinate(_ value: Double) -> String { format(value, decimals: 1) }

  private static func rowsLabel(_ rows: Int) -> String {
    switch rows {
    case 1_000_000...: "\(rows / 1_000_000)M"
    case 1_000...: "\(rows / 1_000)k"
    default: String(rows)
    }
  }

  /// `1 ns`, `10 µs`, `100 ms` for the decade 10^`exponent` nanoseconds.
  private static func durationLabel(_ exponent: Double) -> String {
    let power = Int(exponent)
    let units = ["ns", "µs", "ms", "s"]
    let unit = min(max(power, 0) / 3, units.count - 1)
    let mantissa = pow10(Double(power - unit * 3))
    return format(mantissa, decimals: mantissa < 1 ? 3 : 0) + " " + units[unit]
  }
}

private func pow10(_ exponent: Double) -> Double { pow(10, exponent) }
