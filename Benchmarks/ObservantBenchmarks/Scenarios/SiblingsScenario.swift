import Observant
import ObservantHarness
import ObservantStore

/// Two sibling features: a static root "Siblings" with "First" and "Second", each showing its
/// feature's count. They start at 1 and 5, so that every step below changes what they show.
enum SiblingsChange: Sendable {
  case incrementFirst
  case swap
  case resetBoth
}

@MainActor
final class ObservantSiblingsScreen: ScenarioScreen {
  private let store = Store(initialState: SiblingsFeature.State(first: 1, second: 5), reducer: SiblingsFeature.reduce)
  private let tree: RenderTree

  init(tracking: any RenderTracking = ReactionTracking()) {
    let store = self.store
    tree = RenderTree("Siblings", tracking: tracking) { siblings in
      // Scoped in the body, as a SwiftUI parent view would.
      let first = store.scope(state: \.first, action: SiblingsFeature.Action.first)
      let second = store.scope(state: \.second, action: SiblingsFeature.Action.second)
      siblings.child("First") { $0.text("\(first.count)") }
      siblings.child("Second") { $0.text("\(second.count)") }
    }
  }

  func apply(_ change: SiblingsChange) -> StepCount? {
    let action: SiblingsFeature.Action =
      switch change {
      case .incrementFirst: .first(.increment)
      case .swap: .swap
      case .resetBoth: .resetBoth
      }
    return StepCount(runs: tree.step { store.send(action) }.runCount)
  }
}

@MainActor
final class AppleValueSiblingsScreen: ScenarioScreen {
  private let model = AppleValueSiblingsModel(first: 1, second: 5)
  private let tree: RenderTree

  init() {
    let model = self.model
    tree = RenderTree("Siblings", tracking: AppleObservationTracking()) { siblings in
      siblings.child("First") { $0.text("\(model.first.count)") }
      siblings.child("Second") { $0.text("\(model.second.count)") }
    }
  }

  func apply(_ change: SiblingsChange) -> StepCount? {
    StepCount(
      runs: tree.step {
        switch change {
        case .incrementFirst:
          model.first.count += 1
        case .swap:
          let first = model.first
          model.first = model.second
          model.second = first
        case .resetBoth:
          model.first = CounterValue(count: 0)
          model.second = CounterValue(count: 0)
        }
      }.runCount)
  }
}

@MainActor
final class AppleClassSiblingsScreen: ScenarioScreen {
  private let model = AppleClassSiblingsModel(first: 1, second: 5)
  private let tree: RenderTree

  init() {
    let model = self.model
    tree = RenderTree("Siblings", tracking: AppleObservationTracking()) { siblings in
      siblings.child("First") { $0.text("\(model.first.count)") }
      siblings.child("Second") { $0.text("\(model.second.count)") }
    }
  }

  func apply(_ change: SiblingsChange) -> StepCount? {
    StepCount(
      runs: tree.step {
        switch change {
        case .incrementFirst:
          model.first.count += 1
        case .swap:
          let first = model.first
          model.first = model.second
          model.second = first
        case .resetBoth:
          model.first = AppleCounterModel()
          model.second = AppleCounterModel()
        }
      }.runCount)
  }
}

@MainActor
final class PlainSiblingsScreen: ScenarioScreen {
  private final class Box {
    var first = CounterValue(count: 1)
    var second = CounterValue(count: 5)
  }
  private let box = Box()
  private let tracking: BroadcastTracking
  private let tree: RenderTree

  init(policy: BroadcastPolicy) {
    let tracking = BroadcastTracking(policy)
    self.tracking = tracking
    let box = self.box
    tree = RenderTree("Siblings", tracking: tracking) { siblings in
      tracking.viewState { AnyHashable(0) }
      siblings.child("First") { first in
        tracking.viewState { AnyHashable(box.first.count) }
        first.text("\(box.first.count)")
      }
      siblings.child("Second") { second in
        tracking.viewState { AnyHashable(box.second.count) }
        second.text("\(box.second.count)")
      }
    }
  }

  func apply(_ change: SiblingsChange) -> StepCount? {
    tracking.count {
      tree.step {
        tracking.action {
          switch change {
          case .incrementFirst:
            box.first.count += 1
          case .swap:
            (box.first, box.second) = (box.second, box.first)
          case .resetBoth:
            box.first = CounterValue(count: 0)
            box.second = CounterValue(count: 0)
          }
        }
      }.runCount
    }
  }
}

enum SiblingsScenario {
  static let steps: [ScriptStep<SiblingsChange>] = [
    .change("siblings.increment-first", .incrementFirst, minimal: 1, "increment the first (1 to 2): the first"),
    .change("siblings.swap", .swap, minimal: 2, "swap them (2 and 5 trade places): both"),
    .change("siblings.reset-both", .resetBoth, minimal: 2, "replace both by new values (0): both"),
  ]

  @MainActor
  static let screens: [Strategy: @MainActor () -> (any ScenarioScreen<SiblingsChange>)?] = [
    .observant: { ObservantSiblingsScreen() },
    .observantAppleBridge: { ObservantSiblingsScreen(tracking: AppleObservationTracking()) },
    .appleValueArray: { AppleValueSiblingsScreen() },
    .appleRowClasses: { AppleClassSiblingsScreen() },
    .wholeState: { PlainSiblingsScreen(policy: .wholeState) },
    .equatableDiffing: { PlainSiblingsScreen(policy: .equatableDiffing) },
  ]
}
