#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Observant
import Observation

/// Derived values against recomputing in the body (Observant) and against Apple's Observation
/// (which has no memoization: a body recomputes whatever it derives on every run), on a deep
/// chain and a wide fan-out. Each operation is one write and whatever re-runs because of it.
///
/// With `--derived-workload NAME STRATEGY N` the benchmark runs one workload N times and nothing
/// else, for profilers; the instructions section runs each that way under callgrind and reports
/// instructions and allocations per write (`InstructionCounts.runDerived`).
enum DerivedBenchmarks {
  struct Result {
    let name: String
    let derived: Double
    let body: Double
    let apple: Double
    /// Body runs per write: derived, body, Apple.
    let runsPerWrite: (derived: Double, body: Double, apple: Double)
  }

  /// How deep the chains are, and how wide the fan-out.
  static let depth = 50
  static let width = 1_000

  struct Case {
    let name: String
    let make: () -> (derived: (Int) -> Int, body: (Int) -> Int, apple: (Int) -> Int)
  }

  /// Each closure performs `operations` writes and returns the body runs they caused.
  static var cases: [Case] {
    [
      Case(name: "deep chain (50), result changes") { chain(cutOff: false) },
      Case(name: "deep chain (50), cut off at level 1") { chain(cutOff: true) },
      Case(name: "fan-out (1,000 -> sum), one input written") { fanOut() },
    ]
  }

  static func run(_ timing: Timing, progress: (String) -> Void) -> [Result] {
    cases.map { workload in
      progress(workload.name)
      let strategies = workload.make()
      var runs = [0, 0, 0]
      var writes = [0, 0, 0]
      let closures = [strategies.derived, strategies.body, strategies.apple]
      let times = timing.interleaved(
        closures.indices.map { index in
          Workload(run: { operations in
            runs[index] += closures[index](operations)
            writes[index] += operations
          })
        })
      func perWrite(_ index: Int) -> Double { Double(runs[index]) / Double(max(writes[index], 1)) }
      return Result(
        name: workload.name, derived: times[0], body: times[1], apple: times[2],
        runsPerWrite: (perWrite(0), perWrite(1), perWrite(2)))
    }
  }

  /// Runs one strategy of one workload `operations` times (for profilers).
  static func runAlone(workload name: String, strategy: String, operations: Int) -> Never {
    guard let workload = cases.first(where: { $0.name.hasPrefix(name) }) else {
      fail("unknown derived workload '\(name)' (known: \(cases.map(\.name).joined(separator: "; ")))")
    }
    let strategies = workload.make()
    let closure: (Int) -> Int
    switch strategy {
    case "derived": closure = strategies.derived
    case "body": closure = strategies.body
    case "apple": closure = strategies.apple
    default: fail("unknown strategy '\(strategy)' (known: derived, body, apple)")
    }
    _ = closure(1)  // warm up outside the measured loop
    measuredLoop(closure, operations)
    // Nothing after the measured loop: callgrind counts until the process ends, and tearing the
    // three workloads down (thousands of objects) would be counted as part of the writes.
    _exit(0)
  }

  /// The loop a profiler should look at (callgrind starts counting when it is entered).
  static func measuredLoop(_ closure: (Int) -> Int, _ operations: Int) {
    observantBenchMeasuredActions(1) { blackHole(closure(operations)) }
  }

  /// Writes counted per workload under callgrind: a fan-out write costs a few million
  /// instructions with Apple's Observation.
  static func instructionOperations(_ name: String) -> Int { name.hasPrefix("fan-out") ? 20 : 200 }

  // MARK: Workloads

  /// `level[0] = source` (or `source % 2` when cut off), `level[i] = level[i - 1] + 1`, read by one
  /// body. Cut-off writes add 2, so the parity never changes.
  private static func chain(cutOff: Bool) -> (derived: (Int) -> Int, body: (Int) -> Int, apple: (Int) -> Int) {
    let step = cutOff ? 2 : 1
    @inline(__always) func first(_ source: Int) -> Int { cutOff ? source % 2 : source }

    let derivedInput = DerivedInput()
    var levels = [Derived("level0") { first(derivedInput.value) }]
    for index in 1..<depth {
      let previous = levels[index - 1]
      levels.append(Derived("level\(index)") { previous.value + 1 })
    }
    let last = levels[depth - 1]
    let derivedReader = Reaction("Reader") { blackHole(last.value) }

    let bodyInput = DerivedInput()
    let bodyReader = Reaction("Reader") {
      var value = first(bodyInput.value)
      for _ in 1..<depth { value += 1 }
      blackHole(value)
    }

    let appleInput = AppleDerivedInput()
    let appleReader = AppleRerun {
      var value = first(appleInput.value)
      for _ in 1..<depth { value += 1 }
      blackHole(value)
    }

    return (
      derived: { operations in
        let before = derivedReader.runCount
        for _ in 0..<operations { derivedInput.value += step }
        withExtendedLifetime(levels) {}
        return derivedReader.runCount - before
      },
      body: { operations in
        let before = bodyReader.runCount
        for _ in 0..<operations { bodyInput.value += step }
        return bodyReader.runCount - before
      },
      apple: { operations in
        let before = appleReader.runCount
        for _ in 0..<operations {
          appleInput.value += step
          appleReader.runIfDirty()
        }
        return appleReader.runCount - before
      }
    )
  }

  /// `width` inputs, one derived value per input (`input * 2`), and their sum, read by one body.
  /// Each write changes one input.
  private static func fanOut() -> (derived: (Int) -> Int, body: (Int) -> Int, apple: (Int) -> Int) {
    let derivedInputs = (0..<width).map { _ in DerivedInput() }
    let terms = derivedInputs.map { input in Derived("term") { input.value * 2 } }
    let sum = Derived("sum") { terms.reduce(0) { $0 + $1.value } }
    let derivedReader = Reaction("Reader") { blackHole(sum.value) }

    let bodyInputs = (0..<width).map { _ in DerivedInput() }
    let bodyReader = Reaction("Reader") { blackHole(bodyInputs.reduce(0) { $0 + $1.value * 2 }) }

    let appleInputs = (0..<width).map { _ in AppleDerivedInput() }
    let appleReader = AppleRerun { blackHole(appleInputs.reduce(0) { $0 + $1.value * 2 }) }

    var next = 0
    return (
      derived: { operations in
        let before = derivedReader.runCount
        for _ in 0..<operations {
          next &+= 1
          derivedInputs[next % width].value += 1
        }
        withExtendedLifetime(terms) {}
        return derivedReader.runCount - before
      },
      body: { operations in
        let before = bodyReader.runCount
        for _ in 0..<operations {
          next &+= 1
          bodyInputs[next % width].value += 1
        }
        return bodyReader.runCount - before
      },
      apple: { operations in
        let before = appleReader.runCount
        for _ in 0..<operations {
          next &+= 1
          appleInputs[next % width].value += 1
          appleReader.runIfDirty()
        }
        return appleReader.runCount - before
      }
    )
  }
}

final class DerivedInput: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var value = 0
}

@Observable final class AppleDerivedInput {
  var value = 0
}

/// A body re-run the way an app re-renders under Apple's Observation: tracked with
/// `withObservationTracking`, marked dirty by `onChange`, run again (and tracked again) by the
/// owner after the write.
final class AppleRerun: @unchecked Sendable {
  private let body: () -> Void
  private var dirty = false
  private(set) var runCount = 0

  init(_ body: @escaping () -> Void) {
    self.body = body
    run()
  }

  func runIfDirty() {
    guard dirty else { return }
    run()
  }

  private func run() {
    dirty = false
    runCount += 1
    withObservationTracking(body) { [unowned self] in self.dirty = true }
  }
}

extension DerivedBenchmarks {
  static var legend: String {
    """
    derived: Observant `Derived` values read by one reaction; body: one Observant reaction that \
    recomputes the same thing in its body; apple: the same body under `withObservationTracking`, \
    re-tracked after every change (Apple's Observation has no memoization). Runs: body runs per write.
    """
  }

  static func table(_ results: [Result]) -> TextTable {
    var table = TextTable(header: [
      "workload", "derived ns", "body ns", "apple ns", "apple / derived", "runs: derived / body / apple",
    ])
    table.rightAligned = [1, 2, 3, 4, 5]
    for result in results {
      let runs = [result.runsPerWrite.derived, result.runsPerWrite.body, result.runsPerWrite.apple]
        .map { format($0, decimals: 2) }.joined(separator: " / ")
      table.append([
        result.name, format(result.derived), format(result.body), format(result.apple),
        format(result.apple / max(result.derived, 0.001), decimals: 1) + "x", runs,
      ])
    }
    return table
  }
}
