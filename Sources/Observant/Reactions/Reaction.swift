import Synchronization

/// A closure that re-runs whenever something it read changes: the persistent counterpart of
/// `withTracking`.
///
/// The body runs once, immediately, inside a tracking scope. Every field it reads becomes a
/// dependency. When a dependency changes, the reaction re-runs once, after the transaction that
/// changed it ends, and its dependencies become exactly what that run read (a branch not taken any
/// more stops triggering it).
///
/// ```swift
/// let label = Reaction("Header") {
///   print("\(model.title): \(model.count)")
/// }
/// model.count += 1           // prints once, after the write
/// transaction {
///   model.title = "Total"
///   model.count += 1
/// }                          // prints once, after the transaction
/// label.cancel()             // never runs again
/// ```
///
/// **Ownership.** A reaction created while another reaction's body runs is owned by it: the
/// parent cancels it when it re-runs or is cancelled. Pass `ownedByParent: false` to manage its
/// lifetime yourself. Otherwise a reaction lives as long as you keep a reference to it, and is
/// cancelled when that reference goes away.
///
/// **Order.** Dirty reactions run in creation order, so a parent runs before the reactions it
/// created. A reaction cancelled by an earlier one in the same flush does not run.
///
/// **Threads and isolation.** A reaction belongs to an isolation, fixed at creation: the
/// `isolation:` argument, by default the caller's (`#isolation`); when that is `nil` but the
/// reaction is created on the main actor (a synchronous nonisolated helper called from main-actor
/// code: the runtime's current executor is the main actor's), the main actor. Its first run happens at
/// once, in the initializer. After that:
///
/// - **Main actor.** A re-run happens only on the main actor. A transaction that ends on the
///   main actor re-runs it there, synchronously; one that ends on another thread (a background
///   thread writing a copy of the state it read, say) hands the re-run to the main actor's next
///   turn.
/// - **Another actor.** Likewise on that actor: synchronously when the dirtying transaction ends
///   on it, otherwise handed to it through a task. (On Apple platforms, where the runtime check
///   this needs is not available on every supported OS version, a re-run is always handed to the
///   actor, even from a transaction that ended on it.)
/// - **No actor.** A re-run happens on the thread whose transaction dirtied it, when that
///   transaction ends.
///
/// Handed-off re-runs are coalesced: however many transactions dirty the reaction before its
/// turn, it re-runs once, with the latest values. It never runs concurrently with itself: if it
/// is dirtied while it runs on another thread, that thread runs it again before returning.
///
/// **Scheduling.** With `.synchronous` (the default) re-runs follow the isolation as above. With
/// `.mainActor` every re-run is handed to the main actor and coalesced, whatever isolation the
/// reaction was created in: however many transactions dirty the reaction before the main
/// actor's next turn, it re-runs once then, with the latest values (the UIKit pattern of updating
/// views once per run loop turn). A `.mainActor` reaction whose own run dirties it again (it
/// writes what it reads, directly or through the reactions its writes re-run) is re-scheduled at
/// most `maximumFlushRounds` turns in a row: the next time is reported as a `.runawayFlush`
/// naming it, and it stays dirty, not cancelled, until a change made elsewhere (outside its own
/// runs) schedules it again. (The same bound holds for the re-runs of a custom actor's reaction
/// on Apple platforms, which are always handed off.)
public final class Reaction: Sendable {
  internal let core: ReactionCore

  /// Creates the reaction and runs `body` once, now.
  ///
  /// - Parameters:
  ///   - name: a name for diagnostics and render logs.
  ///   - ownedByParent: when created inside another reaction's body, let that reaction cancel this
  ///     one when it re-runs or is cancelled (the default).
  ///   - scheduling: when re-runs happen (see the type's documentation).
  ///   - recordingCauses: keep, for every re-run, the writes that dirtied it (`lastRunCauses`).
  ///   - isolation: the actor the reaction belongs to; by default the caller's (`#isolation`).
  ///   - body: the closure to run now and after every change to what it read.
  public init(
    _ name: String = "Reaction",
    ownedByParent: Bool = true,
    scheduling: ReactionScheduling = .synchronous,
    recordingCauses: Bool = false,
    isolation: (any Actor)? = #isolation,
    _ body: @escaping () -> Void
  ) {
    core = ReactionCore(name: name, body: body, scheduling: scheduling, isolation: isolation)
    if recordingCauses { core.setRecordsCauses(true) }
    core.start(handle: self, ownedByParent: ownedByParent)
  }

  deinit {
    core.cancel()
  }

  /// The name used in diagnostics and render logs.
  public var name: String { core.name }

  /// How many times the body has run (including the first run).
  public var runCount: Int { core.runCount }

  /// Whether `cancel()` was called (directly, by the parent, or by deallocation).
  public var isCancelled: Bool { core.isCancelled }

  /// The fields the last completed run read: the reaction's current dependencies.
  public var lastAccessLog: AccessLog { core.lastAccessLog }

  /// Whether the reaction keeps the causes of its re-runs (`lastRunCauses`). Off by default: while
  /// no reaction records causes, writes and flushes do no work for it beyond relaxed loads of one
  /// process-wide counter (<doc:WhyDidThisRerun> lists where).
  /// Turning it on makes the writes that dirty this reaction keep their old and new values until
  /// the transaction ends.
  public var isRecordingCauses: Bool {
    get { core.recordsCauses }
    set { core.setRecordsCauses(newValue) }
  }

  /// Why the latest run happened, while `isRecordingCauses` is on: the field writes that dirtied it
  /// (one per field, from the value the previous run read to the latest), the derived values that
  /// changed, or an invalidation. Empty for the first run, and for runs that started while
  /// recording was off. Inside the body it describes the run in progress.
  ///
  /// ```swift
  /// let label = Reaction("Label", recordingCauses: true) { print(row.count) }
  /// row.count = 1
  /// label.lastRunCauses.map(\.description)   // ["Row.count 0 -> 1"]
  /// ```
  public var lastRunCauses: [RunCause] { core.lastRunCauses }

  /// Stops the reaction for good: it never runs again, not even if it was already scheduled in
  /// the current flush or is running right now (the current run completes), and every observer
  /// entry is removed. Reactions it owns are cancelled too. The body, and what it captured, is
  /// released (at the end of the current run, if it is running), so a body that captures its own
  /// handle is no cycle once cancelled. Calling it again does nothing.
  public func cancel() {
    core.cancel()
  }

  /// Schedules a re-run as if something the body read had changed: when the current transaction
  /// on this thread ends, or right away if there is none. Within a flush it runs in creation
  /// order like any dirty reaction. Does nothing once cancelled.
  ///
  /// For owners that feed a reaction inputs other than tracked fields (a render tree passing new
  /// inputs to a child, say).
  public func invalidate() {
    core.invalidate()
  }

  /// How many rounds a flush may take before it stops with a `.runawayFlush` diagnostic (100 by
  /// default), and how many consecutive turns a `.mainActor` reaction may re-schedule itself.
  /// Override for a task with `Reaction.$maximumFlushRounds.withValue(_:operation:)`.
  ///
  /// It is read only where a limit can be reached: by a flush with more than one run to order
  /// (its transaction dirtied several observers — reactions, `TrackedValues` iterations, the
  /// observation bridge's watchers — or one through several fields or a derived value, or
  /// `invalidate()` was called, or a re-run wrote what an observer reads), and by a `.mainActor`
  /// reaction whose own run dirtied it again. A transaction that changed one field read by one
  /// reaction, and nothing else, re-runs it without reading the limit. Where it is read, a value
  /// below 1 is reported (`.invalidFlushLimit`), each time, and the default is used instead.
  @TaskLocal public static var maximumFlushRounds = 100

  /// The handler receiving the diagnostics raised on this task (see
  /// `withDiagnosticHandler(_:operation:)`); when `nil` (the default), they are printed to
  /// standard error.
  public static var diagnosticHandler: (@Sendable (ReactionDiagnostic) -> Void)? { _diagnosticHandler?.handle }

  /// Runs `operation` with `handler` receiving the diagnostics raised on this task (runaway flushes,
  /// an invalid flush limit) instead of standard error:
  ///
  /// ```swift
  /// Reaction.withDiagnosticHandler({ diagnostic in log.append(diagnostic) }) {
  ///   model.startLoop()
  /// }
  /// ```
  ///
  /// (A task-local value of a closure type crashes optimized builds with Swift 6.3, so the handler
  /// is kept in a wrapper and set through this function.)
  @discardableResult
  public static func withDiagnosticHandler<Result>(
    _ handler: @escaping @Sendable (ReactionDiagnostic) -> Void, operation: () throws -> Result
  ) rethrows -> Result {
    try $_diagnosticHandler.withValue(ReactionDiagnosticHandler(handle: handler), operation: operation)
  }

  /// `withDiagnosticHandler(_:operation:)` for asynchronous code.
  @discardableResult
  public static func withDiagnosticHandler<Result>(
    _ handler: @escaping @Sendable (ReactionDiagnostic) -> Void, isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
  ) async rethrows -> Result {
    try await $_diagnosticHandler.withValue(ReactionDiagnosticHandler(handle: handler), operation: operation)
  }

  @TaskLocal static var _diagnosticHandler: ReactionDiagnosticHandler?
}

/// The task-local home of `Reaction.diagnosticHandler`: a closure in a struct (a task-local value
/// of a bare closure type crashes optimized builds with Swift 6.3).
internal struct ReactionDiagnosticHandler: Sendable {
  let handle: @Sendable (ReactionDiagnostic) -> Void
}

extension Reaction: CustomStringConvertible {
  public var description: String { "Reaction(\(name), runs: \(runCount))" }
}

/// When a reaction re-runs after a change (see `Reaction`).
public struct ReactionScheduling: Sendable, Equatable {
  internal enum Kind: Sendable, Equatable {
    case synchronous
    case mainActor
  }

  internal let kind: Kind

  /// When the transaction that dirtied the reaction ends, if it ends on the reaction's isolation;
  /// otherwise on that isolation's next turn (the default; see `Reaction`).
  public static var synchronous: ReactionScheduling { ReactionScheduling(kind: .synchronous) }

  /// On the main actor's next turn, at most once per turn, with the latest values; also for a
  /// reaction created on another actor or thread (its first run happens at creation, where it is
  /// created; its body must be safe to run on the main actor after that). A reaction whose own
  /// runs keep dirtying it stops after `Reaction.maximumFlushRounds` consecutive turns (see
  /// `Reaction`). The re-runs handed to the main actor run in creation order (a parent before the
  /// reactions it created), whichever transactions dirtied them, in a job that inherits no
  /// task-local value except the flush limit and the diagnostic handler of the hand-off.
  public static var mainActor: ReactionScheduling { ReactionScheduling(kind: .mainActor) }
}
