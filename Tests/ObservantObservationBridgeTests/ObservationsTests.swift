import Observant
import ObservantObservationBridge
import ObservantStore
import Observation
import Testing

/// Apple's `Observations` (SE-0475) over Observant fields, through the bridge. It ships with the
/// Swift 6.3 toolchain on Linux (on Apple platforms from the 26 releases).
///
/// `Observations` coalesces: after a change, the next value is the current one. So writes that
/// must yield nothing are made first, and the change that must yield comes from another task
/// afterwards: a spurious firing would make `next()` return the old value at once.
@MainActor
@Suite("Observation bridge: Observations")
struct ObservationsTests {
  @Test(
    "yields the current value, then one value per transaction that changed what it read; equal writes, other fields and set-back transactions yield nothing"
  )
  func exactSequence() async {
    guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
    await ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let values = Observations { profile.count }
      var iterator = values.makeAsyncIterator()
      #expect(await iterator.next() == 0)
      profile.count = 1
      #expect(await iterator.next() == 1)
      transaction {
        profile.count = 2
        profile.count = 3
      }
      #expect(await iterator.next() == 3)
      profile.name = "Grace"
      profile.count = 3
      transaction {
        profile.count += 1
        profile.count -= 1
      }
      Task { profile.count = 4 }
      #expect(await iterator.next() == 4)
    }
  }

  @Test("a value-type field: copies and identity rules hold")
  func valueTypes() async {
    guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
    await ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let values = Observations { profile.state.child.count }
      var iterator = values.makeAsyncIterator()
      #expect(await iterator.next() == 0)
      var copy = profile.state.child
      copy.title = "Edited"
      profile.state.child = copy  // an edited copy: its count did not change
      profile.state.title = "Other"
      Task { profile.state.child.count = 5 }
      #expect(await iterator.next() == 5)
    }
  }

  @Test("a row store's values follow its row only")
  func rowStore() async {
    guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
    await ObservationBridge.withBridgeForTesting {
      let store = Store(initialState: Screen(rows: 1...3), reducer: ListFeature.reduce)
      let rowOne = store.scope(state: \.rows, action: ListFeature.Action.row).store(id: 1)!
      let values = Observations { rowOne.count }
      var iterator = values.makeAsyncIterator()
      #expect(await iterator.next() == 0)
      store.send(.row(id: 2, action: .increment))
      store.send(.add(4))
      store.send(.row(id: 1, action: .incrementAndBack))
      store.send(.row(id: 1, action: .set(0)))
      Task { store.send(.row(id: 1, action: .set(7))) }
      #expect(await iterator.next() == 7)
    }
  }

  @Test(
    "hundreds of transactions from other threads: one value each, in order, none missed or repeated",
    .timeLimit(.minutes(10))
  )
  func manyTransactions() async {
    guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
    await ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      var iterator = Observations { profile.count }.makeAsyncIterator()
      var received = [await iterator.next() ?? -1]
      for value in 1...300 {
        await Task.detached {
          transaction {
            profile.count = value
            profile.name = "\(value)"  // not read
            profile.count = value + 1  // the latest value of the transaction...
            profile.count = value  // ...set back to the first: one change, to `value`
          }
        }.value
        received.append(await iterator.next() ?? -1)
      }
      #expect(received == Array(0...300))
      // Set-back transactions in between yield nothing: the next value is the next real change.
      await Task.detached {
        transaction {
          profile.count += 1; profile.count -= 1
        }
      }.value
      Task.detached { profile.count = 1_000 }
      #expect(await iterator.next() == 1_000)
    }
  }
}
