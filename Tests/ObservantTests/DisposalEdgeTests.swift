import Observant
import Synchronization
import Testing

// Two ways a reference goes away at an awkward moment: a derived value whose own computation
// releases its last reference, and the object of a `@TrackedWeak` property going away before the
// property is set to `nil`.

private final class DEInputs: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var value = 0
}

private final class DEHolder: @unchecked Sendable {
  var derived: Derived<Int>?
}

private final class DEFriend: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
}

private final class DEOwner: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @TrackedWeak var friend: DEFriend?
}

@Suite("Disposal at awkward moments")
struct DisposalEdgeTests {
  @Test("a derived value released by its own computation, which a reaction's check runs, is disposed after it")
  func derivedReleasedByItsComputation() {
    let inputs = DEInputs()
    let holder = DEHolder()
    holder.derived = Derived("releases itself") {
      let value = inputs.value
      if value == 1 { holder.derived = nil }
      return value
    }
    var shown: [Int?] = []
    let reader = Reaction { shown.append(holder.derived?.value) }
    defer { reader.cancel() }
    #expect(shown == [0])
    #expect(inputs.trackingRegistrar.observerEntryCount == 1)
    inputs.value = 1  // the reader checks the derived value, whose computation releases it
    #expect(holder.derived == nil)
    // Disposed once its computation ended: unlinked from its input.
    #expect(inputs.trackingRegistrar.observerEntryCount == 0)
    inputs.value = 2
    #expect(inputs.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("a derived value released by its own computation, read directly, goes on working")
  func derivedReleasedWhileReadDirectly() {
    let inputs = DEInputs()
    let holder = DEHolder()
    holder.derived = Derived("releases itself") {
      let value = inputs.value
      if value == 1 { holder.derived = nil }
      return value
    }
    let derived = holder.derived!
    #expect(derived.value == 0)
    inputs.value = 1
    #expect(derived.value == 1)  // the caller holds it: it computed, and nothing was disposed
    inputs.value = 2
    #expect(derived.value == 2)
  }

  @Test("@TrackedWeak: nil assigned after the object went away notifies its readers once")
  func weakGoneThenNil() {
    let owner = DEOwner()
    var friend: DEFriend? = DEFriend()
    owner.friend = friend
    var shown: [Bool] = []
    let reader = Reaction { shown.append(owner.friend == nil) }
    defer { reader.cancel() }
    let fired = Atomic(0)
    withTracking {
      _ = owner.friend
    } onChange: {
      fired.add(1, ordering: .relaxed)
    }
    friend = nil  // goes away on its own: nobody is told
    #expect(shown == [false])
    owner.friend = nil
    #expect(shown == [false, true])
    #expect(fired.load(ordering: .relaxed) == 1)
    owner.friend = nil  // nil over nil: nothing
    #expect(shown == [false, true])
    _ = friend
  }

  @Test("@TrackedWeak: nil over a property that never held an object notifies nobody")
  func weakNilOverNil() {
    let owner = DEOwner()
    let reader = Reaction { _ = owner.friend }
    defer { reader.cancel() }
    owner.friend = nil
    #expect(reader.runCount == 1)
    let friend = DEFriend()
    owner.friend = friend
    owner.friend = friend
    #expect(reader.runCount == 2)
    transaction {
      owner.friend = nil
      owner.friend = friend
    }
    #expect(reader.runCount == 2)
  }
}

private final class DEPair: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a = 0
  @Tracked var b = 0
}

@Suite("A withTracking onChange that writes")
struct OnChangeWriteTests {
  @Test("what onChange writes joins the transaction of the write that called it: reactions run once, after both")
  func onChangeWrite() {
    let pair = DEPair()
    var shown: [String] = []
    let reader = Reaction { shown.append("\(pair.a),\(pair.b)") }
    defer { reader.cancel() }
    withTracking {
      _ = pair.a
    } onChange: {
      pair.b = 7
    }
    pair.a = 1
    #expect(shown == ["0,0", "1,7"])
    // Inside a transaction, the same.
    withTracking {
      _ = pair.a
    } onChange: {
      pair.b = 8
    }
    transaction { pair.a = 2 }
    #expect(shown == ["0,0", "1,7", "2,8"])
  }
}

private struct DECounter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set { registrar.write(&_count, newValue) }
  }
  init() {}
}

private final class DECounterHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var counter = DECounter()
  @Tracked var b = 0
}

@Suite("A withTracking onChange that writes, fired inside an in-place mutation")
struct OnChangeWriteInPlaceTests {
  @Test("it runs when the mutation ends; what it writes joins the transaction: reactions run once")
  func inPlace() {
    let holder = DECounterHolder()
    var shown: [String] = []
    let reader = Reaction { shown.append("\(holder.counter.count),\(holder.b)") }
    defer { reader.cancel() }
    withTracking {
      _ = holder.counter.count
    } onChange: {
      holder.b = 7
    }
    holder.counter.count += 1
    #expect(shown == ["0,0", "1,7"])
  }
}
