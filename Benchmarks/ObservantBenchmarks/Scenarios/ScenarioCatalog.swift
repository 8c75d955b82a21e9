/// Every scenario script, in report order.
enum ScenarioCatalog {
  @MainActor
  static func run(progress: (String) -> Void) -> [ScenarioResult] {
    var results: [ScenarioResult] = []
    func add<Change: Sendable>(
      _ name: String, _ steps: [ScriptStep<Change>],
      _ screens: [Strategy: @MainActor () -> (any ScenarioScreen<Change>)?]
    ) {
      progress("scenarios: \(name)")
      results += runScript(steps, screens)
    }
    add("counter", CounterScenario.steps, CounterScenario.screens)
    add("list", ListScenario.steps, ListScenario.screens(ids: Array(1...5)))
    add("optional", OptionalChildScenario.steps, OptionalChildScenario.screens)
    add("destination", DestinationScenario.steps, DestinationScenario.screens)
    add("siblings", SiblingsScenario.steps, SiblingsScenario.screens)
    add("equal-value (counter)", CounterScenario.equalValueSteps, CounterScenario.screens)
    add("equal-value (list)", ListScenario.equalValueSteps, ListScenario.screens(ids: Array(1...5)))
    add("batch", ListScenario.batchSteps, ListScenario.screens(ids: Array(1...5)))
    add("stale-cell", StaleCellScenario.steps, StaleCellScenario.screens)
    add("first-3-of-1000", ListScenario.firstRowsSteps, ListScenario.screens(ids: Array(1...1000), shown: 3))
    return results
  }
}
