import Observant
import Synchronization
import Testing

/// A one-shot scope over an object that goes away: what it read is gone, which is a change (as
/// for Apple's `withObservationTracking`).
@Suite("One-shot scopes: an observed object going away")
struct ObjectGoneTests {
  final class Team: Trackable, @unchecked Sendable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var members: [Profile] = [Profile(), Profile()]
    @Tracked var state = Parent()
  }

  final class Counter: Sendable {
    let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
  }

  @Test("withTracking over a weakly held object: its deallocation calls onChange once and releases the closure")
  func objectDeallocated() {
    let fired = Counter()
    let released = Counter()
    var profile: Profile? = Profile()
    do {
      let capture = ReleaseMarker { released.increment() }
      withTracking { [weak profile] in
        _ = profile?.first
        _ = profile?.count
      } onChange: {
        _ = capture
        fired.increment()
      }
    }
    #expect(fired.count == 0)
    #expect(released.count == 0)
    profile = nil
    #expect(fired.count == 1)
    #expect(released.count == 1)
  }

  @Test("withCancellableTracking: one of two objects going away fires once; a cancelled observation never fires")
  func oneOfTwoObjects() {
    let fired = Counter()
    var first: Profile? = Profile()
    let second = Profile()
    let (_, observation) = withCancellableTracking { [weak first] in
      _ = first?.first
      _ = second.first
    } onChange: {
      fired.increment()
    }
    first = nil
    #expect(fired.count == 1)
    second.first = "Grace"
    #expect(fired.count == 1)
    #expect(second.trackingRegistrar.observerEntryCount == 0)
    observation.cancel()

    var third: Profile? = Profile()
    let (_, cancelled) = withCancellableTracking { [weak third] in
      _ = third?.first
    } onChange: {
      fired.increment()
    }
    cancelled.cancel()
    third = nil
    #expect(fired.count == 1)
  }

  @Test("an object going away inside an in-place mutation: onChange runs after it and can read the owner")
  func goneInsideInPlaceMutation() {
    let team = Team()
    let fired = Counter()
    withTracking { [weak member = team.members[1]] in
      _ = member?.first
    } onChange: {
      // Reads the property whose in-place mutation released the member.
      _ = team.members.count
      fired.increment()
    }
    team.members.removeAll()
    #expect(fired.count == 1)
  }

  @Test("the last copy of a value going away is not a change: a scope over a local value hears nothing")
  func valueCopyGone() {
    let fired = Counter()
    var child: Child? = Child()
    withTracking {
      _ = child?.count
    } onChange: {
      fired.increment()
    }
    child = nil
    #expect(fired.count == 0)
  }
}

/// Calls `onRelease` when deallocated.
final class ReleaseMarker: Sendable {
  let onRelease: @Sendable () -> Void
  init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
  deinit { onRelease() }
}
