import Observant
import ObservantHarness
import ObservantStore

/// A counter screen: a static root ("Counter") and a label showing the count ("Label").
enum CounterChange: Sendable {
  case increment
  case set(Int)
}

@MainActor
final class ObservantCounterScreen: ScenarioScreen {
  private let store = Store(initialState: CounterFeature.State(), reducer: CounterFeature.reduce)
  private let tree: RenderTree

  init(tracking: any RenderTracking = ReactionTracking()) {
    let store = self.store
    tree = RenderTree("Counter", tracking: tracking) { counter in
      counter.text("Counter")
      counter.child("Label") { $0.text("\(store.count)") }
    }
  }

  func apply(_ change: CounterChange) -> StepCount? {
    let action: CounterFeature.Action =
      switch change {
      case .increment: .increment
      case .set(let value): .set(value)
      }
    return StepCount(runs: tree.step { store.send(action) }.runCount)
  }
}

/// Both Apple strategies: one `@Observable` class with the count.
@MainActor
final class AppleCounterScreen: ScenarioScreen {
  private let model = AppleCounterModel()
  private let tree: RenderTree

  init() {
    let model = self.model
    tree = RenderTree("Counter", tracking: AppleObservationTracking()) { counter in
      counter.text("Counter")
      counter.child("Label") { $0.text("\(model.count)") }
    }
  }

  func apply(_ change: CounterChange) -> StepCount? {
    let step = tree.step {
      switch change {
      case .increment: model.count += 1
      case .set(let value): model.count = value
      }
    }
    return StepCount(runs: step.runCount)
  }
}

/// Whole-state and diffing: the count in a plain struct.
@MainActor
final class PlainCounterScreen: ScenarioScreen {
  private final class Box { var state = CounterValue(count: 0) }
  private let box = Box()
  private let tracking: BroadcastTracking
  private let tree: RenderTree

  init(policy: BroadcastPolicy) {
    let tracking = BroadcastTracking(policy)
    self.tracking = tracking
    let box = self.box
    tree = RenderTree("Counter", tracking: tracking) { counter in
      tracking.viewState { AnyHashable(0) }
      counter.text("Counter")
      counter.child("Label") { label in
        tracking.viewState { AnyHashable(box.state.count) }
        label.text("\(box.state.count)")
      }
    }
  }

  func apply(_ change: CounterChange) -> StepCount? {
    tracking.count {
      tree.step {
        tracking.action {
          switch change {
          case .increment: box.state.count += 1
          case .set(let value): box.state.count = value
          }
        }
      }.runCount
    }
  }
}

enum CounterScenario {
  static let steps: [ScriptStep<CounterChange>] = [
    .change("counter.increment", .increment, minimal: 1, "increment: the label")
  ]

  static let equalValueSteps: [ScriptStep<CounterChange>] = [
    .change("equal-value.counter", .set(0), minimal: 0, "set the count to the value it has: nothing")
  ]

  @MainActor
  static let screens: [Strategy: @MainActor () -> (any ScenarioScreen<CounterChange>)?] = [
    .observant: { ObservantCounterScreen() },
    .observantAppleBridge: { ObservantCounterScreen(tracking: AppleObservationTracking()) },
    .appleValueArray: { AppleCounterScreen() },
    .appleRowClasses: { AppleCounterScreen() },
    .wholeState: { PlainCounterScreen(policy: .wholeState) },
    .equatableDiffing: { PlainCounterScreen(policy: .equatableDiffing) },
  ]
}
