import ObservantHarness

/// How the strategies that track nothing decide which bodies an action re-runs.
enum BroadcastPolicy {
  /// Every render depends on the whole state: every action re-runs every live body.
  case wholeState
  /// Every action recomputes every live body's view state (an `Equatable` projection of the
  /// state, declared with `BroadcastTracking.viewState(_:)`); a body re-runs only if its view
  /// state changed.
  case equatableDiffing
}

/// The `RenderTracking` of the whole-state and diffing strategies: a body re-runs when an
/// action (`action(_:)`) marks it, by the policy, not because of what it read.
///
/// Marked bodies run on `AppleObservationTracking`'s fair scheduler (at the end of the step,
/// parents before children, each once per step), exactly as the Apple strategies' bodies do;
/// Apple's tracking records nothing here, since these strategies keep their state in plain
/// classes.
final class BroadcastTracking: RenderTracking {
  let policy: BroadcastPolicy
  /// View-state computations since the tracking was made (`equatableDiffing` only).
  private(set) var viewStateComputations = 0
  private let scheduler = AppleObservationTracking()
  /// Live bodies, in no particular order (the scheduler orders the runs).
  private var live: [ObjectIdentifier: BroadcastBody] = [:]
  /// The body running now, whose `viewState(_:)` calls are its own.
  fileprivate var running: BroadcastBody?

  init(_ policy: BroadcastPolicy) {
    self.policy = policy
  }

  func track(_ body: any RenderBody) -> any RenderSubscription {
    let broadcast = BroadcastBody(body, tracking: self)
    live[ObjectIdentifier(broadcast)] = broadcast
    broadcast.subscription = scheduler.track(broadcast)
    return broadcast
  }

  func step(_ mutation: () throws -> Void) rethrows {
    try scheduler.step(mutation)
  }

  func runPendingBodies() {
    scheduler.runPendingBodies()
  }

  /// Declares the running body's view state (call it first thing in a body). The diffing policy
  /// computes it once when the body first runs, and again after every action; later runs only
  /// replace the closure.
  func viewState(_ compute: @escaping () -> AnyHashable) {
    guard let body = running else { fatalError("BroadcastTracking.viewState(_:) called outside a body") }
    let isFirst = body.viewState == nil
    body.viewState = compute
    if isFirst, policy == .equatableDiffing {
      viewStateComputations += 1
      body.lastViewState = compute()
    }
  }

  /// One user action: applies `mutation`, then marks the bodies the policy re-runs. Call it
  /// inside a step, which runs them.
  func action(_ mutation: () -> Void) {
    mutation()
    for body in live.values {
      switch policy {
      case .wholeState: body.invalidate()
      case .equatableDiffing: if viewStateChanged(body) { body.invalidate() }
      }
    }
  }

  /// What one step counted: `runs()` returns the bodies it ran; the diffing policy adds the view
  /// states computed meanwhile.
  func count(_ runs: () -> Int) -> StepCount {
    let before = viewStateComputations
    let runs = runs()
    return StepCount(runs: runs, computations: policy == .equatableDiffing ? viewStateComputations - before : nil)
  }

  private func viewStateChanged(_ body: BroadcastBody) -> Bool {
    guard let viewState = body.viewState else { return false }
    viewStateComputations += 1
    let current = viewState()
    defer { body.lastViewState = current }
    return current != body.lastViewState
  }

  fileprivate func remove(_ body: BroadcastBody) {
    live[ObjectIdentifier(body)] = nil
  }
}

/// A body under `BroadcastTracking`: its view state, and its subscription with the scheduler.
private final class BroadcastBody: RenderBody, RenderSubscription {
  let name: String
  private unowned let body: any RenderBody
  private unowned let tracking: BroadcastTracking
  var subscription: (any RenderSubscription)?
  var viewState: (() -> AnyHashable)?
  var lastViewState: AnyHashable?

  init(_ body: any RenderBody, tracking: BroadcastTracking) {
    self.name = body.name
    self.body = body
    self.tracking = tracking
  }

  func run() {
    let previous = tracking.running
    tracking.running = self
    body.run()
    tracking.running = previous
  }

  func finishRun() {
    body.finishRun()
  }

  func invalidate() {
    subscription?.invalidate()
  }

  func cancel() {
    subscription?.cancel()
    subscription = nil
    tracking.remove(self)
  }
}
