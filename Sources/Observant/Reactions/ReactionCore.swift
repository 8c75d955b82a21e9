import Synchronization

/// The state of a reaction, installed on registrars as a scheduled observer.
///
/// Its dependencies hold it strongly; it never refers back to the public `Reaction`, so observing
/// something never keeps a reaction alive: its owner does, and when the owner lets go,
/// `Reaction.deinit` cancels the core, which unlinks its dependencies (and they it).
internal final class ReactionCore: ScheduledObserver, @unchecked Sendable {
  let name: String
  private let scheduling: ReactionScheduling
  /// Where re-runs may happen.
  private let isolation: Isolation

  internal enum Isolation {
    /// On the thread whose transaction dirtied the reaction.
    case any
    /// Only on the main actor.
    case mainActor
    /// Only on this actor, reached through a task. Held weakly: an actor that keeps its reactions
    /// (the natural way to own them) is not kept alive by them; once it is gone, the reaction
    /// never runs again.
    case actor(WeakActor)
  }

  /// A weak reference to the actor a reaction belongs to.
  internal final class WeakActor: @unchecked Sendable {
    weak var actor: (any Actor)?
    init(_ actor: any Actor) { self.actor = actor }
  }

  /// Released once the reaction is cancelled and uninstalled (with whatever it captured); set only
  /// at creation and then, once, by `uninstallAll`, when no run is possible any more.
  @exclusivity(unchecked) private var body: (() -> Void)?
  /// Dependencies; touched only by the thread that runs the body (`isRunning` serializes runs) or,
  /// when not running, under `state`'s lock.
  @exclusivity(unchecked) private var recorder: Recorder!
  private let state = Mutex(RunState())
  /// A run was handed to the reaction's isolation and has not started yet.
  private let handedOff = Atomic<Bool>(false)
  /// Every hand-off since the last handed-off run started was only told that derived values the
  /// reaction read may have changed: the run checks them first, as a run in the flush does (see
  /// `runIfNeeded(in:onlyIfInputsChanged:)`).
  private let handedOffOnlyIfInputsChanged = Atomic<Bool>(true)
  /// Consecutive turns in which a `.mainActor`-scheduled reaction's own run dirtied it again (see
  /// `scheduleElsewhere(onlyIfInputsChanged:)`).
  private let selfDirtiedTurns = Atomic<Int>(0)
  /// Whether the causes of runs are recorded (see `RunCause`).
  private let recordingCauses = Atomic<Bool>(false)

  private struct RunState {
    var isCancelled = false
    var isRunning = false
    var rerunRequested = false
    var isUninstalled = false
    /// Runs completed (the first included).
    var completedRuns = 0
    var children: [Reaction] = []
    /// The dependencies of the last completed run (sharing the recorder's storage, which a re-run
    /// with the same dependencies does not mutate).
    var lastDependencies: ContiguousArray<Dependency> = []
    /// What dirtied the next run, while causes are recorded.
    var pendingCauses = CauseLog()
    /// What dirtied the latest run.
    var lastCauses: [RunCause] = []

    /// Whether a run must take something when it starts: children to cancel, or causes to move
    /// from `pendingCauses` to `lastCauses` (or `lastCauses` to clear).
    var hasRunState: Bool { !children.isEmpty || !pendingCauses.isEmpty || !lastCauses.isEmpty }
  }

  init(name: String, body: @escaping () -> Void, scheduling: ReactionScheduling, isolation: (any Actor)?) {
    self.name = name
    self.body = body
    self.scheduling = scheduling
    if let isolation {
      self.isolation =
        ObjectIdentifier(isolation) == ObjectIdentifier(MainActor.shared) ? .mainActor : .actor(WeakActor(isolation))
    } else {
      // No static isolation (a nonisolated helper, say), but running on the main actor: the
      // reaction belongs to it, as if created there.
      self.isolation = ThreadLocal.isOnMainActor ? .mainActor : .any
    }
    super.init()
    recorder = Recorder(owner: self)
  }

  override var diagnosticName: String { name }

  override class var maximumFlushRounds: Int { Reaction.maximumFlushRounds }

  override class func report(_ diagnostic: ReactionDiagnostic) {
    if let handler = Reaction.diagnosticHandler {
      handler(diagnostic)
    } else {
      printToStandardError(diagnostic.message)
    }
  }

  /// Runs the first time; called once by the public initializer.
  func start(handle: Reaction, ownedByParent: Bool) {
    let context = TransactionContext.current
    if ownedByParent, let parent = context.runningObserver as? ReactionCore {
      parent.adopt(handle)
    }
    context.begin()
    runIfNeeded(in: context)
    endRunTransaction(context)
  }

  var runCount: Int { state.withLock { $0.completedRuns } }

  func invalidate() {
    guard !isCancelled else { return }
    if recordsCauses { noteCause(.invalidation, table: nil) }
    let context = TransactionContext.current
    context.begin()
    context.invalidate(self)
    context.end()
  }

  var isCancelled: Bool { state.withLock { $0.isCancelled } }

  var lastAccessLog: AccessLog { AccessLog(state.withLock { $0.lastDependencies }) }

  // MARK: Causes

  override var recordsCauses: Bool { recordingCauses.load(ordering: .relaxed) }

  /// Starts or stops recording causes; the process-wide switch counts the reactions that do.
  func setRecordsCauses(_ enabled: Bool) {
    let (exchanged, _) = recordingCauses.compareExchange(
      expected: !enabled, desired: enabled, ordering: .acquiringAndReleasing)
    guard exchanged else { return }
    if enabled {
      RunCauses.observerStartedRecording()
    } else {
      RunCauses.observerStoppedRecording()
      state.withLock { _ = $0.pendingCauses.take() }
    }
  }

  override func noteCause(_ cause: RunCause, table: ObjectIdentifier?) {
    state.withLock { $0.pendingCauses.note(cause, table: table) }
  }

  var lastRunCauses: [RunCause] { state.withLock { $0.lastCauses } }

  deinit {
    if recordingCauses.load(ordering: .relaxed) { RunCauses.observerStoppedRecording() }
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

  private func adopt(_ child: Reaction) {
    let adopted = state.withLock { state -> Bool in
      guard !state.isCancelled else { return false }
      state.children.append(child)
      return true
    }
    if !adopted { child.cancel() }
  }

  // MARK: Scheduling

  override func runScheduled(in context: TransactionContext, onlyIfInputsChanged: Bool) {
    runIfNeeded(in: context, onlyIfInputsChanged: onlyIfInputsChanged)
  }

  override func runsElsewhere() -> Bool {
    if scheduling.kind == .mainActor { return true }
    switch isolation {
    case .any: return false
    case .mainActor: return !ThreadLocal.isOnMainActor
    case .actor(let reference):
      // An actor that is gone runs nothing here (nor anywhere: see `scheduleElsewhere`).
      guard let actor = reference.actor else { return true }
      return !ThreadLocal.isOnExecutor(of: actor)
    }
  }

  /// Hands a run to the reaction's isolation (for `.mainActor` scheduling, always the main
  /// actor), in creation order with the other runs handed to it (see `HandedOffRuns`); runs
  /// already handed off and not started yet absorb this one (they will read the latest values).
  ///
  /// A reaction whose own run dirtied it again (directly, or through the reactions its writes
  /// re-ran in the same flush) and must hand that re-run off (a `.mainActor` reaction; on Apple
  /// platforms, one of a custom actor) is handed off again only `Reaction.maximumFlushRounds`
  /// times in a row: one more is a runaway, reported like a flush's, and the reaction is left
  /// dirty until a change from elsewhere hands it off again (see `selfDirtiedTurns`).
  override func scheduleElsewhere(onlyIfInputsChanged: Bool) {
    guard !isCancelled else { return }
    guard admitHandOff() else { return }
    // Before the hand-off is claimed: a run already handed off and not started absorbs this one,
    // and must then run whatever its derived values say.
    if !onlyIfInputsChanged { handedOffOnlyIfInputsChanged.store(false, ordering: .releasing) }
    guard handedOff.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
      return
    }
    switch (scheduling.kind, isolation) {
    case (.synchronous, .actor(let reference)):
      guard let actor = reference.actor else {
        handedOff.store(false, ordering: .releasing)
        return
      }
      HandedOffRuns.enqueue(self, on: actor)
    case (.mainActor, _), (.synchronous, .any), (.synchronous, .mainActor):
      HandedOffRuns.enqueue(self, on: MainActor.shared)
    }
  }

  /// Whether a re-run may be handed off: counts the consecutive turns in which the reaction's own
  /// run dirtied it again, and reports a runaway once they pass the limit.
  private func admitHandOff() -> Bool {
    guard let context = TransactionContext.existing, context.endingRunOf == ObjectIdentifier(self) else {
      // Dirtied by something else: a fresh start.
      selfDirtiedTurns.store(0, ordering: .relaxed)
      return true
    }
    let turns = selfDirtiedTurns.add(1, ordering: .relaxed).newValue
    let limit = FlushLimits.maximumRounds(for: self)
    guard turns > limit else { return true }
    selfDirtiedTurns.store(0, ordering: .relaxed)
    Self.report(
      ReactionDiagnostic(
        kind: .runawayFlush, reactionNames: [name],
        message: """
          Observant: the reaction "\(name)" (re-run on \(handOffTarget)'s turns) dirtied itself again in \
          \(limit) consecutive turns and was stopped; it re-runs at the next change made elsewhere. It \
          writes state that it (or a reaction its writes re-run) reads, without reaching a fixed point.
          """))
    return false
  }

  /// Where handed-off re-runs go, for diagnostics.
  private var handOffTarget: String {
    if case .actor(let reference) = isolation, scheduling.kind == .synchronous {
      return reference.actor.map { "the actor \(type(of: $0))" } ?? "an actor that is gone"
    }
    return "the main actor"
  }

  /// The handed-off run, on the reaction's isolation.
  func runHandedOffNow() {
    handedOff.store(false, ordering: .releasing)
    // Taken after the hand-off is released: a hand-off from now on is a new one (with its own
    // flag); one that came before is absorbed by this run.
    let onlyIfInputsChanged = handedOffOnlyIfInputsChanged.exchange(true, ordering: .acquiringAndReleasing)
    let context = TransactionContext.current
    context.begin()
    runIfNeeded(in: context, onlyIfInputsChanged: onlyIfInputsChanged)
    endRunTransaction(context)
  }

  /// Ends the transaction a run of this reaction opened, noting for the flush it starts that this
  /// reaction's run is what dirtied the observers it finds (see `admitHandOff()`).
  private func endRunTransaction(_ context: TransactionContext) {
    let previous = context.endingRunOf
    context.endingRunOf = ObjectIdentifier(self)
    context.end()
    context.endingRunOf = previous
  }

  // MARK: Running

  /// Runs the body unless the reaction is cancelled; if it is running on another thread, asks
  /// that thread to run it again instead.
  ///
  /// - Parameter onlyIfInputsChanged: run only if a derived value the last run read changed (the
  ///   reaction was only told that some may have).
  func runIfNeeded(in context: TransactionContext, onlyIfInputsChanged: Bool = false) {
    let (claimed, hasRunState) = state.withLock { state -> (Bool, Bool) in
      guard !state.isCancelled else { return (false, false) }
      guard !state.isRunning else {
        state.rerunRequested = true
        return (false, false)
      }
      state.isRunning = true
      return (true, state.hasRunState)
    }
    guard claimed else { return }
    var again: Bool
    var cancelled = false
    var runState = hasRunState
    if !onlyIfInputsChanged || computedInputsChanged() {
      again = true
    } else {
      (again, cancelled, runState) = finishRun(publishing: nil, ran: false)
    }
    while again {
      (again, cancelled, runState) = performRun(in: context, hasRunState: runState)
    }
    if cancelled { uninstallAll() }
  }

  /// At the end of a run, under one lock: publishes the run's dependencies (if it ran), and says
  /// whether another thread asked for one more run (otherwise the run is over) and whether the
  /// reaction was cancelled meanwhile.
  ///
  /// Also returns whether the reaction has children or causes for the next run to take (see
  /// `RunState.hasRunState`), when it runs again.
  private func finishRun(
    publishing dependencies: ContiguousArray<Dependency>?, ran: Bool = true
  ) -> (again: Bool, cancelled: Bool, hasRunState: Bool) {
    state.withLock { state in
      // A run that read what the previous one read leaves the recorder's array as it was: the
      // same storage is already published (assigning it again retains it and releases it).
      if let dependencies, !dependencies.isSameStorage(as: state.lastDependencies) {
        state.lastDependencies = dependencies
      }
      if ran { state.completedRuns += 1 }
      if state.rerunRequested && !state.isCancelled {
        state.rerunRequested = false
        return (true, false, state.hasRunState)
      }
      state.isRunning = false
      return (false, state.isCancelled, false)
    }
  }

  /// Whether a computed value (a derived value) the last run read changed since it read it.
  /// Brings them up to date in the order they were read, stopping at the first that changed (the
  /// run reads the others itself). Called while the run is claimed: the recorder is ours.
  private func computedInputsChanged() -> Bool {
    for dependency in recorder.dependencies {
      guard let source = dependency.table.computedSource else { continue }
      let seen = dependency.seen.load(ordering: .relaxed)
      guard source.refreshedVersion() != seen else { continue }
      if RunCauses.isRecording && recordsCauses {
        noteCause(source.changeDescription(since: seen), table: ObjectIdentifier(dependency.table))
      }
      return true
    }
    return false
  }

  /// Runs the body once (the run is claimed); returns `finishRun`'s answer.
  ///
  /// - Parameter hasRunState: whether the reaction had children or causes to take when the run
  ///   was claimed (see `RunState.hasRunState`); the lock is taken for them only then, or when it
  ///   records causes (checking its derived values since may have noted one).
  private func performRun(
    in context: TransactionContext, hasRunState: Bool
  ) -> (again: Bool, cancelled: Bool, hasRunState: Bool) {
    // Made in `init` and never replaced: used without a reference of its own for the run.
    let recorder = Unmanaged.passUnretained(self.recorder)
    return recorder._withUnsafeGuaranteedRef { recorder in
      // Everything the last run read came through guards (stores) that are now invalid: nothing it
      // depends on can matter any more. Drop the dependencies instead of running.
      if recorder.allGuardsInvalid {
        recorder.removeAll().unlinkAll()
        return finishRun(publishing: [], ran: false)
      }
      markRunStarted()
      if hasRunState || recordsCauses {
        // Taken only when there are children: copying out the empty array (and releasing it) is a
        // retain and a release on every run of a reaction that creates none.
        let children = state.withLock { state -> [Reaction]? in
          if !state.pendingCauses.isEmpty || !state.lastCauses.isEmpty {
            state.lastCauses = state.pendingCauses.take()
          }
          guard !state.children.isEmpty else { return nil }
          defer { state.children = [] }
          return state.children
        }
        children?.forEach { $0.cancel() }
      }

      recorder.beginRun()
      let previous = context.runningObserver
      context.runningObserver = self
      // Moved out for the run and back after it, not copied (a retain and a release): nothing
      // else reads or replaces it while a run is claimed (`uninstallAll` waits for the run). Not
      // with the generic `Optional.take()`: unspecialized, each round trip through it wraps the
      // closure in two more reabstraction thunks.
      let body = self.body
      self.body = nil
      if let body {
        withRecorder(recorder, propagating: false, body)
        self.body = body
      }
      context.runningObserver = previous

      let stale = recorder.endRun()
      if !stale.isEmpty { stale.unlinkAll() }
      return finishRun(publishing: recorder.dependencies)
    }
  }

  /// Checks the reaction's recorder (`Recorder._checkInvariants()`) between runs; nothing while
  /// a run owns it. For tests: with internal checks on, the recorder checks itself as it changes.
  func _checkInvariants() {
    state.withLock { state in
      guard !state.isRunning else { return }
      recorder._checkInvariants()
    }
  }

  /// Removes every observer entry, once, when not running.
  private func uninstallAll() {
    let proceed = state.withLock { state -> Bool in
      guard !state.isUninstalled, !state.isRunning else { return false }
      state.isUninstalled = true
      state.lastDependencies = []
      return true
    }
    guard proceed else { return }
    recorder.removeAll().unlinkAll()
    // Cancelled and not running, so no run can start: release the body and its captures (which
    // may be what held the last reference to the handle, say). Released outside every lock.
    body = nil
  }
}

extension ContiguousArray {
  /// Whether both arrays hold the same elements because they share their storage (or are both
  /// empty). A shared storage is not written in place: an array that changed has its own.
  fileprivate func isSameStorage(as other: ContiguousArray) -> Bool {
    guard count == other.count else { return false }
    guard count > 0 else { return true }
    return withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
  }
}
