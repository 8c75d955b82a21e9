import Synchronization

/// The re-runs handed to the main actor, run in creation order: a parent before the reactions it
/// created, however many transactions (on whatever threads) dirtied them before the main actor's
/// turn came.
///
/// One job on the main actor drains the queue, always running the pending reaction created first.
/// A parent's run that disposes of a child (a cancelled child runs nothing) or passes it a new input
/// (the child, pending already, runs once, after it) therefore behaves as it does within one
/// transaction's flush. With one job per hand-off, the runs of a turn followed the order in which
/// reactions were dirtied: a child dirtied by an earlier transaction ran before its parent, and again
/// after it.
///
/// A reaction is in the queue at most once (its hand-off flag absorbs later hand-offs until its run
/// starts); a run that hands off a reaction (itself included) adds it to the same drain.
///
/// The job is detached: it inherits no task-local value from the code whose write started it (runs
/// of unrelated reactions share it). What a run needs of the hand-off's task is carried with it: the
/// flush limit and the diagnostic handler in effect where the reaction was handed off.
internal enum MainActorRuns {
  /// A pending run, with the task-local values of the hand-off.
  private struct Entry {
    let reaction: ReactionCore
    let maximumFlushRounds: Int
    let diagnosticHandler: ReactionDiagnosticHandler?

    var sequence: UInt64 { reaction.sequence }
  }

  private struct Pending {
    /// Pending runs, a binary min-heap by creation order.
    var heap: [Entry] = []
    /// Whether a job to drain the queue is scheduled or running.
    var isDraining = false
  }

  private static let pending = Mutex(Pending())

  /// Queues a run of `reaction` for the main actor; schedules the job that drains the queue if none
  /// is scheduled.
  static func enqueue(_ reaction: ReactionCore) {
    let entry = Entry(
      reaction: reaction, maximumFlushRounds: Reaction.maximumFlushRounds,
      diagnosticHandler: Reaction._diagnosticHandler)
    let startsJob = pending.withLock { pending -> Bool in
      pending.heap.append(entry)
      siftUp(&pending.heap, from: pending.heap.count - 1)
      guard !pending.isDraining else { return false }
      pending.isDraining = true
      return true
    }
    if startsJob { Task.detached { @MainActor in drain() } }
  }

  /// Runs the pending reactions in creation order until none is left.
  @MainActor
  private static func drain() {
    while let next = popFirst() {
      Reaction.$maximumFlushRounds.withValue(next.maximumFlushRounds) {
        Reaction.$_diagnosticHandler.withValue(next.diagnosticHandler) {
          next.reaction.runHandedOffNow()
        }
      }
    }
  }

  /// The pending reaction created first, or `nil` (ending the drain) if none is left.
  private static func popFirst() -> Entry? {
    pending.withLock { pending -> Entry? in
      guard !pending.heap.isEmpty else {
        pending.isDraining = false
        return nil
      }
      let first = pending.heap[0]
      let last = pending.heap.removeLast()
      if !pending.heap.isEmpty {
        pending.heap[0] = last
        siftDown(&pending.heap, from: 0)
      }
      return first
    }
  }

  private static func siftUp(_ heap: inout [Entry], from start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].sequence < heap[parent].sequence else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private static func siftDown(_ heap: inout [Entry], from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      let right = left + 1
      let smaller = right < heap.count && heap[right].sequence < heap[left].sequence ? right : left
      guard heap[smaller].sequence < heap[parent].sequence else { return }
      heap.swapAt(smaller, parent)
      parent = smaller
    }
  }
}
