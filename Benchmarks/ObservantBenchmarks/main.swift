// observant-bench: what Observant does better, measured against Apple's Observation in one run.
//
//   swift run -c release observant-bench [--output DIR | --no-output] [--check] [--quick] [--only SECTIONS]
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == InstructionCounts.workloadFlag {
  MainActor.assumeIsolated { InstructionCounts.workload(Array(arguments.dropFirst())) }
}
if arguments.first == InstructionCounts.microWorkloadFlag {
  InstructionCounts.microWorkload(Array(arguments.dropFirst()))
}
let options = Options.parse(arguments)
if let alone = options.derivedWorkload {
  DerivedBenchmarks.runAlone(workload: alone.name, strategy: alone.strategy, operations: alone.operations)
}
let timing = options.quick ? Timing.quick : Timing.standard
var report = BenchmarkReport(machine: .current(), startedAt: currentTimestamp(), arguments: arguments)
let started = ContinuousClock.now

for section in options.sections {
  switch section {
  case .scenarios:
    report.scenarios = ScenarioCatalog.run { progress($0) }
  case .micro:
    report.micro = MicroBenchmarks.run(timing, quick: options.quick) { progress("micro: \($0)") }
    report.microRepetitions = timing.repetitions
  case .scaling:
    let sizes = options.quick ? ScalingBenchmarks.quickSizes : ScalingBenchmarks.standardSizes
    report.scaling = ScalingBenchmarks.run(sizes: sizes, quick: options.quick) { progress($0) }
  case .flush:
    report.flush = FlushBenchmarks.run(timing, counts: [1, 100, 10_000]) { progress("flush: \($0)") }
    report.flushRepetitions = timing.repetitions
  case .instructions:
    guard !options.check else { continue }
    let sizes = options.quick ? InstructionCounts.quickSizes : InstructionCounts.standardSizes
    report.instructions = InstructionCounts.run(sizes: sizes) { progress($0) } ?? []
    report.microInstructions = InstructionCounts.runMicro { progress($0) } ?? []
    report.derivedInstructions = InstructionCounts.runDerived { progress($0) } ?? []
  case .derived:
    report.derived = DerivedBenchmarks.run(timing) { progress("derived: \($0)") }
    report.derivedRepetitions = timing.repetitions
  }
}

let (seconds, attoseconds) = started.duration(to: .now).components
report.seconds = Double(seconds) + Double(attoseconds) / 1e18
print(report.text(.console), terminator: "")
progress("observant-bench: done in \(format(report.seconds, decimals: 1)) s")

if let directory = options.outputDirectory {
  do {
    try makeDirectory(directory)
    try writeFile(directory + "/report.md", report.text(.markdown))
    try writeFile(directory + "/results.json", report.json())
    if let scaling = report.scaling { try writeFile(directory + "/scaling.svg", ScalingChart.svg(scaling)) }
    progress(
      "observant-bench: wrote \(directory)/report.md, results.json\(report.scaling == nil ? "" : ", scaling.svg")")
  } catch {
    progress("observant-bench: error: \(error)")
    exit(2)
  }
}

if options.check {
  let failures = report.failures
  let scalingFailures = report.scalingFailures
  if failures.isEmpty && scalingFailures.isEmpty {
    print("\ncheck: every Observant count equals the minimal count")
  } else {
    print("\ncheck FAILED: Observant counts that differ from the minimal count:")
    for failure in failures {
      let runs = Strategy.observantStrategies.map {
        "\($0.rawValue) \(failure.counts[$0].map { String($0.runs) } ?? "n/a")"
      }
      print("  \(failure.name): \(runs.joined(separator: ", ")), minimal \(failure.minimal) (\(failure.what))")
    }
    for failure in scalingFailures {
      print(
        "  scaling with \(failure.rows) rows: observant re-ran \(failure.runsPerAction) bodies for one row mutation, minimal 1"
      )
    }
    exit(1)
  }
}
