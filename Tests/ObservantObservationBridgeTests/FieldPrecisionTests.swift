import Observant
import ObservantObservationBridge
import Observation
import Testing

/// Apple's `withObservationTracking` over Observant fields, through the bridge: it fires for the
/// fields read, by Observant's rules, once the writing transaction ended.
@Suite("Observation bridge: fields")
struct FieldPrecisionTests {
  /// Installs a one-shot Apple scope around `read` and returns its firing counter.
  private func observe<Value>(_ read: () -> Value) -> Firings {
    let firings = Firings()
    _ = withObservationTracking(read, onChange: firings.onChange)
    return firings
  }

  @Test("only the fields read fire")
  func onlyFieldsRead() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let firings = Firings()
      let name = withObservationTracking {
        profile.name
      } onChange: {
        firings.onChange()
      }
      #expect(name == "Ada")
      profile.count += 1
      profile.state.title = "Other"
      #expect(firings.value == 0)
      profile.name = "Grace"
      #expect(firings.value == 1)
      profile.name = "Ada"
      #expect(firings.value == 1)  // one-shot
    }
  }

  @Test("a value-type field fires for its own field only, through every level")
  func valueTypeFields() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      profile.state.rows = [Counter(id: 1), Counter(id: 2)]
      let child = observe { profile.state.child.count }
      let rowOne = observe { profile.state.rows[id: 1]?.count }
      let rowIDs = observe { profile.state.rows.ids }
      profile.state.title = "Other"
      profile.state.child.title = "Other"
      profile.state.rows[id: 2]!.count += 1
      #expect([child.value, rowOne.value, rowIDs.value] == [0, 0, 0])
      profile.state.child.count += 1
      #expect([child.value, rowOne.value, rowIDs.value] == [1, 0, 0])
      profile.state.rows[id: 1]!.count += 1
      #expect([child.value, rowOne.value, rowIDs.value] == [1, 1, 0])
      profile.state.rows.append(Counter(id: 3))
      #expect([child.value, rowOne.value, rowIDs.value] == [1, 1, 1])
    }
  }

  @Test("an equal write is silent")
  func equalWrites() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let name = observe { profile.name }
      let count = observe { profile.state.child.count }
      profile.name = "Ada"
      profile.state.child.count = 0
      profile.state.child.count += 0
      #expect(name.value == 0 && count.value == 0)
    }
  }

  @Test(
    "identity rules: a child replaced by an edited copy of itself fires only the fields that differ; a new child fires its slot"
  )
  func identityRules() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let title = observe { profile.state.child.title }
      var copy = profile.state.child
      copy.count += 1
      profile.state.child = copy  // same identity: `count` differs, `title` does not
      #expect(title.value == 0)
      let count = observe { profile.state.child.count }
      profile.state.child = Counter()  // a new value: the slot's readers hear it
      #expect(title.value == 1 && count.value == 1)
    }
  }

  @Test("a transaction that sets a field and sets it back fires nothing")
  func revertedTransaction() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let count = observe { profile.count }
      let childCount = observe { profile.state.child.count }
      transaction {
        profile.count += 1
        profile.count -= 1
        profile.state.child.count += 1
        profile.state.child.count -= 1
      }
      #expect(count.value == 0 && childCount.value == 0)
      profile.count += 1
      profile.state.child.count += 1
      #expect(count.value == 1 && childCount.value == 1)
    }
  }

  @Test("a scope that read the value in between hears the field set back")
  func readInBetween() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let before = observe { profile.count }  // the transaction's writes are recorded for it
      var count: Firings?
      var childCount: Firings?
      transaction {
        profile.count += 1
        profile.state.child.count += 1
        count = observe { profile.count }  // reads 1
        childCount = observe { profile.state.child.count }
        profile.count -= 1
        profile.state.child.count -= 1
      }
      #expect(count?.value == 1 && childCount?.value == 1)
      #expect(before.value == 0)
    }
  }

  @Test("a scope that installs after the state it read was replaced still hears the next write")
  func installedAfterTheWrite() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let firings = Firings()
      // Apple installs a scope's observers when its closure returns: a write made before that
      // (here by the closure itself; in general by another thread) is not reported to it, for
      // Observant fields as for @Observable ones. The next one is.
      let read = withObservationTracking { () -> Int in
        let count = profile.state.child.count
        profile.state.child.count += 1
        return count
      } onChange: {
        firings.onChange()
      }
      #expect(read == 0 && firings.value == 0)
      var copy = profile.state.child
      copy.count = 10  // a copy's write: heard too (the watcher it installed on hears every write)
      #expect(firings.value == 1)
      let again = observe { profile.state.child.count }
      profile.state.child.count += 1
      #expect(again.value == 1 && firings.value == 1)
    }
  }

  @Test("a write fires once the transaction ended, after the value changed")
  func afterTheWrite() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let seen = Seen()
      _ = withObservationTracking {
        profile.count
      } onChange: { [seen] in
        seen.record(profile.count)
      }
      transaction {
        profile.count = 1
        profile.count = 2
        #expect(seen.values == [])
      }
      #expect(seen.values == [2])
    }
  }

  @Test("a weak reference field fires when another object is assigned")
  func weakReference() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let friend = Profile()
      let firings = observe { profile.friend?.name }
      profile.friend = friend
      #expect(firings.value == 1)
      let again = observe { profile.friend?.name }
      friend.name = "Grace"
      profile.friend = friend
      #expect(again.value == 1)  // its name, not the reference
    }
  }

  @Test("a derived value fires when its value changes, not when an input changes to the same result")
  func derivedValues() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let half = Derived("half") { profile.count / 2 }
      let firings = observe { half.value }
      profile.count = 1  // 1 / 2 == 0: unchanged
      #expect(firings.value == 0)
      profile.count = 2
      #expect(firings.value == 1)
    }
  }

  @Test("reads inside withoutTracking, and inside Observant's own scopes, are not reported")
  func unreportedReads() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let hidden = observe { withoutTracking { profile.name } }
      let inReaction = Firings()
      var reaction: Reaction?
      withObservationTracking {
        reaction = Reaction { _ = profile.count }
      } onChange: {
        inReaction.onChange()
      }
      #expect(profile.trackingRegistrar.observerEntryCount == 1)  // the reaction's
      profile.name = "Grace"
      profile.count += 1
      #expect(hidden.value == 0 && inReaction.value == 0)
      #expect(reaction?.runCount == 2)
    }
  }

  @Test("entries do not grow with reads: one per field of a class, one per current state of a value's field")
  func boundedEntries() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      for _ in 0..<100 {
        _ = withObservationTracking {
          (profile.name, profile.count)
        } onChange: {
        }
        _ = profile.name
      }
      #expect(profile.trackingRegistrar.observerEntryCount == 2)
      let state = profile.state
      for round in 0..<100 {
        _ = withObservationTracking {
          profile.state.child.count
        } onChange: {
        }
        profile.state.child.count = round + 1
      }
      // The slot `state` of the class, and the current state of `child` and of its `count`.
      #expect(profile.trackingRegistrar.observerEntryCount == 3)
      #expect(state.registrar.observerEntryCount == 1)
      // The last write replaced the state read last: its watcher reported it and went.
      #expect(state.child.registrar.observerEntryCount == 0)
      _ = profile.state.child.count
      #expect(state.child.registrar.observerEntryCount == 1)
    }
  }

  @Test("copies read in many states: entries stay bounded per field")
  func boundedStates() {
    ObservationBridge.withBridgeForTesting {
      var screen = Screen()
      var copies: [Screen] = []
      for round in 0..<50 {
        screen.title = "\(round)"
        copies.append(screen)
      }
      for copy in copies { _ = copy.title }
      // Eight states watched one by one, then one watcher of the whole field for the others.
      #expect(screen.registrar.observerEntryCount == 9)
      let firings = observe { copies[20].title }
      screen.title = "last"  // a write of the field, from another state: heard by the field's watcher
      #expect(firings.value == 1)
    }
  }

  @Test(
    "withTracking(propagatingToOuterScope: true) inside withObservationTracking: the outer Apple scope hears what the inner scope read"
  )
  func propagationReachesAppleScope() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let outer = Firings()
      let inner = Firings()
      withObservationTracking {
        withTracking(propagatingToOuterScope: true) {
          _ = profile.count
        } onChange: {
          inner.onChange()
        }
      } onChange: {
        outer.onChange()
      }
      profile.name = "Grace"  // not read
      #expect(outer.value == 0)
      profile.count = 1
      #expect(inner.value == 1)
      #expect(outer.value == 1)
    }
  }

  @Test("propagation is opt-in, reaches through nested propagating scopes, and stops at a scope that keeps its reads")
  func propagationRules() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let kept = Firings()
      withObservationTracking {
        withTracking {
          _ = profile.count
        } onChange: {
        }  // keeps its reads: Apple's scope read nothing
      } onChange: {
        kept.onChange()
      }
      let nested = Firings()
      withObservationTracking {
        withTracking(propagatingToOuterScope: true) {
          withTracking(propagatingToOuterScope: true) {
            _ = profile.name
          } onChange: {
          }
        } onChange: {
        }
      } onChange: {
        nested.onChange()
      }
      let recorded = Firings()
      withObservationTracking {
        _ = recordAccesses(propagatingToOuterScope: true) { _ = profile.state.title }
      } onChange: {
        recorded.onChange()
      }
      profile.count = 1
      profile.name = "Grace"
      profile.state.title = "Other"
      #expect(kept.value == 0)
      #expect(nested.value == 1)
      #expect(recorded.value == 1)
    }
  }

  @Test("an object that goes away fires its readers once, and takes the bridge's entries with it")
  func objectGoesAway() {
    ObservationBridge.withBridgeForTesting {
      var profile: Profile? = Profile()
      weak let weakProfile = profile
      let firings = observe { profile!.name }
      #expect(profile!.trackingRegistrar.observerEntryCount == 1)
      profile = nil
      #expect(weakProfile == nil)
      #expect(firings.value == 1)
    }
  }
}

/// Values recorded by an `onChange` (on the writing thread, here the test's).
final class Seen: @unchecked Sendable {
  private(set) var values: [Int] = []
  func record(_ value: Int) { values.append(value) }
}
