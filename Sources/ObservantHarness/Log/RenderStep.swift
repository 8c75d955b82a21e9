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
  public let runs: [String]

  internal init(name: String, runs: [String]) {
    self.name = name
    self.runs = runs
  }

  /// How many times bodies of nodes named `nodeName` ran in this step.
  ///
  /// - Complexity: O(*r*) in the runs of the step.
  public func count(of nodeName: String) -> Int {
    runs.reduce(0) { total, name in name == nodeName ? total + 1 : total }
  }

  /// Runs per node name.
  ///
  /// - Complexity: O(*r*) in the runs of the step.
  public var counts: [String: Int] {
    runs.reduce(into: [:]) { counts, name in counts[name, default: 0] += 1 }
  }

  /// The runs per node, in the order of each node's first run: `"List.body x1, Row[7].body x1"`,
  /// or `"nothing ran"`.
  public var description: String {
    guard !runs.isEmpty else { return "nothing ran" }
    var order: [String] = []
    var counts: [String: Int] = [:]
    for name in runs {
      if counts[name] == nil { order.append(name) }
      counts[name, default: 0] += 1
    }
    return order.map { "\($0).body x\(counts[$0]!)" }.joined(separator: ", ")
  }
}
