import Observant
import ObservantHarness
import ObservantStore

/// An enum destination: a root "Parent" that shows "Detail" or "Edit" (each showing the payload's
/// count) depending on the destination's case.
enum DestinationChange: Sendable {
  case showDetail
  case incrementDetail
  /// The same payload moves under the other case.
  case switchToEdit
  case dismiss
}

@MainActor
final class ObservantDestinationScreen: ScenarioScreen {
  private let store = Store(
    initialState: DestinationFeature.State(), reducer: DestinationFeature.reduce,
    diagnostics: StoreDiagnostics(printing: false))
  private let tree: RenderTree

  init(tracking: any RenderTracking = ReactionTracking()) {
    let store = self.store
    tree = RenderTree("Parent", tracking: tracking) { parent in
      if let detail = store.scope(state: \.destination?.detail, action: DestinationFeature.Action.detail) {
        parent.child("Detail") { $0.text("detail: \(detail.count)") }
      } else if let edit = store.scope(state: \.destination?.edit, action: DestinationFeature.Action.edit) {
        parent.child("Edit") { $0.text("edit: \(edit.count)") }
      } else {
        parent.text("no destination")
      }
    }
  }

  func apply(_ change: DestinationChange) -> StepCount? {
    let action: DestinationFeature.Action =
      switch change {
      case .showDetail: .showDetail
      case .incrementDetail: .detail(.increment)
      case .switchToEdit: .switchToEdit
      case .dismiss: .dismiss
      }
    return StepCount(runs: tree.step { store.send(action) }.runCount)
  }
}

@MainActor
final class AppleValueDestinationScreen: ScenarioScreen {
  private let model = AppleValueDestinationModel()
  private let tree: RenderTree

  init() {
    let model = self.model
    tree = RenderTree("Parent", tracking: AppleObservationTracking()) { parent in
      switch model.destination {
      case .detail:
        parent.child("Detail") { context in
          if case .detail(let payload) = model.destination { context.text("detail: \(payload.count)") }
        }
      case .edit:
        parent.child("Edit") { context in
          if case .edit(let payload) = model.destination { context.text("edit: \(payload.count)") }
        }
      case nil:
        parent.text("no destination")
      }
    }
  }

  func apply(_ change: DestinationChange) -> StepCount? {
    StepCount(
      runs: tree.step {
        switch change {
        case .showDetail:
          model.destination = .detail(CounterValue(count: 0))
        case .incrementDetail:
          if case .detail(var payload) = model.destination {
            payload.count += 1
            model.destination = .detail(payload)
          }
        case .switchToEdit:
          if case .detail(let payload) = model.destination { model.destination = .edit(payload) }
        case .dismiss:
          model.destination = nil
        }
      }.runCount)
  }
}

@MainActor
final class AppleClassDestinationScreen: ScenarioScreen {
  private let model = AppleClassDestinationModel()
  private let tree: RenderTree

  init() {
    let model = self.model
    tree = RenderTree("Parent", tracking: AppleObservationTracking()) { parent in
      switch model.destination {
      case .detail(let payload):
        parent.child("Detail", input: ObjectInput(payload)) { $0.text("detail: \(payload.count)") }
      case .edit(let payload):
        parent.child("Edit", input: ObjectInput(payload)) { $0.text("edit: \(payload.count)") }
      case nil:
        parent.text("no destination")
      }
    }
  }

  func apply(_ change: DestinationChange) -> StepCount? {
    StepCount(
      runs: tree.step {
        switch change {
        case .showDetail:
          model.destination = .detail(AppleCounterModel())
        case .incrementDetail:
          if case .detail(let payload) = model.destination { payload.count += 1 }
        case .switchToEdit:
          if case .detail(let payload) = model.destination { model.destination = .edit(payload) }
        case .dismiss:
          model.destination = nil
        }
      }.runCount)
  }
}

@MainActor
final class PlainDestinationScreen: ScenarioScreen {
  private final class Box { var destination: ValueDestination? = nil }
  private let box = Box()
  private let tracking: BroadcastTracking
  private let tree: RenderTree

  init(policy: BroadcastPolicy) {
    let tracking = BroadcastTracking(policy)
    self.tracking = tracking
    let box = self.box
    let caseName = { () -> String in
      switch box.destination {
      case .detail: "detail"
      case .edit: "edit"
      case nil: "none"
      }
    }
    let payloadCount = { () -> Int? in
      switch box.destination {
      case .detail(let payload), .edit(let payload): payload.count
      case nil: nil
      }
    }
    tree = RenderTree("Parent", tracking: tracking) { parent in
      tracking.viewState { AnyHashable(caseName()) }
      switch box.destination {
      case .detail:
        parent.child("Detail") { detail in
          tracking.viewState { AnyHashable(payloadCount()) }
          detail.text("detail: \(payloadCount() ?? 0)")
        }
      case .edit:
        parent.child("Edit") { edit in
          tracking.viewState { AnyHashable(payloadCount()) }
          edit.text("edit: \(payloadCount() ?? 0)")
        }
      case nil:
        parent.text("no destination")
      }
    }
  }

  func apply(_ change: DestinationChange) -> StepCount? {
    tracking.count {
      tree.step {
        tracking.action {
          switch change {
          case .showDetail:
            box.destination = .detail(CounterValue(count: 0))
          case .incrementDetail:
            if case .detail(var payload) = box.destination {
              payload.count += 1
              box.destination = .detail(payload)
            }
          case .switchToEdit:
            if case .detail(let payload) = box.destination { box.destination = .edit(payload) }
          case .dismiss:
            box.destination = nil
          }
        }
      }.runCount
    }
  }
}

enum DestinationScenario {
  static let steps: [ScriptStep<DestinationChange>] = [
    .change("destination.show-detail", .showDetail, minimal: 2, "show the detail: the parent and the new detail"),
    .change("destination.mutate-detail", .incrementDetail, minimal: 1, "increment inside the detail: the detail"),
    .change(
      "destination.switch-case", .switchToEdit, minimal: 2,
      "switch to edit with the same payload: the parent and the new edit screen"),
    .change("destination.dismiss", .dismiss, minimal: 1, "dismiss: the parent"),
  ]

  @MainActor
  static let screens: [Strategy: @MainActor () -> (any ScenarioScreen<DestinationChange>)?] = [
    .observant: { ObservantDestinationScreen() },
    .observantAppleBridge: { ObservantDestinationScreen(tracking: AppleObservationTracking()) },
    .appleValueArray: { AppleValueDestinationScreen() },
    .appleRowClasses: { AppleClassDestinationScreen() },
    .wholeState: { PlainDestinationScreen(policy: .wholeState) },
    .equatableDiffing: { PlainDestinationScreen(policy: .equatableDiffing) },
  ]
}
