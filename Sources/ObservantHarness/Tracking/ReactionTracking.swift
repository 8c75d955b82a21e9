import Observant

/// Observant's tracking, the default of ``RenderTree`` and ``CellPool``: each body runs inside its
/// own `Reaction`, so it re-runs exactly when a field it read changed, once per transaction, in
/// creation order; a step is one `transaction`.
///
/// ```swift
/// let tree = RenderTree("List", tracking: ReactionTracking()) { list in ... }   // same as no argument
/// ```
///
/// Reactions run at the end of the transaction that dirtied them, so nothing waits between
/// steps: a write outside any step re-runs its readers at once (logged as
/// ``RenderTree/betweenStepsName``).
///
/// With `scheduling: .mainActor`, bodies re-run the way UIKit updates views: on the main actor's
/// next turn, once however many transactions dirtied them, with the latest values. A step then
/// logs no re-runs (they happen after it); count them on the cells (``Cell/renderCount``):
///
/// ```swift
/// let pool = CellPool("Cell", tracking: ReactionTracking(scheduling: .mainActor))
/// ```
public struct ReactionTracking: RenderTracking {
  /// Whether bodies keep the causes of their runs, for the tree's log
  /// (`Row[3].body x1 (Row.count 0 -> 1)`).
  public let recordingCauses: Bool
  /// When bodies re-run after a change (see `ReactionScheduling`).
  public let scheduling: ReactionScheduling

  /// - Parameters:
  ///   - scheduling: when bodies re-run: at the end of the transaction (the default), or on the
  ///     main actor's next turn (`.mainActor`).
  ///   - recordingCauses: keep, for every run of a body, the field writes that dirtied it (see
  ///     `Reaction.lastRunCauses`); ``RenderStep`` prints them. Off by default: it costs nothing
  ///     then.
  public init(scheduling: ReactionScheduling = .synchronous, recordingCauses: Bool = false) {
    self.scheduling = scheduling
    self.recordingCauses = recordingCauses
  }

  /// Creates the body's `Reaction` (`ownedByParent: false`: the tree and the pool manage the
  /// lifetimes), which runs it now, belonging to no actor: it re-runs on the thread whose
  /// transaction dirtied it. Trees and pools call ``track(_:isolation:)`` instead.
  ///
  /// - Complexity: one `Reaction`, with one closure context: what a node cost before trackings.
  public func track(_ body: any RenderBody) -> any RenderSubscription {
    track(body, isolation: nil)
  }

  /// Creates the body's `Reaction`, belonging to `isolation`, and runs it now. A reaction of the
  /// main actor re-runs only on the main actor: a write on another thread (to a copy of the
  /// state it read, say, which shares its registrars) hands the re-run to the main actor's next
  /// turn instead of running the body on the writing thread. Outside any actor (`nil`), it
  /// re-runs on the thread whose transaction dirtied it.
  ///
  /// - Complexity: one `Reaction`, with one closure context: what a node cost before trackings.
  public func track(_ body: any RenderBody, isolation: (any Actor)?) -> any RenderSubscription {
    // A tree's node is captured as itself: a closure context of one reference (an existential
    // takes two words), made per rendered row.
    if let node = body as? RenderNode {
      return Reaction(
        node.name, ownedByParent: false, scheduling: scheduling, recordingCauses: recordingCauses,
        isolation: isolation
      ) { [unowned node] in
        // Held for the whole run: a body may dispose of its own node (tear its tree down, release
        // the last reference to its tree); `finishRun()` then does nothing.
        let node = node
        node.run()
        // A leaf that declared nothing reconciles nothing: no user code, no reads to keep out.
        if node.reconciles { withoutTracking { node.finishRun() } } else { node.finishRun() }
      }
    }
    return Reaction(
      body.name, ownedByParent: false, scheduling: scheduling, recordingCauses: recordingCauses, isolation: isolation
    ) {
      [unowned body] in
      // Held for the whole run: a cell's render may enqueue its own cell, or release its pool.
      let body = body
      body.run()
      // Comparing inputs may call a user's `==` that reads tracked fields: those reads must not
      // become this body's dependencies. Children track their own reads in their own reactions.
      withoutTracking { body.finishRun() }
    }
  }

  /// `transaction(mutation)`: the reactions it dirtied re-run once when it ends.
  public func step(_ mutation: () throws -> Void) rethrows {
    try transaction(mutation)
  }

  /// Nothing waits: reactions run when the transaction that dirtied them ends.
  public func runPendingBodies() {}
}

extension Reaction: RenderSubscription {}
