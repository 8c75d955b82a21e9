import ObservantObservationBridge

/// The ways of building the same UI that the scenarios compare.
enum Strategy: String, CaseIterable, Sendable {
  /// `Store` + `ObservantHarness`: per-field tracking, one store per row or child.
  case observant
  /// The same stores and screens, rendered through Apple's `withObservationTracking` (the render
  /// simulator's `AppleObservationTracking`, what SwiftUI does) with `ObservantObservationBridge`
  /// enabled: Apple's tracking sees Observant's fields.
  case observantAppleBridge = "observant-apple-bridge"
  /// Apple `@Observable` model holding value types (an array of row structs, a struct child):
  /// the plain SwiftUI way. Rows read `model.rows[i]`, so they depend on the whole array.
  case appleValueArray = "apple-value-array"
  /// Apple `@Observable` model holding one `@Observable` class per row or child feature.
  case appleRowClasses = "apple-row-classes"
  /// Every render depends on the whole state: every action re-runs every live body.
  case wholeState = "whole-state"
  /// Every action recomputes every live body's view state (`Equatable`); a body re-runs only if
  /// its view state changed.
  case equatableDiffing = "equatable-diffing"

  /// The strategies whose counts must equal the minimal count.
  static let observantStrategies: [Strategy] = [.observant, .observantAppleBridge]

  /// Whether the strategy renders through Apple's tracking with the observation bridge on (it is
  /// turned on for that strategy's screens only).
  var usesObservationBridge: Bool { self == .observantAppleBridge }

  var summary: String {
    switch self {
    case .observant: "Store + ObservantHarness: each body depends on the fields it read"
    case .observantAppleBridge:
      "the same Store screens rendered through Apple's withObservationTracking, with ObservantObservationBridge enabled"
    case .appleValueArray: "Apple @Observable model holding value types; rows read model.rows[i]"
    case .appleRowClasses: "Apple @Observable model holding one @Observable class per row / child"
    case .wholeState: "every body depends on the whole state: every action re-runs every live body"
    case .equatableDiffing:
      "every action recomputes each live body's view state; a body re-runs only if it changed (in parentheses: view-state computations)"
    }
  }
}

/// What a step counted for one strategy.
struct StepCount {
  /// Body runs (renders).
  var runs: Int
  /// View-state computations, for the diffing strategy.
  var computations: Int? = nil
}

/// A count a screen can report that is not the result of a change.
enum ScreenMeasure: Sendable {
  /// Bodies run by the initial render.
  case initialRender
  /// Per-row stores or objects created (`nil` where a strategy has none).
  case rowStoresCreated
  /// Renders of the stale cell between its row's deletion and its reuse.
  case staleCellRenders
  /// Renders of the reused cell since it was bound to the new row.
  case reusedCellRenders
}

/// One strategy's implementation of a scenario's UI: a model, a render tree (or a cell pool) with
/// the strategy's tracking, and the changes. Every strategy renders with `ObservantHarness`; only
/// the tracking differs: `ReactionTracking` (Observant), `AppleObservationTracking` (both Apple
/// strategies), `BroadcastTracking` (whole-state and diffing).
@MainActor
protocol ScenarioScreen<Change>: AnyObject {
  associatedtype Change
  /// Applies `change` as one step (one action, then the re-renders it causes) and counts.
  func apply(_ change: Change) -> StepCount?
  func measure(_ measure: ScreenMeasure) -> StepCount?
}

extension ScenarioScreen {
  func measure(_ measure: ScreenMeasure) -> StepCount? { nil }
}

/// One measured step of a scenario script.
struct ScriptStep<Change: Sendable>: Sendable {
  enum Kind: Sendable {
    case change(Change)
    case measure(ScreenMeasure)
  }

  /// `<scenario>.<step>`, e.g. `list.increment-middle-row`.
  let name: String
  /// The least any correct UI could re-run.
  let minimal: Int
  /// What happens and what must re-run, for the report.
  let what: String
  let kind: Kind

  static func change(_ name: String, _ change: Change, minimal: Int, _ what: String) -> Self {
    ScriptStep(name: name, minimal: minimal, what: what, kind: .change(change))
  }

  static func measure(_ name: String, _ measure: ScreenMeasure, minimal: Int, _ what: String) -> Self {
    ScriptStep(name: name, minimal: minimal, what: what, kind: .measure(measure))
  }
}

/// The counts of one step for every strategy.
struct ScenarioResult {
  let name: String
  let minimal: Int
  let what: String
  /// Whether the count is of body runs (renders), not of objects created.
  let countsBodyRuns: Bool
  /// Missing: the strategy cannot express the step ("n/a").
  var counts: [Strategy: StepCount] = [:]

  /// Observant's count equals the minimal count, through its own reactions and through Apple's
  /// tracking (the bridge).
  var passes: Bool { Strategy.observantStrategies.allSatisfy { counts[$0]?.runs == minimal } }
}

/// Runs `steps` in order on a fresh screen of each strategy (a strategy without a screen is n/a
/// for the whole script).
@MainActor
func runScript<Change: Sendable>(
  _ steps: [ScriptStep<Change>],
  _ screens: [Strategy: @MainActor () -> (any ScenarioScreen<Change>)?]
) -> [ScenarioResult] {
  var results = steps.map { step in
    var countsBodyRuns = true
    if case .measure(.rowStoresCreated) = step.kind { countsBodyRuns = false }
    return ScenarioResult(name: step.name, minimal: step.minimal, what: step.what, countsBodyRuns: countsBodyRuns)
  }
  for strategy in Strategy.allCases {
    // The bridge is switched on and off here, on the main actor, while no other thread reads
    // tracked fields (as the switch requires).
    if strategy.usesObservationBridge { ObservationBridge.isEnabled = true }
    defer { if strategy.usesObservationBridge { ObservationBridge.isEnabled = false } }
    guard let make = screens[strategy], let screen = make() else { continue }
    for (index, step) in steps.enumerated() {
      let count: StepCount?
      switch step.kind {
      case .change(let change): count = screen.apply(change)
      case .measure(let measure): count = screen.measure(measure)
      }
      results[index].counts[strategy] = count
    }
  }
  return results
}
