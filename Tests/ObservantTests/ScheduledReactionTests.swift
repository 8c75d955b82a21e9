@testable import Observant
import Testing

/// Waits for the main actor's next turn: jobs enqueued on it before this call (a reaction's
/// handed-off run) have run when it returns (the main actor runs its jobs in order).
@MainActor
func nextMainActorTurn() async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    Task { @MainActor in continuation.resume() }
  }
}

/// A task-local value of the test's own, for `handedOffRunTaskLocals`.
enum ScheduledMarker {
  @TaskLocal static var value = 0
}

/// `Reaction(scheduling: .mainActor)`: re-runs handed to the main actor's next turn, coalesced.
@MainActor
@Suite("Scheduled reactions")
struct ScheduledReactionTests {
  @Test(
    "a .mainActor reaction re-runs on the main actor's next turn, once, with the latest values, however many transactions dirtied it"
  )
  func coalescedToNextTurn() async {
    let profile = Profile()
    var shown: [Int] = []
    let reaction = Reaction("label", scheduling: .mainActor) { shown.append(profile.count) }
    #expect(shown == [0])  // the first run is immediate
    for value in 1...100 { profile.count = value }  // 100 transactions in this turn
    transaction { profile.first = "Grace" }  // not read
    #expect(shown == [0])
    await nextMainActorTurn()
    #expect(shown == [0, 100])
    #expect(reaction.runCount == 2)
    await nextMainActorTurn()
    #expect(reaction.runCount == 2)
    reaction.cancel()
  }

  @Test(
    "runs handed to the main actor by several transactions run in creation order: a parent before its child, the child once"
  )
  func creationOrderAcrossTransactions() async {
    let profile = Profile()
    var runs: [String] = []
    var child: Reaction?
    let parent = Reaction("parent", scheduling: .mainActor) {
      let count = profile.count
      runs.append("parent")
      // A new input for the child: it re-runs (once) after this run.
      child?.cancel()
      child = Reaction("child", scheduling: .mainActor) { runs.append("child \(profile.first) \(count)") }
    }
    runs = []
    profile.first = "Grace"  // dirties the child first
    profile.count = 1  // then the parent, in a later transaction
    await nextMainActorTurn()
    #expect(runs == ["parent", "child Grace 1"])
    parent.cancel()
    child?.cancel()
  }

  @Test("a child dirtied in an earlier transaction than its parent's re-run that disposes of it does not run")
  func disposedChildDoesNotRunAfterEarlierDirtying() async {
    let profile = Profile()
    var runs: [String] = []
    let parent = Reaction("parent", scheduling: .mainActor) {
      runs.append("parent")
      if profile.count == 0 {
        _ = Reaction("child", scheduling: .mainActor) { runs.append("child \(profile.first)") }
      }
    }
    runs = []
    profile.first = "Grace"  // dirties the child
    profile.count = 1  // then the parent, whose re-run disposes of the child
    await nextMainActorTurn()
    #expect(runs == ["parent"])
    parent.cancel()
  }

  @Test(
    "a handed-off run sees the flush limit of its hand-off, not other task-local values of the code that made the change"
  )
  func handedOffRunTaskLocals() async {
    let profile = Profile()
    var seen: [(marker: Int, rounds: Int)] = []
    let reaction = Reaction("label", scheduling: .mainActor) {
      _ = profile.count
      seen.append((ScheduledMarker.value, Reaction.maximumFlushRounds))
    }
    ScheduledMarker.$value.withValue(7) {
      Reaction.$maximumFlushRounds.withValue(3) { profile.count = 1 }
    }
    await nextMainActorTurn()
    #expect(seen.map(\.marker) == [0, 0])
    #expect(seen.map(\.rounds) == [100, 3])
    reaction.cancel()
  }

  @Test("a .mainActor reaction cancelled before its turn does not run")
  func cancelledBeforeItsTurn() async {
    let profile = Profile()
    let reaction = Reaction("label", scheduling: .mainActor) { _ = profile.count }
    profile.count = 1
    reaction.cancel()
    await nextMainActorTurn()
    #expect(reaction.runCount == 1)
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("a .mainActor reaction dirtied on another thread re-runs on the main actor")
  func dirtiedOffTheMainActor() async {
    let profile = Profile()
    var threads: [Bool] = []
    let reaction = Reaction("label", scheduling: .mainActor) {
      _ = profile.count
      threads.append(ThreadLocal.isOnMainActor)
    }
    await Task.detached { profile.count = 1 }.value
    await nextMainActorTurn()
    #expect(threads == [true, true])
    reaction.cancel()
  }

  @Test(
    "a .mainActor reaction that re-dirties itself stops after maximumFlushRounds turns with a runaway diagnostic naming it; a change from elsewhere re-runs it"
  )
  func scheduledRunaway() async {
    let profile = Profile()
    let diagnostics = Shared<[ReactionDiagnostic]>([])
    // The limit and the handler are task-local: the handed-off runs inherit them.
    let reaction = Reaction.withDiagnosticHandler({ diagnostics.value.append($0) }) {
      Reaction.$maximumFlushRounds.withValue(10) {
        Reaction("feeder", ownedByParent: false, scheduling: .mainActor) {
          let count = profile.count
          if count < 10_000 { profile.count = count + 1 }
        }
      }
    }
    for _ in 0..<50 { await nextMainActorTurn() }
    // As a synchronous flush with 10 rounds: the first run and 10 re-runs, each writing once.
    #expect(reaction.runCount == 11)
    #expect(profile.count == 11)
    #expect(diagnostics.value.count == 1)
    #expect(diagnostics.value.first?.kind == .runawayFlush)
    #expect(diagnostics.value.first?.reactionNames == ["feeder"])
    let message = diagnostics.value.first?.message ?? ""
    #expect(message.contains("feeder") && message.contains("10"), "\(message)")
    // Stopped, not cancelled: a write from outside re-runs it (this one settles it).
    #expect(!reaction.isCancelled)
    profile.count = 20_000
    await nextMainActorTurn()
    #expect(reaction.runCount == 12)
    for _ in 0..<5 { await nextMainActorTurn() }
    #expect(reaction.runCount == 12)
    #expect(diagnostics.value.count == 1)
    reaction.cancel()
  }

  @Test(
    "a .mainActor reaction whose writes settle is never reported: each self-dirtying turn counts toward the limit only while it lasts"
  )
  func scheduledSettles() async {
    let profile = Profile()
    let diagnostics = Shared<[ReactionDiagnostic]>([])
    let reaction = Reaction.withDiagnosticHandler({ diagnostics.value.append($0) }) {
      Reaction.$maximumFlushRounds.withValue(10) {
        Reaction("settler", ownedByParent: false, scheduling: .mainActor) {
          let count = profile.count
          if count % 10 != 0 { profile.count = count + 1 }  // climbs to the next multiple of 10
        }
      }
    }
    for start in [1, 11, 21] {
      profile.count = start  // from outside: 9 self-dirtying turns each time, under the limit
      for _ in 0..<20 { await nextMainActorTurn() }
      #expect(profile.count == start + 9)
    }
    #expect(reaction.runCount == 1 + 3 * 10)
    #expect(diagnostics.value.isEmpty)
    reaction.cancel()
  }

  @Test(
    "a .mainActor reaction reading a variable written in place outside a transaction re-runs after the write's access ended"
  )
  func noOverlappingAccess() async {
    // Synchronously, the re-run would read `state` while `state.child.count += 1` still holds
    // exclusive access to it (a "simultaneous accesses" stop, see the README). Deferred, the
    // access has ended.
    var state = Parent()
    var shown: [Int] = []
    let reaction = Reaction("label", scheduling: .mainActor) { shown.append(state.child.count) }
    state.child.count += 1
    state.child.count += 1
    await nextMainActorTurn()
    #expect(shown == [0, 2])
    reaction.cancel()
  }

  @Test(
    "the same reaction re-run synchronously overlaps the write's access and stops the program (why .mainActor is the safe choice there)"
  )
  func synchronousOverlapStops() async {
    await #expect(processExitsWith: .failure) {
      await MainActor.run {
        var state = Parent()
        var shown: [Int] = []
        let reaction = Reaction("label") { shown.append(state.child.count) }
        state.child.count += 1  // "Simultaneous accesses": the re-run reads `state` inside this access
        reaction.cancel()
      }
    }
  }
}
