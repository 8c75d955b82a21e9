import Observant
import ObservantObservationBridge
import Observation
import Synchronization

/// A SwiftUI-like view body over Observant state, seen through Apple's `withObservationTracking`
/// with the bridge on: the body is rendered inside a tracking scope, and when Apple's `onChange`
/// fires, the view is "invalidated" and renders again at `settle()` (the next frame).
final class BHAppleView<Value: Equatable>: @unchecked Sendable {
  let name: String
  private let body: () -> Value
  /// What the latest render showed.
  private(set) var shown: Value
  /// Renders so far (the first included).
  private(set) var renders = 0
  /// `onChange` calls since the view was created.
  private(set) var fires = 0
  /// The value a fresh, untracked read gave inside each `onChange` call.
  private(set) var valuesAtFire: [Value] = []
  private var invalidated = false
  private let lock = Mutex(())

  /// Whether `onChange` reads the value (a reader that looks at the state when told).
  private let readsAtFire: Bool
  /// `onChange` calls made while `BHAppleView.insideWrite` was set (before the writing transaction ended).
  private(set) var firesInsideWrite = 0

  @MainActor
  init(_ name: String, readsAtFire: Bool = false, _ body: @escaping () -> Value) {
    self.name = name
    self.body = body
    self.readsAtFire = readsAtFire
    self.shown = withoutTracking(body)
    render()
  }

  @MainActor
  private func render() {
    renders += 1
    invalidated = false
    shown = withObservationTracking {
      body()
    } onChange: { [weak self] in
      // Weak: a view still armed when the test ends would otherwise be kept, with its state, by
      // the observation it armed (what it reads keeps the observation), a cycle.
      MainActor.assumeIsolated {
        guard let self else { return }
        self.fires += 1
        self.invalidated = true
        if BHWrite.inside { self.firesInsideWrite += 1 }
        if self.readsAtFire { self.valuesAtFire.append(withoutTracking(self.body)) }
      }
    }
  }

  /// The value now, read without tracking.
  @MainActor var truth: Value { withoutTracking(body) }

  /// Whether Apple's tracking has fired since the last render.
  @MainActor var isInvalidated: Bool { invalidated }

  /// Renders again if Apple's tracking fired; returns whether it did.
  @MainActor @discardableResult
  func settle() -> Bool {
    guard invalidated else { return false }
    render()
    return true
  }

  /// A missed update: the value changed, Apple's tracking did not fire.
  @MainActor var isStale: Bool { !invalidated && shown != truth }
}

/// A group of views checked together after each step.
@MainActor
final class BHScreen {
  var views: [any BHCheckable] = []

  func add<Value: Equatable>(_ name: String, _ body: @escaping () -> Value) -> BHAppleView<Value> {
    let view = BHAppleView(name, body)
    views.append(view)
    return view
  }

  /// After a step: names of views that show a stale value without having been told (missed
  /// updates); then every invalidated view renders again. Returns (stale, re-rendered).
  func step() -> (stale: [String], rerendered: [String]) {
    var stale: [String] = []
    var rerendered: [String] = []
    for view in views {
      if view.checkStale() { stale.append(view.name) }
      if view.settleNow() { rerendered.append(view.name) }
      if view.showsWrong() { stale.append(view.name + " (after render)") }
    }
    return (stale, rerendered)
  }
}

@MainActor
protocol BHCheckable {
  var name: String { get }
  func checkStale() -> Bool
  func settleNow() -> Bool
  func showsWrong() -> Bool
}

extension BHAppleView: BHCheckable {
  func checkStale() -> Bool { isStale }
  func settleNow() -> Bool { settle() }
  func showsWrong() -> Bool { shown != truth }
}

/// Set by tests while the body of a writing transaction runs.
@MainActor
enum BHWrite {
  static var inside = false

  /// A transaction whose body is marked as "inside the write".
  static func transaction(_ body: () -> Void) {
    Observant.transaction {
      inside = true
      body()
      inside = false
    }
  }
}
