import Synchronization

/// The re-runs handed to an actor (the main actor for `.mainActor` scheduling and for reactions of
/// the main actor dirtied elsewhere; another actor for reactions created on it), run in creation
/// order: a parent before the reactions it created, however many transactions (on whatever threads)
/// dirtied them before the actor got to them.
///
/// One job per actor drains that actor's queue, always running the pending reaction created first.
/// A parent's run that disposes of a child (a cancelled child runs nothing) or passes it a new input
/// (the child, pending already, runs once, after it) therefore behaves as it does within one
/// transaction's flush. With one job per hand-off, the runs followed the order in which reactions
/// were dirtied (or, for an actor other than the main actor, no order at all): a child dirtied by an
/// earlier transaction ran before its parent, and again after it.
///
/// A reaction is in a queue at most once (its hand-off flag absorbs later hand-offs until its run
/// starts); a run that hands off a reaction (itself included) adds it to the same drain. A queue
/// that empties is removed: an actor nothing is pending for is not kept.
///
/// The job is detached: it inherits no task-local value from the code whose write started it (runs
/// of unrelated reactions share it). What a run needs of the hand-off's task is carried with it: the
/// flush limit and the diagnostic handler in effect where the reaction was handed off.
internal enum HandedOffRuns {
  /// A pending run, with the task-local values of the hand-off.
  private struct Entry {
    let reaction: ReactionCore
    let maximumFlushRounds: Int
    let diagnosticHandler: ReactionDiagnosticHandler?

    var sequence: UInt64 { reaction.sequence }
  }

  /// One actor's pending runs, a binary min-heap by creation order (the actor's job is running or
  /// scheduled while the queue exists).
  private typealias Queue = [Entry]

  private static let queues = Mutex<[ObjectIdentifier: Queue]>([:])

  /// Queues a run of `reaction` on `actor`; schedules the job that drains the actor's queue if none
  /// is scheduled.
  static func enqueue(_ reaction: ReactionCore, on actor: any Actor) {
    let entry = Entry(
      reaction: reaction, maximumFlushRounds: Reaction.maximumFlushRounds,
      diagnosticHandler: Reaction._diagnosticHandler)
    let key = ObjectIdentifier(actor)
    let startsJob = queues.withLock { queues -> Bool in
      let isNew = queues[key] == nil
      queues[key, default: []].append(entry)
      siftUp(&queues[key]!, from: queues[key]!.count - 1)
      return isNew
    }
    guard startsJob else { return }
    if key == ObjectIdentifier(MainActor.shared) {
      Task.detached { @MainActor in drain(key) }
    } else {
      Task.detached { await drain(key, on: actor) }
    }
  }

  private static func drain(_ key: ObjectIdentifier, on actor: isolated any Actor) {
    drain(key)
  }

  /// Runs the pending reactions of the actor `key` in creation order until none is left (on that
  /// actor).
  private static func drain(_ key: ObjectIdentifier) {
    while let next = popFirst(key) {
      Reaction.$maximumFlushRounds.withValue(next.maximumFlushRounds) {
        Reaction.$_diagnosticHandler.withValue(next.diagnosticHandler) {
          next.reaction.runHandedOffNow()
        }
      }
    }
  }

  /// The pending reaction of the actor `key` created first, or `nil` (removing the queue, which ends
  /// the drain) if none is left.
  private static func popFirst(_ key: ObjectIdentifier) -> Entry? {
    queues.withLock { queues -> Entry? in
      guard var heap = queues.removeValue(forKey: key), !heap.isEmpty else { return nil }
      let first = heap[0]
      let last = heap.removeLast()
      if !heap.isEmpty {
        heap[0] = last
        siftDown(&heap, from: 0)
      }
      // Kept (possibly empty) while the drain runs the entry: a hand-off meanwhile joins this drain.
      queues[key] = heap
      return first
    }
  }

  private static func siftUp(_ heap: inout Queue, from start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].sequence < heap[parent].sequence else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private static func siftDown(_ heap: inout Queue, from start: Int) {
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
