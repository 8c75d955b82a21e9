/// Every step of a `RenderTree` so far, starting with "initial".
///
/// ```swift
/// print(tree.log)
/// // initial: List.body x1, Row[1].body x1, Row[2].body x1
/// // bump: Row[2].body x1
/// ```
public struct RenderLog: Sendable, Equatable, CustomStringConvertible {
  /// The steps, oldest first.
  public let steps: [RenderStep]

  internal init(steps: [RenderStep]) {
    self.steps = steps
  }

  /// The latest step.
  public var last: RenderStep? { steps.last }

  /// How many times bodies of nodes named `nodeName` ran over all steps (disposed nodes
  /// included, unlike `RenderTree.runCount(of:)`).
  ///
  /// - Complexity: O(*r*) in all runs logged.
  public func totalRuns(of nodeName: String) -> Int {
    steps.reduce(0) { $0 + $1.count(of: nodeName) }
  }

  /// One line per step: `"<step>: List.body x1, Row[7].body x1"`.
  public var description: String {
    steps.map { "\($0.name): \($0.description)" }.joined(separator: "\n")
  }
}
