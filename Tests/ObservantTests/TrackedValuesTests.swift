import Observant
import Testing

/// `TrackedValues`: the values of a closure as an async sequence. Exact sequences: the change
/// that must yield comes from another task after the writes that must not (a spurious wake-up
/// would make `next()` return the old value at once).
@MainActor
@Suite("Tracked values")
struct TrackedValuesTests {
  @Test("the current value first, then one value per transaction that changed what the closure read")
  func exactSequence() async {
    let profile = Profile()
    var values = TrackedValues { profile.count }.makeAsyncIterator()
    #expect(await values.next() == 0)
    profile.count = 1
    #expect(await values.next() == 1)
    transaction {
      profile.count = 2
      profile.count = 3
    }
    #expect(await values.next() == 3)  // two writes in one transaction: one value
    profile.first = "Grace"  // not read
    profile.count = 3  // equal
    transaction {  // set and set back
      profile.count += 1
      profile.count -= 1
    }
    Task { profile.count = 4 }
    #expect(await values.next() == 4)
  }

  @Test("a loop that falls behind gets the latest value once, nothing buffered")
  func latestValue() async {
    let profile = Profile()
    var values = TrackedValues { profile.count }.makeAsyncIterator()
    #expect(await values.next() == 0)
    for value in 1...100 { profile.count = value }  // 100 transactions before the next iteration
    #expect(await values.next() == 100)
    Task { profile.count = 101 }
    #expect(await values.next() == 101)
  }

  @Test("value-type fields: only the fields read, copies and identity rules")
  func valueTypes() async {
    let holder = Holder()
    var values = TrackedValues { holder.state.child.count }.makeAsyncIterator()
    #expect(await values.next() == 0)
    holder.state.title = "Other"
    var copy = holder.state.child
    copy.name = "Edited"
    holder.state.child = copy  // an edited copy whose count did not change
    var draft = holder.state.child
    draft.count = 9  // a detached copy... whose first write replaces the state read: a value is due
    #expect(await values.next() == 0)
    draft.count = 10  // the draft's own state now: not read
    Task { holder.state.child.count = 5 }
    #expect(await values.next() == 5)
  }

  @Test("a branch no longer taken stops mattering")
  func dynamicDependencies() async {
    let profile = Profile()
    var values = TrackedValues { profile.first == "Ada" ? profile.count : profile.other }.makeAsyncIterator()
    #expect(await values.next() == 0)
    profile.first = "Grace"
    #expect(await values.next() == 0)  // now reads `other`
    profile.count = 7  // no longer read
    Task { profile.other = 2 }
    #expect(await values.next() == 2)
  }

  @Test("a derived value read yields only when its value changes")
  func derivedInput() async {
    let profile = Profile()
    let half = Derived("half") { profile.count / 2 }
    var values = TrackedValues { half.value }.makeAsyncIterator()
    #expect(await values.next() == 0)
    profile.count = 1  // half is still 0
    Task { profile.count = 4 }
    #expect(await values.next() == 2)
  }

  @Test("cancelling the iterating task ends the sequence and removes every observer entry")
  func cancellation() async {
    let profile = Profile()
    let (firstValue, seen) = AsyncStream.makeStream(of: Int.self)
    let loop = Task {
      var received: [Int] = []
      for await value in TrackedValues({ profile.count }) {
        received.append(value)
        seen.yield(value)
      }
      return received
    }
    for await _ in firstValue { break }  // the loop is waiting for a change now (or about to)
    loop.cancel()
    #expect(await loop.value == [0])
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
    profile.count = 1  // nobody listens
  }

  @Test("leaving the loop removes every observer entry")
  func leavingTheLoop() async {
    let profile = Profile()
    for await value in TrackedValues({ profile.count + profile.other }) {
      #expect(value == 0)
      break
    }
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("a closure that reads nothing tracked yields its value, then ends")
  func nothingTracked() async {
    var values = TrackedValues { 42 }.makeAsyncIterator()
    #expect(await values.next() == 42)
    #expect(await values.next() == nil)
    #expect(await values.next() == nil)
  }

  @Test("an object that goes away counts as a change: a weak capture now reads nothing, and the sequence ends")
  func objectGoesAway() async {
    var profile: Profile? = Profile()
    weak let weakProfile = profile
    var values = TrackedValues { weakProfile?.count }.makeAsyncIterator()
    #expect(await values.next() == .some(0))
    profile = nil
    #expect(await values.next() == .some(nil))
    #expect(await values.next() == nil)
  }

  @Test(
    "the observed object deallocated on another thread while the loop waits: the loop wakes, yields what the closure reads now, and ends",
    .timeLimit(.minutes(10))
  )
  func objectDeallocatedOnAnotherThread() async {
    let box = Shared<Profile?>(Profile())
    weak let weakProfile = box.value
    let (started, started_) = AsyncStream.makeStream(of: Int?.self)
    let loop = Task {
      var received: [Int?] = []
      for await value in TrackedValues({ weakProfile?.count }) {
        received.append(value)
        started_.yield(value)
      }
      return received
    }
    var iterator = started.makeAsyncIterator()
    #expect(await iterator.next() == .some(0))  // the loop waits for a change now (or is about to)
    await Task.detached { box.value = nil }.value  // the last reference goes on another thread
    #expect(await loop.value == [0, nil])
    #expect(weakProfile == nil)
  }
}
