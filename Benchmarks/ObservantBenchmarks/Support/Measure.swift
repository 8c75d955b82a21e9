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

struct Timing {
  /// Repetitions per measurement (the median is reported).
  var repetitions: Int
  /// Target duration of one repetition, in nanoseconds (operations are scaled to reach it).
  var targetNanoseconds: Double

  static let standard = Timing(repetitions: 9, targetNanoseconds: 20_000_000)
  static let quick = Timing(repetitions: 3, targetNanoseconds: 2_000_000)

  /// Median nanoseconds per operation of `body(operations)`.
  ///
  /// The operation count is calibrated first so a repetition takes about `targetNanoseconds`.
  func nanosecondsPerOperation(cleanup: () -> Void = {}, _ body: (Int) -> Void) -> Double {
    var operations = 1
    while true {
      let elapsed = Self.elapsed { body(operations) }
      cleanup()
      if elapsed >= targetNanoseconds / 4 || operations >= 1 << 30 {
        let scale = max(1, targetNanoseconds / max(elapsed, 1))
        operations = max(1, Int(Double(operations) * scale))
        if debugTiming { progress("calibrated \(operations) operations (\(elapsed) ns probe)") }
        break
      }
      operations *= 4
    }
    var samples: [Double] = []
    for _ in 0..<repetitions {
      samples.append(Self.elapsed { body(operations) } / Double(operations))
      cleanup()
    }
    samples.sort()
    return samples[samples.count / 2]
  }

  /// Median nanoseconds of one call of `body`, repeated `repetitions` times (for operations that
  /// are expensive or cannot be repeated in a loop without setup).
  func nanosecondsPerCall(setup: () -> Void = {}, _ body: () -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<repetitions {
      setup()
      samples.append(Self.elapsed(body))
    }
    samples.sort()
    return samples[samples.count / 2]
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
