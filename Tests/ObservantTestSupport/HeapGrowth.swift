/// Runs `cycle` `warmup` times, then twice `cycles` times, and reports the heap's growth in each of
/// the two phases (`growth1`, `growth2`; absent where the heap is not measured, under a sanitizer)
/// and `cycles`. Run it in a child process (an exit test), where no other test allocates.
public func measureHeapGrowth(warmup: Int, cycles: Int, _ cycle: (Int) -> Void) -> CycleReport {
  var step = 0
  func run(_ count: Int) {
    for _ in 0..<count {
      cycle(step)
      step += 1
    }
  }
  run(warmup)
  let heap0 = heapBytesInUse()
  run(cycles)
  let heap1 = heapBytesInUse()
  run(cycles)
  let heap2 = heapBytesInUse()
  var report = CycleReport()
  report["cycles"] = cycles
  if let heap0, let heap1, let heap2 {
    report["growth1"] = heap1 - heap0
    report["growth2"] = heap2 - heap1
  }
  return report
}

/// `measureHeapGrowth(warmup:cycles:_:)` of an asynchronous cycle.
public func measureHeapGrowth(
  warmup: Int, cycles: Int, isolation: isolated (any Actor)? = #isolation, _ cycle: (Int) async -> Void
) async -> CycleReport {
  var step = 0
  func run(_ count: Int) async {
    for _ in 0..<count {
      await cycle(step)
      step += 1
    }
  }
  await run(warmup)
  let heap0 = heapBytesInUse()
  await run(cycles)
  let heap1 = heapBytesInUse()
  await run(cycles)
  let heap2 = heapBytesInUse()
  var report = CycleReport()
  report["cycles"] = cycles
  if let heap0, let heap1, let heap2 {
    report["growth1"] = heap1 - heap0
    report["growth2"] = heap2 - heap1
  }
  return report
}

/// What is wrong with a `measureHeapGrowth` report: a phase that grew by `bound` bytes or more,
/// and fields of `expected` with other values. Empty when the report is flat and as expected.
public func heapGrowthProblems(_ report: CycleReport, bound: Int, expecting expected: [String: Int] = [:]) -> [String] {
  let cycles = report["cycles"] ?? 1
  var problems: [String] = []
  for phase in ["growth1", "growth2"] {
    guard let growth = report[phase], growth >= bound else { continue }
    problems.append(
      "\(phase): heap grew by \(growth) bytes over \(cycles) cycles (\(Double(growth) / Double(cycles)) bytes a cycle; at most \(bound) allowed); report \(report.fields)"
    )
  }
  for (key, value) in expected.sorted(by: { $0.key < $1.key }) where report[key] != value {
    problems.append("\(key) = \(report[key].map(String.init) ?? "nil"), expected \(value)")
  }
  return problems
}

/// `heapGrowthProblems(_:bound:expecting:)` of the report a child process printed (`output`), with
/// `bytesPerCycle` allowed per cycle; a missing report is a problem too.
public func heapGrowthProblems(
  output: [UInt8]?, bytesPerCycle: Int, expecting expected: [String: Int] = [:]
) -> [String] {
  guard let report = CycleReport(output: output) else {
    return ["no report: \(String(decoding: output ?? [], as: UTF8.self))"]
  }
  return heapGrowthProblems(report, bound: (report["cycles"] ?? 1) * bytesPerCycle, expecting: expected)
}
