/// Something went wrong while re-running reactions, reported instead of crashing or looping.
public struct ReactionDiagnostic: Sendable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Sendable, Equatable {
    /// Reactions kept writing what other reactions (or they themselves) read, and the flush
    /// stopped after `Reaction.maximumFlushRounds` rounds. The reactions listed were dirty when it
    /// stopped and did not re-run; their dependencies are unchanged, so the next change to them
    /// re-runs them normally.
    ///
    /// Also reported for a reaction scheduled on the main actor (`ReactionScheduling.mainActor`)
    /// whose own runs dirtied it again in `Reaction.maximumFlushRounds` consecutive turns: it is
    /// not scheduled again until a change made outside its runs dirties it.
    case runawayFlush
    /// `Reaction.maximumFlushRounds` was set to a number below 1; the default (100) was used.
    case invalidFlushLimit
  }

  /// What happened.
  public let kind: Kind
  /// Names of the reactions involved.
  public let reactionNames: [String]
  /// A message for people.
  public let message: String

  public var description: String { message }
}

/// The limits and the reporting of flushes. The policy is the scheduled observers' own (reactions
/// publish it as `Reaction.maximumFlushRounds` and `Reaction.diagnosticHandler`), reached through
/// the class of the observers being flushed, so that this layer names nothing above it.
internal enum FlushLimits {
  static var defaultRounds: Int { 100 }

  /// The limit in effect for a flush of `observers`: their policy's, or the default (reported) if
  /// that is not positive.
  static func maximumRounds(for observer: ScheduledObserver) -> Int {
    let policy = type(of: observer)
    let configured = policy.maximumFlushRounds
    guard configured < 1 else { return configured }
    policy.report(
      ReactionDiagnostic(
        kind: .invalidFlushLimit, reactionNames: [],
        message: """
          Observant: Reaction.maximumFlushRounds must be at least 1, got \(configured); \
          using the default, \(defaultRounds).
          """))
    return defaultRounds
  }

  static func reportRunaway(rounds: Int, observers: [ScheduledObserver]) {
    var names: [String] = []
    for observer in observers where !names.contains(observer.diagnosticName) { names.append(observer.diagnosticName) }
    guard let first = observers.first else { return }
    type(of: first).report(
      ReactionDiagnostic(
        kind: .runawayFlush,
        reactionNames: names,
        message: """
          Observant: reactions did not settle after \(rounds) rounds and were stopped; still dirty: \
          \(names.joined(separator: ", ")). A reaction writes state that another reaction (or itself) \
          reads, back and forth without reaching a fixed point.
          """))
  }
}
