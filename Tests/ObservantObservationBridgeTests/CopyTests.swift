import Observant
import ObservantObservationBridge
import Observation
import Testing

/// Copies of value state through the bridge: drafts, undo snapshots and copy-mutate-assign
/// behave for Apple's tracking as they do for Observant's readers.
@Suite("Observation bridge: copies")
struct BridgeCopyTests {
  private func observe<Value>(_ read: () -> Value) -> Firings {
    let firings = Firings()
    _ = withObservationTracking(read, onChange: firings.onChange)
    return firings
  }

  @Test("a draft's writes disturb the live value's readers at most once")
  func draft() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      var draft = profile.state.child
      let live = observe { profile.state.child.count }
      draft.count += 1  // replaces the state the live reader read: heard once
      #expect(live.value == 1)
      let liveAgain = observe { profile.state.child.count }
      draft.count += 1
      draft.count += 1
      #expect(liveAgain.value == 0)
      profile.state.child.count = 5
      #expect(liveAgain.value == 1)
    }
  }

  @Test("a draft saved later fires the readers of the fields it changed")
  func draftSaved() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      var draft = profile.state.child
      draft.title = "Edited"
      let title = observe { profile.state.child.title }
      let count = observe { profile.state.child.count }
      profile.state.child = draft
      #expect(title.value == 1 && count.value == 0)
    }
  }

  @Test("copy-mutate-assign of a row fires that row's readers only")
  func copyMutateAssign() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      profile.state.rows = [Counter(id: 1), Counter(id: 2)]
      let rowOne = observe { profile.state.rows[id: 1]?.count }
      let rowTwo = observe { profile.state.rows[id: 2]?.count }
      var row = profile.state.rows[id: 1]!
      row.count += 1
      profile.state.rows[id: 1] = row
      #expect(rowOne.value == 1 && rowTwo.value == 0)
    }
  }

  @Test("an undo snapshot restored fires the readers of what it changes back, and nothing else")
  func undo() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let saved = profile.state
      profile.state.title = "Edited"
      let title = observe { profile.state.title }
      let childCount = observe { profile.state.child.count }
      profile.state = saved
      #expect(title.value == 1 && childCount.value == 0)
      let titleAgain = observe { profile.state.title }
      profile.state = saved  // the same content again: nothing
      #expect(titleAgain.value == 0)
    }
  }

  @Test("a reader of a detached copy hears that copy's writes, not the live value's later ones")
  func detachedCopy() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      var copy = profile.state.child
      copy.count = 1  // the copy is now in a state of its own
      let copyReader = observe { copy.count }
      profile.state.child.count = 7
      #expect(copyReader.value == 0)
      copy.count = 2
      #expect(copyReader.value == 1)
    }
  }
}
