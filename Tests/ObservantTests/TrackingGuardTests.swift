import Observant
import Testing

@Suite("Tracking guards")
struct TrackingGuardTests {
  @Test("a reaction whose every read was guarded by now-invalid guards does not run, and lets go of its dependencies")
  func allGuardsInvalid() {
    let profile = Profile()
    let readGuard = TrackingGuard()
    let reaction = Reaction { withTrackingGuard(readGuard) { _ = (profile.first, profile.count) } }
    readGuard.invalidate()
    profile.count = 1
    #expect(reaction.runCount == 1)
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
    profile.first = "later"
    #expect(reaction.runCount == 1)
  }

  @Test("a read that is also made unguarded keeps the reaction running")
  func unguardedReadWins() {
    let profile = Profile()
    let readGuard = TrackingGuard()
    let reaction = Reaction {
      withTrackingGuard(readGuard) { _ = profile.count }
      _ = profile.count
    }
    readGuard.invalidate()
    profile.count = 1
    #expect(reaction.runCount == 2)
  }

  @Test("a reaction that also read through a valid guard still runs: guards never hide a change")
  func oneValidGuardSuffices() {
    let profile = Profile()
    let stale = TrackingGuard()
    let valid = TrackingGuard()
    let reaction = Reaction {
      withTrackingGuard(stale) { _ = profile.first }
      withTrackingGuard(valid) { _ = profile.count }
    }
    stale.invalidate()
    profile.first = "changed"  // only read through the stale guard, but the reaction has a live one
    #expect(reaction.runCount == 2)
  }

  @Test("guards do not leak into reactions created inside a guarded read")
  func guardsStayInTheirScope() {
    let profile = Profile()
    let readGuard = TrackingGuard()
    var inner: Reaction?
    let outer = Reaction {
      withTrackingGuard(readGuard) {
        inner = Reaction(ownedByParent: false) { _ = profile.count }
      }
    }
    readGuard.invalidate()
    profile.count = 1
    #expect(inner?.runCount == 2)
    withExtendedLifetime(outer) {}
  }
}
