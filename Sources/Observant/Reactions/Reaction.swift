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
/// **Threads.** A reaction re-runs on the thread whose transaction dirtied it. It never runs
/// concurrently with itself: if it is dirtied while it runs on another thread, that thread runs it
/// again before returning. Its body must therefore be safe to call on any thread that writes its
/// dependencies; with state confined to one thread (the main actor, say) that is always that
/// thread.
public final class Reaction: Sendable {
  internal let core: ReactionCore

  /// Creates the reaction and runs `body` once, now.
  ///
  /// - Parameters:
  ///   - name: a name for diagnostics and render logs.
  ///   - ownedByParent: when created inside another reaction's body, let that reaction cancel this
  ///     one when it re-runs or is cancelled (the default).
  ///   - body: the closure to run now and after every change to what it read.
  public init(_ name: String = "Reaction", ownedByParent: Bool = true, _ body: @escaping () -> Void) {
    core = ReactionCore(name: name, body: body)
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

  /// The fields the last completed run read: the reaction's current dependencies. Empty while the
  /// body is running.
  public var lastAccessLog: AccessLog { core.lastAccessLog }

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

  /// Total runs of all reactions in this process: a tally for harnesses. Tests running in
  /// parallel share it; prefer `runCount` of specific reactions in assertions.
  public static var totalRunCount: Int { ReactionCore.totalRunCount }
}

extension Reaction: CustomStringConvertible {
  public var description: String { "Reaction(\(name), runs: \(runCount))" }
}

/// The state of a reaction, installed on registrars as a deferred observer.
///
/// Registrars hold the core strongly; the core never refers back to the public `Reaction`, so
/// observing something never keeps a reaction alive: its owner does, and when the owner lets go,
/// `Reaction.deinit` cancels the core, which uninstalls it everywhere.
internal final class ReactionCore: TrackingObserver, @unchecked Sendable {
  let name: String
  /// Creation order, process-wide: parents are created before their children.
  let sequence: UInt64

  /// Released once the reaction is cancelled and uninstalled (with whatever it captured); set
  /// only at creation and then, once, by `uninstallAll`, when no run is possible any more.
  @exclusivity(unchecked) private var body: (() -> Void)?
  /// Dependencies; touched only by the thread that runs the body (`isRunning` serializes runs)
  /// or, when not running, under `state`'s lock.
  @exclusivity(unchecked) private var recorder: AccessRecorder!
  private let state = Mutex(RunState())
  private let stamp = Atomic<UInt64>(0)
  private let runs = Atomic<Int>(0)

  private struct RunState {
    var isCancelled = false
    var isRunning = false
    var rerunRequested = false
    var isUninstalled = false
    var children: [Reaction] = []
  }

  init(name: String, body: @escaping () -> Void) {
    self.name = name
    self.sequence = ReactionCore.sequenceCounter.add(1, ordering: .relaxed).newValue
    self.body = body
    super.init()
    recorder = AccessRecorder { [unowned self] access in
      access.core.add(self, for: access.key)
    }
  }

  override var reaction: ReactionCore? { self }
  override var isDeferred: Bool { true }

  /// Runs the first time; called once by the public initializer.
  func start(handle: Reaction, ownedByParent: Bool) {
    let context = TransactionContext.current
    if ownedByParent, let parent = context.runningReaction {
      parent.adopt(handle)
    }
    context.begin()
    runIfNeeded(in: context)
    context.end()
  }

  var runCount: Int { runs.load(ordering: .relaxed) }

  func invalidate() {
    guard !isCancelled else { return }
    let context = TransactionContext.current
    context.begin()
    context.invalidate(self)
    context.end()
  }

  var isCancelled: Bool { state.withLock { $0.isCancelled } }

  var lastAccessLog: AccessLog {
    state.withLock { state in state.isRunning ? AccessLog([]) : AccessLog(recorder.accesses) }
  }

  func cancel() {
    let (wasCancelled, isRunning, children) = state.withLock { state in
      defer {
        state.isCancelled = true
        state.children = []
      }
      return (state.isCancelled, state.isRunning, state.children)
    }
    guard !wasCancelled else { return }
    children.forEach { $0.cancel() }
    // A running body finishes first; the thread running it uninstalls at the end of the run.
    if !isRunning { uninstallAll() }
  }

  // MARK: Counters

  private static let sequenceCounter = Atomic<UInt64>(0)
  private static let stampCounter = Atomic<UInt64>(0)
  private static let totalRuns = Atomic<Int>(0)

  static var totalRunCount: Int { totalRuns.load(ordering: .relaxed) }

  /// A process-wide increasing stamp ordering runs and writes.
  static func nextStamp() -> UInt64 {
    stampCounter.add(1, ordering: .relaxed).newValue
  }

  /// Stamp taken when the latest run started.
  var lastRunStamp: UInt64 { stamp.load(ordering: .relaxed) }

  // MARK: Running

  private func adopt(_ child: Reaction) {
    let adopted = state.withLock { state -> Bool in
      guard !state.isCancelled else { return false }
      state.children.append(child)
      return true
    }
    if !adopted { child.cancel() }
  }

  /// Runs the body unless the reaction is cancelled; if it is running on another thread, asks
  /// that thread to run it again instead.
  func runIfNeeded(in context: TransactionContext) {
    let claimed = state.withLock { state -> Bool in
      guard !state.isCancelled else { return false }
      guard !state.isRunning else {
        state.rerunRequested = true
        return false
      }
      state.isRunning = true
      return true
    }
    guard claimed else { return }
    var again = true
    while again {
      performRun(in: context)
      again = state.withLock { state in
        if state.rerunRequested && !state.isCancelled {
          state.rerunRequested = false
          return true
        }
        state.isRunning = false
        return false
      }
    }
    if isCancelled { uninstallAll() }
  }

  private func performRun(in context: TransactionContext) {
    // Everything the last run read came through guards (stores) that are now invalid: nothing
    // it depends on can matter any more. Drop the dependencies instead of running.
    if recorder.allGuardsInvalid {
      recorder.removeAll().uninstall(self)
      return
    }
    stamp.store(ReactionCore.nextStamp(), ordering: .relaxed)
    let children = state.withLock { state in
      defer { state.children = [] }
      return state.children
    }
    children.forEach { $0.cancel() }

    recorder.beginRun()
    let previousReaction = context.runningReaction
    context.runningReaction = self
    if let body { withRecorder(recorder, propagating: false, body) }
    context.runningReaction = previousReaction

    let stale = recorder.endRun()
    if !stale.isEmpty { stale.uninstall(self) }
    runs.add(1, ordering: .relaxed)
    ReactionCore.totalRuns.add(1, ordering: .relaxed)
  }

  /// Removes every observer entry, once, when not running.
  private func uninstallAll() {
    let proceed = state.withLock { state -> Bool in
      guard !state.isUninstalled, !state.isRunning else { return false }
      state.isUninstalled = true
      return true
    }
    guard proceed else { return }
    recorder.removeAll().uninstall(self)
    // Cancelled and not running, so no run can start: release the body and its captures (which
    // may be what held the last reference to the handle, say). Released outside every lock.
    body = nil
  }
}
