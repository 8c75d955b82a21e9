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
  /// Objects the read benchmarks cycle through, indexed by the loop counter: a loop reading one
  /// object's field again and again lets the optimizer keep the value in a register (a plain read
  /// measured 0.00 ns), and would let a recorder that remembers only the previous access look
  /// better than it is.
  static let ringSize = 16

  /// One timed micro-benchmark: the same work done by Observant and by Apple's Observation.
  struct Pair {
    let name: String
    let summary: String
    let observant: Workload
    let apple: Workload
  }

  /// The timed micro-benchmarks, in report order. Each call builds fresh models. `plain-read` and
  /// `plain-write` (the floor) use the same workload on both sides.
  static func pairs() -> [Pair] {
    var pairs: [Pair] = []
    func add(_ name: String, _ summary: String, observant: Workload, apple: Workload) {
      pairs.append(Pair(name: name, summary: summary, observant: observant, apple: apple))
    }
    let mask = ringSize - 1

    do {
      let observantRing = (0..<ringSize).map { _ in ObservantCounter() }
      let appleRing = (0..<ringSize).map { _ in AppleCounter() }
      add(
        "tracked-read", "read one field inside a tracking scope (a ring of \(ringSize) objects)",
        observant: Workload(
          run: { operations in
            withTracking {
              var sum = 0
              for index in 0..<operations { sum &+= observantRing[index & mask].count }
              blackHole(sum)
            } onChange: {
            }
          },
          cleanup: { for model in observantRing { model.count += 1 } }),  // fires the scope's observers
        apple: Workload(
          run: { operations in
            withObservationTracking {
              var sum = 0
              for index in 0..<operations { sum &+= appleRing[index & mask].count }
              blackHole(sum)
            } onChange: {
            }
          },
          cleanup: { for model in appleRing { model.count += 1 } }))

      add(
        "untracked-read", "read one field with no tracking scope active (a ring of \(ringSize) objects)",
        observant: Workload { operations in
          var sum = 0
          for index in 0..<operations { sum &+= observantRing[index & mask].count }
          blackHole(sum)
        },
        apple: Workload { operations in
          var sum = 0
          for index in 0..<operations { sum &+= appleRing[index & mask].count }
          blackHole(sum)
        })
    }

    do {
      let plainRing = (0..<ringSize).map { _ in PlainCounter() }
      let plainRead = Workload { operations in
        var sum = 0
        for index in 0..<operations { sum &+= plainRing[index & mask].count }
        blackHole(sum)
      }
      add(
        "plain-read", "read a plain stored property, same ring (the floor for both)", observant: plainRead,
        apple: plainRead)
    }

    do {
      // Through the same ring as the reads: a loop of writes to one object would let the
      // optimizer keep only the last store.
      let observantRing = (0..<ringSize).map { _ in ObservantCounter() }
      let appleRing = (0..<ringSize).map { _ in AppleCounter() }
      add(
        "write-no-observers", "write one field nobody observes (a ring of \(ringSize) objects)",
        observant: Workload { operations in
          for value in 0..<operations { observantRing[value & mask].count = value }
        },
        apple: Workload { operations in
          for value in 0..<operations { appleRing[value & mask].count = value }
        })
      let plainRing = (0..<ringSize).map { _ in PlainCounter() }
      let plainWrite = Workload { operations in
        for value in 0..<operations { plainRing[value & mask].count = value }
      }
      add(
        "plain-write", "write a plain stored property, same ring (the floor for both)", observant: plainWrite,
        apple: plainWrite)
    }

    for observers in [1, 10, 100] {
      let observantModel = ObservantCounter()
      let reactions = (0..<observers).map { _ in Reaction { blackHole(observantModel.count) } }
      let appleModel = AppleCounter()
      // Apple's observers are one-shot: a persistent observer re-registers after each change.
      func observe() {
        withObservationTracking {
          blackHole(appleModel.count)
        } onChange: {
        }
      }
      for _ in 0..<observers { observe() }
      var observantValue = 0
      var appleValue = 0
      add(
        "write-\(observers)-observer\(observers == 1 ? "" : "s")",
        "write a field \(observers) persistent observers read; each reads it again",
        observant: Workload { operations in
          // The workload keeps the reactions alive.
          withExtendedLifetime(reactions) {
            for _ in 0..<operations {
              observantValue &+= 1
              observantModel.count = observantValue
            }
          }
        },
        apple: Workload { operations in
          for _ in 0..<operations {
            appleValue &+= 1
            appleModel.count = appleValue
            for _ in 0..<observers { observe() }
          }
        })
    }

    for fields in [1, 10, 100] {
      let observantModel = WideObservantModel()
      let appleModel = WideAppleModel()
      add(
        "scope-\(fields)-field\(fields == 1 ? "" : "s")",
        "a tracking scope reading \(fields) field\(fields == 1 ? "" : "s"): record and install",
        observant: Workload(
          run: { operations in
            for _ in 0..<operations {
              withTracking {
                blackHole(observantModel.read(fields))
              } onChange: {
              }
            }
          },
          cleanup: { observantModel.f0 += 1 }),
        apple: Workload(
          run: { operations in
            for _ in 0..<operations {
              withObservationTracking {
                blackHole(appleModel.read(fields))
              } onChange: {
              }
            }
          },
          cleanup: { appleModel.f0 += 1 }))
    }

    do {
      let observantModel = ObservantCounter()
      let appleModel = AppleCounter()
      var observantValue = 0
      var appleValue = 0
      add(
        "fire-reinstall", "a one-field scope fires on a write and is installed again",
        observant: Workload { operations in
          for _ in 0..<operations {
            withTracking {
              blackHole(observantModel.count)
            } onChange: {
            }
            observantValue &+= 1
            observantModel.count = observantValue
          }
        },
        apple: Workload { operations in
          for _ in 0..<operations {
            withObservationTracking {
              blackHole(appleModel.count)
            } onChange: {
            }
            appleValue &+= 1
            appleModel.count = appleValue
          }
        })
    }

    return pairs
  }

  static func run(_ timing: Timing, quick: Bool, progress: (String) -> Void) -> [MicroResult] {
    var results: [MicroResult] = []
    for pair in pairs() {
      progress(pair.name)
      if pair.name.hasPrefix("plain-") {
        let floor = timing.nanosecondsPerOperation(pair.observant.run)
        results.append(MicroResult(name: pair.name, observant: floor, apple: floor, unit: "ns", summary: pair.summary))
      } else {
        let medians = timing.interleaved([pair.observant, pair.apple])
        results.append(
          MicroResult(name: pair.name, observant: medians[0], apple: medians[1], unit: "ns", summary: pair.summary))
      }
    }

    let registrations = quick ? 2_000 : 20_000
    func bytes(_ name: String, _ summary: String, observant: () -> Double?, apple: () -> Double?) {
      progress(name)
      // Allocation is deterministic enough that the median of three settles it.
      let observantBytes = median((0..<3).map { _ in observant() ?? .nan })
      let appleBytes = median((0..<3).map { _ in apple() ?? .nan })
      results.append(
        MicroResult(name: name, observant: observantBytes, apple: appleBytes, unit: "bytes", summary: summary))
    }
    bytes(
      "bytes-per-registration", "heap bytes per live one-field scope",
      observant: {
        let models = (0..<registrations).map { _ in ObservantCounter() }
        return heapBytesPerItem(count: registrations) { count in
          for index in 0..<count {
            withTracking {
              blackHole(models[index].count)
            } onChange: {
            }
          }
        }
      },
      apple: {
        let models = (0..<registrations).map { _ in AppleCounter() }
        return heapBytesPerItem(count: registrations) { count in
          for index in 0..<count {
            withObservationTracking {
              blackHole(models[index].count)
            } onChange: {
            }
          }
        }
      })
    bytes(
      "bytes-per-instance", "heap bytes per unobserved one-field instance",
      observant: { heapBytesPerItem(count: registrations) { count in (0..<count).map { _ in ObservantCounter() } } },
      apple: { heapBytesPerItem(count: registrations) { count in (0..<count).map { _ in AppleCounter() } } })
    return results
  }
}
