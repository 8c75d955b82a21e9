import Synchronization

/// An observer that is not called back during a write but scheduled to run when the writing
/// thread's transaction ends (a `Reaction`, a derived value, a bridge to another observation
/// system). The flush runs dirty scheduled observers in creation order.
internal class ScheduledObserver: Observer, @unchecked Sendable {
  /// Creation order, process-wide: parents are created before their children.
  let sequence: UInt64
  /// The name diagnostics use.
  var diagnosticName: String { "Reaction" }
  private let runStamp = Atomic<UInt64>(0)

  override init() {
    sequence = RunOrder.nextSequence()
    super.init()
  }

  override final var isScheduled: Bool { true }

  /// The order stamp taken when the latest run started (see `RunOrder`).
  var lastRunStamp: UInt64 { runStamp.load(ordering: .relaxed) }

  /// Marks the start of a run.
  func markRunStarted() { runStamp.store(RunOrder.next(), ordering: .relaxed) }

  /// Runs if still needed; called by the flush of `context`'s thread.
  ///
  /// - Parameter onlyIfInputsChanged: the observer was only told that computed values it read
  ///   (derived values) may have changed: it runs only if one of them really did (see
  ///   `ComputedSource`).
  func runScheduled(in context: TransactionContext, onlyIfInputsChanged: Bool) {}

  /// Whether the observer keeps the causes of its runs; asked only while `RunCauses.isRecording`.
  var recordsCauses: Bool { false }

  /// Notes a cause of the next run (called only if `recordsCauses`).
  func noteCause(_ cause: RunCause, table: ObjectIdentifier?) {}

  /// Whether this observer must not run on the current thread now (it belongs to another
  /// isolation); the flush hands it to `defer(to:)` instead of running it.
  func runsElsewhere() -> Bool { false }

  /// Hands a run to the observer's own isolation (called instead of `runScheduled`, with the same
  /// meaning of `onlyIfInputsChanged`).
  func scheduleElsewhere(onlyIfInputsChanged: Bool) {}

  /// How many rounds a flush of these observers may take (see `Reaction.maximumFlushRounds`).
  class var maximumFlushRounds: Int { FlushLimits.defaultRounds }

  /// Reports a flush diagnostic (see `Reaction.diagnosticHandler`).
  class func report(_ diagnostic: ReactionDiagnostic) {
    printToStandardError(diagnostic.message)
  }
}

/// Process-wide order of runs and recorded writes: a reaction whose last run started after a write
/// has seen it. Only observed writes that concern scheduled observers, and runs, take one.
internal enum RunOrder {
  private static let counter = Atomic<UInt64>(0)
  private static let sequences = Atomic<UInt64>(0)

  static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
  static func nextSequence() -> UInt64 { sequences.add(1, ordering: .relaxed).newValue }
}
