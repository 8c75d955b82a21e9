/// Something went wrong while re-running reactions, reported instead of crashing or looping.
public struct ReactionDiagnostic: Sendable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Sendable, Equatable {
    /// Reactions kept writing what other reactions (or they themselves) read, and the flush
    /// stopped after `Reaction.maximumFlushRounds` rounds. The reactions listed were dirty when it
    /// stopped and did not re-run; their dependencies are unchanged, so the next change to them
    /// re-runs them normally.
    case runawayFlush
  }

  public let kind: Kind
  /// Names of the reactions involved.
  public let reactionNames: [String]
  /// A message for people.
  public let message: String

  public var description: String { message }

  internal static func runawayFlush(rounds: Int, reactions: [ReactionCore]) -> ReactionDiagnostic {
    var names: [String] = []
    for reaction in reactions where !names.contains(reaction.name) { names.append(reaction.name) }
    return ReactionDiagnostic(
      kind: .runawayFlush,
      reactionNames: names,
      message: """
        Observant: reactions did not settle after \(rounds) rounds and were stopped; still dirty: \
        \(names.joined(separator: ", ")). A reaction writes state that another reaction (or itself) \
        reads, back and forth without reaching a fixed point.
        """)
  }
}

extension Reaction {
  /// How many rounds a flush may take before it stops with a `.runawayFlush` diagnostic.
  /// Override for a task with `Reaction.$maximumFlushRounds.withValue(_:operation:)`.
  @TaskLocal public static var maximumFlushRounds = 100

  /// Receives diagnostics raised on this task; when `nil` (the default), they are printed to
  /// standard error. Tests can capture them with `Reaction.$diagnosticHandler.withValue(_:operation:)`.
  @TaskLocal public static var diagnosticHandler: (@Sendable (ReactionDiagnostic) -> Void)?

  internal static func report(_ diagnostic: ReactionDiagnostic) {
    if let diagnosticHandler {
      diagnosticHandler(diagnostic)
    } else {
      printToStandardError(diagnostic.message)
    }
  }
}
