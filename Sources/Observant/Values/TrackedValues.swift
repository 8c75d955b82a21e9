import Synchronization

/// The values of a closure over tracked fields, as an asynchronous sequence: the current value
/// first, then a new value after each transaction that changed what the closure read.
///
/// ```swift
/// for await total in TrackedValues({ cart.items.count * 2 }) {
///   badge.text = "\(total)"
/// }
/// ```
///
/// - **What yields.** A transaction that changes a field the last evaluation read makes the next
///   value due, by the rules that re-run a reaction: an equal write, or a field set and set back
///   within the transaction, changes nothing; a write to a copy of a value read (a draft, a local
///   copy) makes a value due at most once per field of the copy (the same value again; see
///   <doc:IdentityRules>). Several writes in one transaction make one value.
/// - **The latest value, nothing buffered.** The closure runs when the loop asks for the next
///   value, so a loop that falls behind gets the latest value once, not every value it missed: a
///   burst of transactions between two iterations yields one value.
/// - **Where it runs.** The closure runs on the iterating task, inside `next()`, with its reads
///   tracked afresh each time (a branch not taken stops mattering). It is not `Sendable`: iterate
///   where you created the sequence, as the compiler requires.
/// - **The end.** The sequence ends when the iterating task is cancelled (a loop waiting for a
///   change returns at once), and when an evaluation reads no tracked field: nothing could change
///   its value any more, so that value is the last. When an object the closure read goes away
///   (on any thread), that counts as a change: the closure runs again (with a `weak` capture it
///   now reads nothing of that object, and if it reads nothing tracked at all, the sequence ends
///   after that value). When everything the last evaluation read was read through stores that
///   have become invalid (a row store whose row was removed, an optional child's store whose
///   child went away), the sequence ends without another value, as soon as the last of those
///   stores becomes invalid, even while the loop waits: nothing it read can change what it shows
///   any more (the rule that stops reactions re-running). A closure that also read something
///   else (a valid store, a field read directly) goes on. Leaving the loop releases every
///   observer entry.
///
/// It is Observant's counterpart of Apple's `Observations` (SE-0475), for Observant's fields and
/// transactions; with the `ObservantObservationBridge` enabled, `Observations` sees Observant's
/// fields too.
///
/// - Complexity: Each value costs one evaluation of the closure with tracking (its reads, as for a
///   reaction's run); waiting costs nothing.
public struct TrackedValues<Element>: AsyncSequence {
  public typealias Failure = Never

  private let value: () -> Element

  /// A sequence of the values of `value`.
  ///
  /// - Parameter value: the closure whose value is yielded; it runs on the iterating task.
  public init(_ value: @escaping () -> Element) {
    self.value = value
  }

  public func makeAsyncIterator() -> Iterator {
    Iterator(value: value)
  }

  /// Iterates a `TrackedValues` sequence; see the sequence's documentation.
  public struct Iterator: AsyncIteratorProtocol {
    public typealias Failure = Never

    private let run: TrackedValuesRun<Element>

    fileprivate init(value: @escaping () -> Element) {
      run = TrackedValuesRun(value: value)
    }

    /// The current value the first time; then, once a transaction changed what the previous
    /// evaluation read, the value now. `nil` once the task is cancelled, the previous evaluation
    /// read no tracked field, or everything it read was read through stores now invalid.
    public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
      await run.next(isolation: actor)
    }
  }
}

/// One iteration of a `TrackedValues` sequence: its observer, and the closure. The iterator owns
/// it (it is used by one task at a time); when the iterator goes, every observer entry goes.
private final class TrackedValuesRun<Element> {
  private let value: () -> Element
  private let observer = TrackedValuesObserver()
  private var started = false
  private var finished = false

  init(value: @escaping () -> Element) {
    self.value = value
  }

  deinit {
    observer.finish()
  }

  /// The next value, evaluated on `actor` (the iterating task's isolation).
  func next(isolation actor: isolated (any Actor)?) async -> Element? {
    guard !finished else { return nil }
    if Task.isCancelled { return end() }
    if started {
      guard await observer.waitForChange(isolation: actor) else { return end() }
      // Everything the last evaluation read came through guards (stores) now invalid: nothing
      // it read can change what it shows any more (the rule reactions follow).
      if observer.allGuardsInvalid { return end() }
    }
    started = true
    let (result, readSomething) = observer.evaluate(value)
    if !readSomething { _ = end() }
    return result
  }

  private func end() -> Element? {
    finished = true
    observer.finish()
    return nil
  }
}

/// The observer behind a `TrackedValues` iteration: linked to what the last evaluation read, it
/// marks a change when a transaction that changed it ends (a scheduled observer, like a
/// reaction, so a field set and set back within a transaction is no change), and wakes the
/// iterating task if it waits.
private final class TrackedValuesObserver: ScheduledObserver, @unchecked Sendable {
  private struct State {
    /// A field read changed (or an object read went away).
    var changed = false
    /// Only derived values read may have changed: the waiting task checks before evaluating.
    var inputsMayHaveChanged = false
    /// A guard the last evaluation read under was invalidated: the waiting task checks whether
    /// they all are.
    var guardsMayBeInvalid = false
    var cancelled = false
    var finished = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Mutex(State())
  /// Touched only by the iterating task (evaluations, checks, the final unlink), never by writers.
  @exclusivity(unchecked) private var recorder: Recorder!

  override init() {
    super.init()
    recorder = Recorder(owner: self)
  }

  override var diagnosticName: String { "TrackedValues" }

  // MARK: The iterating task

  /// Runs `value` with its reads as this observer's dependencies; returns the value and whether
  /// it read any tracked field.
  func evaluate<Element>(_ value: () -> Element) -> (Element, Bool) {
    // Cleared first: a change made while the closure runs makes the next value due.
    state.withLock {
      $0.changed = false
      $0.inputsMayHaveChanged = false
      $0.guardsMayBeInvalid = false
    }
    markRunStarted()
    recorder.beginRun()
    let result = withRecorder(recorder, propagating: false, value)
    let stale = recorder.endRun()
    if !stale.isEmpty { stale.unlinkAll() }
    watchGuards()
    return (result, !recorder.isEmpty)
  }

  /// Whether everything the last evaluation read was read through guards now invalid.
  var allGuardsInvalid: Bool { recorder.allGuardsInvalid }

  /// When everything the evaluation read was read under guards (through stores), asks each guard
  /// to say when it is invalidated: the sequence ends once they all are, and nothing else would
  /// wake it.
  private func watchGuards() {
    let dependencies = recorder.currentDependencies
    guard let first = dependencies.first, first.guardedBy != nil,
      dependencies.allSatisfy({ $0.guardedBy != nil })
    else { return }
    var asked: [ObjectIdentifier] = []
    for dependency in dependencies {
      guard let readGuard = dependency.guardedBy, !asked.contains(ObjectIdentifier(readGuard)) else { continue }
      asked.append(ObjectIdentifier(readGuard))
      if !readGuard.notifyOnInvalidation(self) { guardInvalidated() }
    }
  }

  /// Waits until a change is due; `false` if the task was cancelled meanwhile.
  func waitForChange(isolation actor: isolated (any Actor)?) async -> Bool {
    while true {
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let resumeNow = state.withLock { state -> Bool in
            if state.changed || state.inputsMayHaveChanged || state.guardsMayBeInvalid || state.cancelled
              || state.finished
            {
              return true
            }
            state.waiter = continuation
            return false
          }
          if resumeNow { continuation.resume() }
        }
      } onCancel: {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
          state.cancelled = true
          defer { state.waiter = nil }
          return state.waiter
        }
        waiter?.resume()
      }
      let (changed, onlyInputs, guardsMayBeInvalid, cancelled) = state.withLock {
        ($0.changed, $0.inputsMayHaveChanged, $0.guardsMayBeInvalid, $0.cancelled)
      }
      if cancelled || Task.isCancelled { return false }
      if changed { return true }
      if guardsMayBeInvalid {
        // The caller ends the sequence if they all are; otherwise nothing is due yet.
        if recorder.allGuardsInvalid { return true }
        state.withLock { $0.guardsMayBeInvalid = false }
      }
      if onlyInputs {
        if derivedInputChanged() { return true }
        state.withLock { $0.inputsMayHaveChanged = false }
      }
    }
  }

  /// Whether a derived value the last evaluation read has a new version (brings them up to date,
  /// in the order they were read).
  private func derivedInputChanged() -> Bool {
    for dependency in recorder.dependencies {
      guard let source = dependency.table.computedSource else { continue }
      if source.refreshedVersion() != dependency.seen.load(ordering: .relaxed) { return true }
    }
    return false
  }

  /// Removes every observer entry, once; no change is marked after.
  func finish() {
    let first = state.withLock { state -> Bool in
      defer { state.finished = true }
      return !state.finished
    }
    if first { recorder.removeAll().unlinkAll() }
  }

  // MARK: Writers' threads

  override func runScheduled(in context: TransactionContext, onlyIfInputsChanged: Bool) {
    markChange(onlyInputs: onlyIfInputsChanged)
  }

  /// Makes the next value due (or, for `onlyInputs`, due if a derived value read changed), and
  /// wakes the iterating task if it waits.
  private func markChange(onlyInputs: Bool) {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.finished else { return nil }
      if onlyInputs { state.inputsMayHaveChanged = true } else { state.changed = true }
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  override func registrarDidDeinit() {
    markChange(onlyInputs: false)
  }

  /// A guard the last evaluation read under was invalidated (on the invalidating thread): wakes
  /// the iterating task to check whether they all are.
  override func guardInvalidated() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.finished else { return nil }
      state.guardsMayBeInvalid = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }
}
