/// Timing helpers: wall-clock nanoseconds per operation, median of several repetitions.
///
/// Each measured body runs its own loop of `operations` iterations, so the closure call is paid once
/// per repetition, not per operation. Results feed a sink that the optimizer cannot remove.

@usableFromInline
nonisolated(unsafe) var benchmarkSink = 0

/// Keeps `value` alive and observable to the optimizer.
@inline(never)
func blackHole<T>(_ value: T) {
  withUnsafeBytes(of: value) { bytes in
    if let first = bytes.first { benchmarkSink &+= Int(first) }
  }
}

nonisolated(unsafe) var debugTiming = false

/// Something to time: `run(operations)` performs `operations` operations; `cleanup` runs after
/// each timed repetition, outside the clock (to fire scopes a repetition left installed, say).
struct Workload {
  let run: (Int) -> Void
  var cleanup: () -> Void = {}
}

struct Timing {
  /// Repetitions per measurement (the median is reported).
  var repetitions: Int
  /// Target duration of one repetition, in nanoseconds (operations are scaled to reach it).
  var targetNanoseconds: Double

  static let standard = Timing(repetitions: 9, targetNanoseconds: 20_000_000)
  static let quick = Timing(repetitions: 3, targetNanoseconds: 2_000_000)

  /// Median nanoseconds per operation of `body(operations)`.
  func nanosecondsPerOperation(cleanup: @escaping () -> Void = {}, _ body: @escaping (Int) -> Void) -> Double {
    interleaved([Workload(run: body, cleanup: cleanup)])[0]
  }

  /// Median nanoseconds per operation of each workload, measured in alternating rounds (one
  /// repetition of each per round, the order reversed every other round) so that drift on a
  /// noisy machine affects them alike.
  func interleaved(_ workloads: [Workload]) -> [Double] {
    let operations = workloads.map(calibrate)
    var samples = Array(repeating: [Double](), count: workloads.count)
    for round in 0..<repetitions {
      let order = round.isMultiple(of: 2) ? Array(workloads.indices) : workloads.indices.reversed()
      for index in order {
        let workload = workloads[index]
        let count = operations[index]
        samples[index].append(Self.elapsed { workload.run(count) } / Double(count))
        workload.cleanup()
      }
    }
    return samples.map(median)
  }

  /// The operation count that makes a repetition take about `targetNanoseconds`.
  private func calibrate(_ workload: Workload) -> Int {
    var operations = 1
    while true {
      let elapsed = Self.elapsed { workload.run(operations) }
      workload.cleanup()
      if elapsed >= targetNanoseconds / 4 || operations >= 1 << 30 {
        let scale = max(1, targetNanoseconds / max(elapsed, 1))
        let calibrated = max(1, Int(Double(operations) * scale))
        if debugTiming { progress("calibrated \(calibrated) operations (\(elapsed) ns probe of \(operations))") }
        return calibrated
      }
      operations *= 4
    }
  }

  static func elapsed(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    body()
    let duration = start.duration(to: clock.now)
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}

func median(_ values: [Double]) -> Double {
  guard !values.isEmpty else { return .nan }
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}
