/// Everything one run measured; sections that did not run are `nil`.
struct BenchmarkReport {
  var machine: MachineInfo
  var startedAt: String
  var arguments: [String]
  var seconds: Double = 0
  var scenarios: [ScenarioResult]?
  var micro: [MicroResult]?
  var microRepetitions = 0
  var scaling: [ScalingResult]?
  var flush: [FlushBenchmarks.Result]?
  var flushRepetitions = 0
  /// Empty when valgrind is not installed.
  var instructions: [InstructionCounts.Result]?
  /// Instructions and allocations per micro-benchmark operation; empty when valgrind is not installed.
  var microInstructions: [InstructionCounts.MicroResult]?
  /// Instructions and allocations per write of the derived-value workloads; empty without valgrind.
  var derivedInstructions: [InstructionCounts.DerivedResult]?
  var derived: [DerivedBenchmarks.Result]?
  var derivedRepetitions = 0

  /// Steps where Observant's count differs from the minimal count.
  var failures: [ScenarioResult] { (scenarios ?? []).filter { !$0.passes } }

  /// Scaling sizes where Observant's row mutation re-ran more than the one row.
  var scalingFailures: [ScalingResult] {
    (scaling ?? []).filter { $0.strategy == .observant && $0.runsPerAction != 1 }
  }
}

// MARK: - Tables (shared by stdout and report.md)

extension BenchmarkReport {
  /// The scenario table; `describing` adds the "what" column (report.md), which stdout prints as
  /// a list under the table instead, to keep its lines short.
  static func scenarioTable(_ results: [ScenarioResult], describing: Bool) -> TextTable {
    let strategies = Strategy.allCases
    var table = TextTable(
      header: ["step", "minimal"] + strategies.map(\.rawValue) + ["PASS/FAIL"] + (describing ? ["what"] : []))
    table.rightAligned = Set(1...(1 + strategies.count))
    for result in results {
      table.append(
        [result.name, String(result.minimal)]
          + strategies.map { result.counts[$0].map(formatCount) ?? "n/a" }
          + [result.passes ? "PASS" : "FAIL"] + (describing ? [result.what] : []))
    }
    // Totals over the steps that count body runs and that every strategy could express.
    let summed = results.filter { result in
      result.countsBodyRuns && strategies.allSatisfy { result.counts[$0] != nil }
    }
    let totals: [String] = strategies.map { strategy in
      let counts = summed.compactMap { $0.counts[strategy] }
      let runs = counts.reduce(0) { $0 + $1.runs }
      let computations = counts.compactMap(\.computations)
      return computations.isEmpty ? String(runs) : "\(runs) (\(computations.reduce(0, +)))"
    }
    let minimal = summed.reduce(0) { $0 + $1.minimal }
    let note = "over the \(summed.count) steps above that count body runs and that every strategy expresses"
    table.append(["total body runs", String(minimal)] + totals + [""] + (describing ? [note] : []))
    return table
  }

  /// One line per step: what it does and what must re-run (stdout's legend for the table).
  static func scenarioLegend(_ results: [ScenarioResult]) -> String {
    let width = results.map(\.name.count).max() ?? 0
    return results.map { $0.name + String(repeating: " ", count: width - $0.name.count) + "  " + $0.what }
      .joined(separator: "\n")
  }

  private static func formatCount(_ count: StepCount) -> String {
    count.computations.map { "\(count.runs) (\($0))" } ?? String(count.runs)
  }

  static func microTable(_ results: [MicroResult]) -> TextTable {
    var table = TextTable(header: ["operation", "Observant", "Apple", "Apple/Observant", "what"])
    table.rightAligned = [1, 2, 3]
    for result in results {
      let decimals = result.unit == "bytes" ? 0 : (result.observant < 10 ? 2 : 1)
      table.append([
        result.name,
        format(result.observant, decimals: decimals) + " " + result.unit,
        format(result.apple, decimals: decimals) + " " + result.unit,
        formatRatio(result.ratio),
        result.summary,
      ])
    }
    return table
  }

  static func scalingTimeTable(_ results: [ScalingResult]) -> TextTable {
    var table = TextTable(header: [
      "rows", "observant", "apple-value-array", "apple-row-classes", "value/observant", "classes/observant",
      "bodies re-run (o / v / c)", "repetitions",
    ])
    table.rightAligned = [0, 1, 2, 3, 4, 5, 6, 7]
    for (rows, byStrategy) in grouped(results) {
      let observant = byStrategy[.observant]
      let value = byStrategy[.appleValueArray]
      let classes = byStrategy[.appleRowClasses]
      func time(_ result: ScalingResult?) -> String {
        result.map { formatDuration(nanoseconds: $0.nanosecondsPerAction) } ?? "n/a"
      }
      func ratio(_ result: ScalingResult?) -> String {
        guard let result, let observant else { return "n/a" }
        return formatRatio(result.nanosecondsPerAction / observant.nanosecondsPerAction)
      }
      let runs = [observant, value, classes].map { $0.map { String($0.runsPerAction) } ?? "n/a" }.joined(
        separator: " / ")
      table.append([
        formatThousands(rows), time(observant), time(value), time(classes), ratio(value), ratio(classes), runs,
        String(observant?.repetitions ?? 0),
      ])
    }
    return table
  }

  static func scalingMemoryTable(_ results: [ScalingResult]) -> TextTable {
    var table = TextTable(header: [
      "rows", "observant", "apple-value-array", "apple-row-classes", "value/observant", "classes/observant",
      "build (o / v / c)",
    ])
    table.rightAligned = [0, 1, 2, 3, 4, 5, 6]
    for (rows, byStrategy) in grouped(results) {
      let observant = byStrategy[.observant]
      let value = byStrategy[.appleValueArray]
      let classes = byStrategy[.appleRowClasses]
      func bytes(_ result: ScalingResult?) -> String {
        result.map { format($0.bytesPerRow, decimals: 0) + " bytes" } ?? "n/a"
      }
      func ratio(_ result: ScalingResult?) -> String {
        guard let result, let observant else { return "n/a" }
        return formatRatio(result.bytesPerRow / observant.bytesPerRow)
      }
      let builds = [observant, value, classes].map { $0.map { format($0.buildSeconds, decimals: 2) + " s" } ?? "n/a" }
      table.append([
        formatThousands(rows), bytes(observant), bytes(value), bytes(classes), ratio(value), ratio(classes),
        builds.joined(separator: " / "),
      ])
    }
    return table
  }

  static func flushTable(_ results: [FlushBenchmarks.Result]) -> TextTable {
    var table = TextTable(header: ["live reactions", "one dirty: ns per transaction"])
    table.rightAligned = [0, 1]
    for result in results {
      table.append([formatThousands(result.liveReactions), format(result.nanosecondsPerTransaction)])
    }
    return table
  }

  private static func grouped(_ results: [ScalingResult]) -> [(Int, [Strategy: ScalingResult])] {
    var sizes: [Int] = []
    var byRows: [Int: [Strategy: ScalingResult]] = [:]
    for result in results {
      if byRows[result.rows] == nil { sizes.append(result.rows) }
      byRows[result.rows, default: [:]][result.strategy] = result
    }
    return sizes.map { ($0, byRows[$0]!) }
  }
}

/// `100,000`.
func formatThousands(_ value: Int) -> String {
  let digits = String(value.magnitude)
  var result = ""
  for (offset, digit) in digits.enumerated() {
    if offset > 0 && (digits.count - offset).isMultiple(of: 3) { result.append(",") }
    result.append(digit)
  }
  return value < 0 ? "-" + result : result
}
