import Observant
import ObservantHarness
import ObservantStore

/// An optional child: a root "Parent" that presents "Child" (showing the child's count) while the
/// child state exists.
enum OptionalChildChange: Sendable {
  case present
  case incrementChild
  case dismiss
}

@MainActor
final class ObservantOptionalChildScreen: ScenarioScreen {
  private let store = Store(
    initialState: ParentFeature.State(), reducer: ParentFeature.reduce, diagnostics: StoreDiagnostics(printing: false))
  private let tree: RenderTree

  init(tracking: any RenderTracking = ReactionTracking()) {
    let store = self.store
    tree = RenderTree("Parent", tracking: tracking) { parent in
      if let child = store.scope(state: \.child, action: ParentFeature.Action.child) {
        parent.text("presented")
        parent.child("Child") { $0.text("\(child.count)") }
      } else {
        parent.text("dismissed")
      }
    }
  }

  func apply(_ change: OptionalChildChange) -> StepCount? {
    let action: ParentFeature.Action =
      switch change {
      case .present: .present
      case .incrementChild: .child(.increment)
      case .dismiss: .dismiss
      }
    return StepCount(runs: tree.step { store.send(action) }.runCount)
  }
}

@MainActor
final class AppleValueOptionalChildScreen: ScenarioScreen {
  private let model = AppleValueParentModel()
  private let tree: RenderTree

  init() {
    let model = self.model
    tree = RenderTree("Parent", tracking: AppleObservationTracking()) { parent in
      if model.child != nil {
        parent.text("presented")
        parent.child("Child") { $0.text("\(model.child?.count ?? 0)") }
      } else {
        parent.text("dismissed")
      }
    }
  }

  func apply(_ change: OptionalChildChange) -> StepCount? {
    StepCount(
      runs: tree.step {
        switch change {
        case .present: model.child = CounterValue(count: 0)
        case .incrementChild: model.child?.count += 1
        case .dismiss: model.child = nil
        }
      }.runCount)
  }
}

@MainActor
final class AppleClassOptionalChildScreen: ScenarioScreen {
  private let model = AppleClassParentModel()
  private let tree: RenderTree

  init() {
    let model = self.model
    tree = RenderTree("Parent", tracking: AppleObservationTracking()) { parent in
      if let child = model.child {
        parent.text("presented")
        parent.child("Child", input: ObjectInput(child)) { $0.text("\(child.count)") }
      } else {
        parent.text("dismissed")
      }
    }
  }

  func apply(_ change: OptionalChildChange) -> StepCount? {
    StepCount(
      runs: tree.step {
        switch change {
        case .present: model.child = AppleCounterModel()
        case .incrementChild: model.child?.count += 1
        case .dismiss: model.child = nil
        }
      }.runCount)
  }
}

@MainActor
final class PlainOptionalChildScreen: ScenarioScreen {
  private final class Box { var child: CounterValue? = nil }
  private let box = Box()
  private let tracking: BroadcastTracking
  private let tree: RenderTree

  init(policy: BroadcastPolicy) {
    let tracking = BroadcastTracking(policy)
    self.tracking = tracking
    let box = self.box
    tree = RenderTree("Parent", tracking: tracking) { parent in
      tracking.viewState { AnyHashable(box.child != nil) }
      if box.child != nil {
        parent.text("presented")
        parent.child("Child") { child in
          tracking.viewState { AnyHashable(box.child?.count) }
          child.text("\(box.child?.count ?? 0)")
        }
      } else {
        parent.text("dismissed")
      }
    }
  }

  func apply(_ change: OptionalChildChange) -> StepCount? {
    tracking.count {
      tree.step {
        tracking.action {
          switch change {
          case .present: box.child = CounterValue(count: 0)
          case .incrementChild: box.child?.count += 1
          case .dismiss: box.child = nil
          }
        }
      }.runCount
    }
  }
}

enum OptionalChildScenario {
  static let steps: [ScriptStep<OptionalChildChange>] = [
    .change("optional.present", .present, minimal: 2, "present the child: the parent and the new child"),
    .change("optional.mutate-child", .incrementChild, minimal: 1, "increment inside the child: the child"),
    .change("optional.dismiss", .dismiss, minimal: 1, "dismiss: the parent"),
  ]

  @MainActor
  static let screens: [Strategy: @MainActor () -> (any ScenarioScreen<OptionalChildChange>)?] = [
    .observant: { ObservantOptionalChildScreen() },
    .observantAppleBridge: { ObservantOptionalChildScreen(tracking: AppleObservationTracking()) },
    .appleValueArray: { AppleValueOptionalChildScreen() },
    .appleRowClasses: { AppleClassOptionalChildScreen() },
    .wholeState: { PlainOptionalChildScreen(policy: .wholeState) },
    .equatableDiffing: { PlainOptionalChildScreen(policy: .equatableDiffing) },
  ]
}
