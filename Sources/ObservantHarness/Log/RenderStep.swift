import Observant

/// The bodies that ran during one step of a `RenderTree`, in the order they started.
///
/// ```swift
/// let step = tree.step { model.state.rows[id: 7] = Row(id: 7) }
/// step.runs          // ["List", "Row[7]"]
/// step.count(of: "Row[7]")   // 1
/// print(step)        // List.body x1, Row[7].body x1
/// ```
public struct RenderStep: Sendable, Equatable, CustomStringConvertible {
  /// The name given to `RenderTree.step` ("initial" for the build, `RenderTree.betweenStepsName`
  /// for runs outside any step).
  public let name: String
  /// Node names, one per body run, in the order the runs started (a parent before the children
  /// its run created).
  ///
  /// - Complexity: O(*r*) in the runs: made when asked for (``runCount`` is O(1)).
  public var runs: [String] {
    guard runCount > 0 else { return [] }
    guard let rest, !rest.laterRuns.isEmpty else { return [firstRun] }
    return [firstRun] + rest.laterRuns
  }

  /// How many bodies ran in this step (`runs.count`).
  ///
  /// - Complexity: O(1).
  public let runCount: Int

  /// The first run ("" when none ran), kept inline, and the others with the causes, kept apart
  /// only when there are any: a step in which one body ran (a row action, say) allocates nothing,
  /// and the caller that drops it releases two strings and a `nil` (each array and optional
  /// string the step held cost the caller a release through its type's value witnesses).
  private let firstRun: String
  private let rest: RenderStepRest?

  /// The runs after the first.
  private var laterRuns: [String] { rest?.laterRuns ?? [] }

  /// For each run in `runs`, what dirtied it (see `Reaction.lastRunCauses`): empty unless the
  /// tracking records causes (`ReactionTracking(recordingCauses: true)`), and for first runs.
  public var causes: [[RunCause]] {
    recordedCauses.isEmpty ? Array(repeating: [], count: runs.count) : recordedCauses
  }

  /// `causes`, or nothing when no run has a cause (most steps): a step then keeps no array of
  /// empty arrays.
  private var recordedCauses: [[RunCause]] { rest?.recordedCauses ?? [] }

  /// - Parameter causes: one entry per run, or fewer (the missing ones have no cause).
  internal init(name: String, runs: [String], causes: [[RunCause]] = []) {
    self.init(name: name, firstRun: runs.first, laterRuns: Array(runs.dropFirst()), causes: causes)
  }

  /// - Parameters:
  ///   - firstRun: the first run, if any.
  ///   - laterRuns: the runs after the first (empty without a first).
  ///   - causes: one entry per run, or fewer (the missing ones have no cause).
  internal init(name: String, firstRun: String?, laterRuns: [String], causes: [[RunCause]] = []) {
    self.name = name
    self.firstRun = firstRun ?? ""
    let runCount = firstRun == nil ? 0 : 1 + laterRuns.count
    self.runCount = runCount
    let recordedCauses =
      causes.allSatisfy({ $0.isEmpty }) ? [] : causes + Array(repeating: [], count: max(0, runCount - causes.count))
    rest =
      laterRuns.isEmpty && recordedCauses.isEmpty
      ? nil : RenderStepRest(laterRuns: laterRuns, recordedCauses: recordedCauses)
  }

  /// A step in which at most one body ran, without causes.
  internal init(name: String, onlyRun: String?) {
    self.name = name
    firstRun = onlyRun ?? ""
    runCount = onlyRun == nil ? 0 : 1
    rest = nil
  }

  /// Steps are equal when their names, runs and causes are.
  public static func == (lhs: RenderStep, rhs: RenderStep) -> Bool {
    lhs.name == rhs.name && lhs.runCount == rhs.runCount && lhs.firstRun == rhs.firstRun
      && lhs.laterRuns == rhs.laterRuns && lhs.recordedCauses == rhs.recordedCauses
  }

  /// What dirtied the runs of the nodes named `nodeName` in this step, each cause once, in the
  /// order they were reported.
  public func causes(of nodeName: String) -> [RunCause] {
    var result: [RunCause] = []
    for (name, causes) in zip(runs, recordedCauses) where name == nodeName {
      for cause in causes where !result.contains(cause) { result.append(cause) }
    }
    return result
  }

  /// How many times bodies of nodes named `nodeName` ran in this step.
  ///
  /// - Complexity: O(*r*) in the runs of the step.
  public func count(of nodeName: String) -> Int {
    guard runCount > 0 else { return 0 }
    return laterRuns.reduce(firstRun == nodeName ? 1 : 0) { total, name in name == nodeName ? total + 1 : total }
  }

  /// Runs per node name.
  ///
  /// - Complexity: O(*r*) in the runs of the step.
  public var counts: [String: Int] {
    runs.reduce(into: [:]) { counts, name in counts[name, default: 0] += 1 }
  }

  /// The runs per node, in the order of each node's first run: `"List.body x1, Row[7].body x1"`,
  /// or `"nothing ran"`. With causes recorded, each node's follow in parentheses:
  /// `"Row[3].body x1 (Row.count 0 -> 1)"`.
  public var description: String {
    guard runCount > 0 else { return "nothing ran" }
    var order: [String] = []
    var counts: [String: Int] = [:]
    for name in runs {
      if counts[name] == nil { order.append(name) }
      counts[name, default: 0] += 1
    }
    // Causes per name in one pass (a step may run 100,000 bodies).
    var causesByName: [String: [RunCause]] = [:]
    for (name, causes) in zip(runs, recordedCauses) where !causes.isEmpty {
      for cause in causes where !(causesByName[name]?.contains(cause) ?? false) {
        causesByName[name, default: []].append(cause)
      }
    }
    return order.map { name in
      let causes = causesByName[name] ?? []
      let explained = causes.isEmpty ? "" : " (" + causes.map(\.description).joined(separator: ", ") + ")"
      return "\(name).body x\(counts[name]!)\(explained)"
    }.joined(separator: ", ")
  }
}

/// The runs of a step after the first, and the causes of its runs (see `RenderStep`).
private final class RenderStepRest: Sendable {
  let laterRuns: [String]
  let recordedCauses: [[RunCause]]

  init(laterRuns: [String], recordedCauses: [[RunCause]]) {
    self.laterRuns = laterRuns
    self.recordedCauses = recordedCauses
  }
}
