import Dispatch
import Observant
import ObservantObservationBridge
import ObservantTestSupport
import Observation
import Synchronization
import Testing

// The scenarios of Apple's Observation tests (swiftlang/swift, test/stdlib/Observation), run with
// Apple's own `withObservationTracking` and `Observations` over Observant types through the
// observation bridge, asserting what the bridge's documentation promises (a change is reported
// once the writing transaction ended, after the value changed).

private final class HPBCount: Sendable {
  private let storage = Mutex(0)
  func bump() { storage.withLock { $0 += 1 } }
  var value: Int { storage.withLock { $0 } }
}

private class HPBEntity: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var age = 0
}

private class HPBPerson: HPBEntity, @unchecked Sendable {
  @Tracked var firstName = ""
  @Tracked var lastName = ""
  @Tracked var friends: [HPBPerson] = []
  var fullName: String { firstName + " " + lastName }
}

private final class HPBMiddleNamePerson: HPBPerson, @unchecked Sendable {
  @Tracked var middleName = ""
  override var fullName: String { firstName + " " + middleName + " " + lastName }
}

private final class HPBIgnored: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var field = 3
  var ignored = 4
}

private final class HPBAccessAndMutation: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  private var storage = 3
  var field: Int {
    get {
      trackAccess()
      return storage
    }
    set { trackMutation { storage = newValue } }
  }
}

private final class HPBDeinitReporter: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var title = "t"
  let onDeinit: @Sendable () -> Void
  init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
  deinit { onDeinit() }
}

// swift-format-ignore
private struct HPBRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  init(id: Int) { self.id = id }
}

private final class HPBRowList: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var rows: IdentifiedArrayOf<HPBRow> = []
}

@Suite struct HPAppleBridgeSemanticsTests {
  @Test func onChangeOnceOnTheFirstChangeNotForAnEqualWrite() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let count = HPBCount()
      withObservationTracking {
        _ = person.firstName
      } onChange: {
        count.bump()
      }
      person.firstName = ""
      #expect(count.value == 0)
      person.firstName = "c"
      #expect(count.value == 1)
      person.firstName = "d"
      #expect(count.value == 1)
    }
  }

  @Test func writeToAnotherFieldDoesNotFire() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let count = HPBCount()
      withObservationTracking {
        _ = person.lastName
      } onChange: {
        count.bump()
      }
      person.firstName = "c"
      person.age = 1
      #expect(count.value == 0)
    }
  }

  @Test func onChangeSeesTheNewValue() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let seen = Mutex<String?>(nil)
      withObservationTracking {
        _ = person.firstName
      } onChange: { [person] in
        seen.withLock { $0 = withoutTracking { person.firstName } }
      }
      person.firstName = "new"
      #expect(seen.withLock { $0 } == "new")  // documented: reported after the value changed
    }
  }

  @Test func computedAndSubclassFields() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let count = HPBCount()
      withObservationTracking {
        _ = person.fullName
      } onChange: {
        count.bump()
      }
      person.age = 3
      #expect(count.value == 0)
      person.middleName = "m"
      #expect(count.value == 1)
      let ageCount = HPBCount()
      withObservationTracking {
        _ = person.age
      } onChange: {
        ageCount.bump()
      }
      person.age = 4
      #expect(ageCount.value == 1)
    }
  }

  @Test func graphOfObjects() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let friend = HPBMiddleNamePerson()
      person.friends.append(friend)
      let count = HPBCount()
      withObservationTracking {
        _ = person.friends.first?.fullName
      } onChange: {
        count.bump()
      }
      person.middleName = "c"
      #expect(count.value == 0)
      friend.middleName = "c"
      #expect(count.value == 1)
    }
  }

  @Test func nestedAppleScopesShareReadsAsApplesDo() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let inner = HPBCount()
      let outer = HPBCount()
      withObservationTracking {
        withObservationTracking {
          _ = person.firstName
        } onChange: {
          inner.bump()
        }
      } onChange: {
        outer.bump()
      }
      person.firstName = "c"
      #expect(inner.value == 1)
      #expect(outer.value == 1)
      person.firstName = "d"
      #expect(outer.value == 1)
    }
  }

  @Test func observantScopeInsideAnAppleScopeKeepsItsReads() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let inner = HPBCount()
      let outer = HPBCount()
      withObservationTracking {
        withTracking {
          _ = person.firstName
        } onChange: {
          inner.bump()
        }
      } onChange: {
        outer.bump()
      }
      person.firstName = "c"
      #expect(inner.value == 1)
      #expect(outer.value == 0)
    }
  }

  @Test func propagatingObservantScopeInsideAnAppleScopeReportsItsReads() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let inner = HPBCount()
      let outer = HPBCount()
      withObservationTracking {
        withTracking(propagatingToOuterScope: true) {
          _ = person.firstName
        } onChange: {
          inner.bump()
        }
      } onChange: {
        outer.bump()
      }
      person.firstName = "c"
      #expect(inner.value == 1)
      #expect(outer.value == 1)
    }
  }

  @Test func propagatingScopeInsideAnObservantScopeIsNotReportedToApple() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let outer = HPBCount()
      let middle = HPBCount()
      withObservationTracking {
        withTracking {
          withTracking(propagatingToOuterScope: true) {
            _ = person.firstName
          } onChange: {
          }
        } onChange: {
          middle.bump()
        }
      } onChange: {
        outer.bump()
      }
      person.firstName = "c"
      #expect(middle.value == 1)
      #expect(outer.value == 0)
    }
  }

  @Test func ignoredAndWithoutTrackingReadsAreNotReported() {
    ObservationBridge.withBridgeForTesting {
      let model = HPBIgnored()
      let count = HPBCount()
      withObservationTracking {
        _ = model.ignored
        _ = withoutTracking { model.field }
      } onChange: {
        count.bump()
      }
      model.ignored = 1
      model.field = 4
      #expect(count.value == 0)
    }
  }

  @Test func ignoredNextToATrackedField() {
    ObservationBridge.withBridgeForTesting {
      let model = HPBIgnored()
      let count = HPBCount()
      withObservationTracking {
        _ = model.ignored
        _ = model.field
      } onChange: {
        count.bump()
      }
      model.ignored = 1
      #expect(count.value == 0)
      model.field = 4
      #expect(count.value == 1)
    }
  }

  @Test func handWrittenMutationAlwaysNotifies() {
    ObservationBridge.withBridgeForTesting {
      let model = HPBAccessAndMutation()
      let count = HPBCount()
      withObservationTracking {
        _ = model.field
      } onChange: {
        count.bump()
      }
      model.field = 3
      #expect(count.value == 1)
    }
  }

  @Test func transactionReportsOnceWhenItEndsAndNothingForSetAndSetBack() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let count = HPBCount()
      withObservationTracking {
        _ = person.firstName
        _ = person.lastName
      } onChange: {
        count.bump()
      }
      transaction {
        person.firstName = "a"
        person.firstName = ""
      }
      #expect(count.value == 0)
      let inside: Int = transaction {
        person.firstName = "a"
        person.lastName = "b"
        return count.value
      }
      #expect(inside == 0)
      #expect(count.value == 1)
    }
  }

  @Test func reactionReadsAreNotReportedToAnEnclosingAppleScope() {
    ObservationBridge.withBridgeForTesting {
      let person = HPBMiddleNamePerson()
      let outer = HPBCount()
      let reaction = withObservationTracking {
        Reaction("inner") { _ = person.firstName }
      } onChange: {
        outer.bump()
      }
      person.firstName = "c"
      #expect(reaction.runCount == 2)
      #expect(outer.value == 0)
    }
  }

  @Test func rowFieldPrecision() {
    ObservationBridge.withBridgeForTesting {
      let list = HPBRowList()
      list.rows = [HPBRow(id: 1), HPBRow(id: 2)]
      let count = HPBCount()
      withObservationTracking {
        _ = list.rows[id: 1]?.count
      } onChange: {
        count.bump()
      }
      list.rows[id: 2]?.count = 5
      #expect(count.value == 0)
      list.rows[id: 1]?.count = 1
      #expect(count.value == 1)
    }
  }

  @Test func observedObjectGoingAwayIsOneLastChange() {
    ObservationBridge.withBridgeForTesting {
      let count = HPBCount()
      let gone = HPBCount()
      var model: HPBDeinitReporter? = HPBDeinitReporter { gone.bump() }
      withObservationTracking { [weak model] in
        _ = model?.title
      } onChange: {
        count.bump()
      }
      model = nil
      #expect(gone.value == 1)
      #expect(count.value == 1)
    }
  }

  @Test func writesOnOtherThreadsAfterInstallationAreReported() {
    ObservationBridge.withBridgeForTesting {
      let people = (0..<4).map { _ in HPBMiddleNamePerson() }
      let counts = (0..<4).map { _ in HPBCount() }
      for i in 0..<4 {
        withObservationTracking {
          _ = people[i].firstName
        } onChange: {
          counts[i].bump()
        }
      }
      DispatchQueue.concurrentPerform(iterations: 4) { i in
        ObservationBridge.withBridgeForTesting { people[i].firstName = "x" }
      }
      #expect(counts.allSatisfy { $0.value >= 1 })
    }
  }

  @MainActor @Test func appleObservationsOverAnObservantField() async {
    let person = HPBMiddleNamePerson()
    let run = Task { @MainActor in
      await ObservationBridge.withBridgeForTesting {
        var iterator = Observations { person.firstName }.makeAsyncIterator()
        let first = await iterator.next()
        Task { @MainActor in
          ObservationBridge.withBridgeForTesting {
            person.firstName = "a"
            person.lastName = "not read"
            person.firstName = "b"
          }
        }
        let second = await iterator.next()
        return [first, second]
      }
    }
    let watchdog = Task { @MainActor in  // a safety net only: cancelling ends the iteration
      try? await Task.sleep(for: .seconds(safetyNetSeconds))
      if !Task.isCancelled { run.cancel() }
    }
    #expect(await run.value == ["", "b"])
    watchdog.cancel()
  }
}
