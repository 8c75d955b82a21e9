import Observant
import Observation

/// One micro-benchmark: Observant and Apple's Observation doing the same work in the same process.
struct MicroResult: Sendable {
  /// The name used in `results.json` (e.g. `tracked-read`).
  let name: String
  let observant: Double
  let apple: Double
  /// `ns` (per operation) or `bytes`.
  let unit: String
  let summary: String

  /// How many times more Apple costs than Observant.
  var ratio: Double { apple / observant }
}

/// The micro-benchmarks, in report order.
enum MicroBenchmarks {
  static func run(_ timing: Timing, quick: Bool, progress: (String) -> Void) -> [MicroResult] {
    var results: [MicroResult] = []
    func add(_ name: String, _ summary: String, unit: String = "ns", observant: () -> Double, apple: () -> Double) {
      progress(name)
      // Interleave so drift on a noisy machine affects both sides alike.
      let first = observant()
      let second = apple()
      let third = observant()
      results.append(MicroResult(name: name, observant: min(first, third), apple: second, unit: unit, summary: summary))
    }

    add("tracked-read", "read one field inside a tracking scope", observant: {
      let model = ObservantCounter()
      return timing.nanosecondsPerOperation { operations in
        withTracking {
          var sum = 0
          for _ in 0..<operations { sum &+= model.count }
          blackHole(sum)
        } onChange: {}
        model.count += 1  // fires and removes the scope's observer
      }
    }, apple: {
      let model = AppleCounter()
      return timing.nanosecondsPerOperation { operations in
        withObservationTracking {
          var sum = 0
          for _ in 0..<operations { sum &+= model.count }
          blackHole(sum)
        } onChange: {}
        model.count += 1
      }
    })

    add("untracked-read", "read one field with no tracking scope active", observant: {
      let model = ObservantCounter()
      return timing.nanosecondsPerOperation { operations in
        var sum = 0
        for _ in 0..<operations { sum &+= model.count }
        blackHole(sum)
      }
    }, apple: {
      let model = AppleCounter()
      return timing.nanosecondsPerOperation { operations in
        var sum = 0
        for _ in 0..<operations { sum &+= model.count }
        blackHole(sum)
      }
    })

    let plain = PlainCounter()
    progress("plain-read")
    let plainRead = timing.nanosecondsPerOperation { operations in
      var sum = 0
      for _ in 0..<operations { sum &+= plain.count }
      blackHole(sum)
    }
    results.append(
      MicroResult(
        name: "plain-read", observant: plainRead, apple: plainRead, unit: "ns",
        summary: "read a plain stored property (the floor for both)"))

    add("write-no-observers", "write one field nobody observes", observant: {
      let model = ObservantCounter()
      return timing.nanosecondsPerOperation { operations in
        for value in 0..<operations { model.count = value }
      }
    }, apple: {
      let model = AppleCounter()
      return timing.nanosecondsPerOperation { operations in
        for value in 0..<operations { model.count = value }
      }
    })

    for observers in [1, 10, 100] {
      add(
        "write-\(observers)-observer\(observers == 1 ? "" : "s")",
        "write a field \(observers) persistent observers read; each reads it again",
        observant: {
          let model = ObservantCounter()
          let reactions = (0..<observers).map { _ in Reaction { blackHole(model.count) } }
          let result = timing.nanosecondsPerOperation { operations in
            for value in 1...operations { model.count = value }
          }
          withExtendedLifetime(reactions) {}
          return result
        },
        apple: {
          let model = AppleCounter()
          // Apple's observers are one-shot: a persistent observer re-registers after each change.
          func observe() { withObservationTracking { blackHole(model.count) } onChange: {} }
          for _ in 0..<observers { observe() }
          return timing.nanosecondsPerOperation { operations in
            for value in 1...operations {
              model.count = value
              for _ in 0..<observers { observe() }
            }
          }
        })
    }

    for fields in [1, 10, 100] {
      add(
        "scope-\(fields)-field\(fields == 1 ? "" : "s")",
        "a tracking scope reading \(fields) field\(fields == 1 ? "" : "s"): record and install",
        observant: {
          let model = WideObservantModel()
          return timing.nanosecondsPerOperation(cleanup: { model.f0 += 1 }) { operations in
            for _ in 0..<operations { withTracking { blackHole(model.read(fields)) } onChange: {} }
          }
        },
        apple: {
          let model = WideAppleModel()
          return timing.nanosecondsPerOperation(cleanup: { model.f0 += 1 }) { operations in
            for _ in 0..<operations { withObservationTracking { blackHole(model.read(fields)) } onChange: {} }
          }
        })
    }

    add("fire-reinstall", "a one-field scope fires on a write and is installed again", observant: {
      let model = ObservantCounter()
      return timing.nanosecondsPerOperation { operations in
        for value in 1...operations {
          withTracking { blackHole(model.count) } onChange: {}
          model.count = value
        }
      }
    }, apple: {
      let model = AppleCounter()
      return timing.nanosecondsPerOperation { operations in
        for value in 1...operations {
          withObservationTracking { blackHole(model.count) } onChange: {}
          model.count = value
        }
      }
    })

    let registrations = quick ? 2_000 : 20_000
    add("bytes-per-registration", "heap bytes per live one-field scope", unit: "bytes", observant: {
      let models = (0..<registrations).map { _ in ObservantCounter() }
      return heapBytesPerItem(count: registrations) { count in
        for index in 0..<count { withTracking { blackHole(models[index].count) } onChange: {} }
      } ?? .nan
    }, apple: {
      let models = (0..<registrations).map { _ in AppleCounter() }
      return heapBytesPerItem(count: registrations) { count in
        for index in 0..<count { withObservationTracking { blackHole(models[index].count) } onChange: {} }
      } ?? .nan
    })

    add("bytes-per-instance", "heap bytes per unobserved one-field instance", unit: "bytes", observant: {
      heapBytesPerItem(count: registrations) { count in (0..<count).map { _ in ObservantCounter() } } ?? .nan
    }, apple: {
      heapBytesPerItem(count: registrations) { count in (0..<count).map { _ in AppleCounter() } } ?? .nan
    })
    return results
  }
}

