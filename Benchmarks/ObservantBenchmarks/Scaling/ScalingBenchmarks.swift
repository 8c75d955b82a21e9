import ObservantHarness

/// One row mutation, re-render included, with N rows rendered: the cost must not grow with N
/// where only one row changed.
struct ScalingResult {
  let strategy: Strategy
  let rows: Int
  /// Median wall-clock nanoseconds of one action: the mutation and the re-renders it causes.
  let nanosecondsPerAction: Double
  /// Heap bytes retained per rendered row: the model, the render tree and the observation.
  let bytesPerRow: Double
  /// Bodies one action re-ran.
  let runsPerAction: Int
  let repetitions: Int
  /// Seconds to build the model and render every row.
  let buildSeconds: Double
}

enum ScalingBenchmarks {
  static let strategies: [Strategy] = [.observant, .appleValueArray, .appleRowClasses]
  static let standardSizes = [100, 1_000, 10_000, 100_000]
  static let quickSizes = [100, 1_000]

  /// Fewer repetitions for big N: a 100,000-row tree takes seconds to build, and the strategies
  /// that re-run every row take a noticeable fraction of a second per action.
  static func timing(rows: Int, quick: Bool) -> Timing {
    if quick { return Timing(repetitions: 3, targetNanoseconds: 2_000_000) }
    switch rows {
    case ..<10_000: return Timing(repetitions: 9, targetNanoseconds: 20_000_000)
    case ..<100_000: return Timing(repetitions: 7, targetNanoseconds: 20_000_000)
    default: return Timing(repetitions: 5, targetNanoseconds: 20_000_000)
    }
  }

  @MainActor
  static func run(sizes: [Int], quick: Bool, progress: (String) -> Void) -> [ScalingResult] {
    var results: [ScalingResult] = []
    // Each strategy builds a small screen first and lets it go, so that the heap table shows what
    // a rendered row costs, not the caches a library fills once per process (the first strategy
    // built would otherwise pay them in its smallest size, and the later ones would not).
    for strategy in strategies { _ = makeScreen(strategy, ids: Array(0..<10)) }
    for rows in sizes {
      let ids = Array(0..<rows)
      let target = rows / 2
      var screens: [any ScenarioScreen<ListChange>] = []
      var bytes: [Double] = []
      var buildSeconds: [Double] = []
      for strategy in strategies {
        progress("scaling: render \(rows) rows (\(strategy.rawValue))")
        let before = heapBytesInUse()
        var screen: (any ScenarioScreen<ListChange>)?
        let nanoseconds = Timing.elapsed { screen = makeScreen(strategy, ids: ids) }
        let after = heapBytesInUse()
        screens.append(screen!)
        buildSeconds.append(nanoseconds / 1e9)
        bytes.append(before.flatMap { before in after.map { Double($0 - before) / Double(rows) } } ?? .nan)
      }
      // One action first, to count what it re-runs (and to leave first-run costs out of the timing).
      let runs = screens.map { $0.apply(.increment(id: target))?.runs ?? -1 }
      let timing = timing(rows: rows, quick: quick)
      progress("scaling: time one row mutation with \(rows) rows (median of \(timing.repetitions))")
      let medians = timing.interleaved(
        screens.map { screen in
          Workload { operations in
            for _ in 0..<operations { _ = screen.apply(.increment(id: target)) }
          }
        })
      for (index, strategy) in strategies.enumerated() {
        results.append(
          ScalingResult(
            strategy: strategy, rows: rows, nanosecondsPerAction: medians[index], bytesPerRow: bytes[index],
            runsPerAction: runs[index], repetitions: timing.repetitions, buildSeconds: buildSeconds[index]))
      }
      progress("scaling: tear down \(rows) rows")
      screens.removeAll()
    }
    return results
  }

  @MainActor
  static func makeScreen(_ strategy: Strategy, ids: [Int]) -> any ScenarioScreen<ListChange> {
    switch strategy {
    case .observant: ObservantListScreen(ids: ids, shown: nil)
    case .observantAppleBridge: ObservantListScreen(ids: ids, shown: nil, tracking: AppleObservationTracking())
    case .appleValueArray: AppleValueListScreen(ids: ids, shown: nil)
    case .appleRowClasses: AppleClassListScreen(ids: ids, shown: nil)
    case .wholeState: PlainListScreen(ids: ids, shown: nil, policy: .wholeState)
    case .equatableDiffing: PlainListScreen(ids: ids, shown: nil, policy: .equatableDiffing)
    }
  }
}
