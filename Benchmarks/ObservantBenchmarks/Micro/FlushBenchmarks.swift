import Observant

/// The cost of a transaction that dirties one reaction while `live` reactions exist: a flush must
/// only touch what is dirty, so this must not grow with `live`.
enum FlushBenchmarks {
  struct Result {
    let liveReactions: Int
    let nanosecondsPerTransaction: Double
  }

  static func run(_ timing: Timing, counts: [Int], progress: (String) -> Void) -> [Result] {
    counts.map { live in
      progress("flush with \(live) live reactions")
      let models = (0..<live).map { _ in ObservantCounter() }
      let reactions = models.map { model in Reaction { blackHole(model.count) } }
      let target = models[live / 2]
      let nanoseconds = timing.nanosecondsPerOperation { operations in
        for value in 1...operations { target.count = value }
      }
      withExtendedLifetime(reactions) {}
      return Result(liveReactions: live, nanosecondsPerTransaction: nanoseconds)
    }
  }
}
