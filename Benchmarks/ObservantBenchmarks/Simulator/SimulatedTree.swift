import Observation

/// How a `SimulatedTree` decides which bodies re-run after a change.
enum SimulatedPolicy {
  /// Each body runs inside Apple's `withObservationTracking`. It is one-shot and fires in
  /// `willSet`: the firing marks the body dirty during the mutation, and the body re-runs (and
  /// installs tracking again) when the step renders, after the mutation.
  case appleObservation
  /// Every render depends on the whole state: every action re-runs every live body.
  case wholeState
  /// Every action recomputes every live body's view state (an `Equatable` projection of the
  /// state); a body re-runs only if its view state changed.
  case equatableDiffing
}

/// A keyed render tree for the strategies other than Observant (which uses `ObservantHarness`),
/// counting body runs the same way: nodes with a body, children keyed by identity, kept without
/// re-running while their key and input stay, disposed when no longer declared, new children
/// run right after their parent. Dirty bodies run parents first.
///
/// Several roots may be mounted (a screen, or the cells of a table).
final class SimulatedTree {
  let policy: SimulatedPolicy
  /// Body runs since the tree was made.
  fileprivate(set) var bodyRuns = 0
  /// View-state computations since the tree was made (`equatableDiffing` only).
  fileprivate(set) var viewStateComputations = 0
  private var roots: [SimulatedNode] = []
  fileprivate var dirty: [SimulatedNode] = []
  fileprivate var nextOrder = 0

  init(policy: SimulatedPolicy) {
    self.policy = policy
  }

  deinit {
    for root in roots { root.dispose() }
  }

  /// Mounts a root and runs its body now.
  @discardableResult
  func mount(
    _ name: String, viewState: (() -> AnyHashable)? = nil, body: @escaping (SimulatedContext) -> Void
  ) -> SimulatedNode {
    let node = SimulatedNode(
      name: name, key: .name(name), input: nil, viewState: viewState, body: body, tree: self)
    roots.append(node)
    node.start()
    return node
  }

  /// Disposes a root: it never runs again.
  func unmount(_ node: SimulatedNode) {
    node.dispose()
    roots.removeAll { $0 === node }
  }

  /// One user action: applies `mutation`. Apple's tracking marks readers dirty during the
  /// mutation; the broadcast policies look at every live body after it.
  func action(_ mutation: () -> Void) {
    mutation()
    switch policy {
    case .appleObservation:
      break
    case .wholeState:
      for root in roots { root.visit { markDirty($0) } }
    case .equatableDiffing:
      for root in roots { root.visit { if $0.viewStateChanged() { markDirty($0) } } }
    }
  }

  /// Runs `body` (actions, binding cells) and then renders; returns what ran.
  func step(_ body: () -> Void) -> StepCount {
    let runsBefore = bodyRuns
    let computationsBefore = viewStateComputations
    body()
    render()
    return StepCount(
      runs: bodyRuns - runsBefore,
      computations: policy == .equatableDiffing ? viewStateComputations - computationsBefore : nil)
  }

  /// Runs the dirty bodies, parents before children (creation order), until none is dirty.
  func render() {
    while !dirty.isEmpty {
      var batch = dirty
      dirty.removeAll(keepingCapacity: true)
      batch.sort { $0.order < $1.order }
      for node in batch where node.isDirty && !node.isDisposed {
        node.isDirty = false
        node.run()
      }
    }
  }

  fileprivate func markDirty(_ node: SimulatedNode) {
    guard !node.isDirty, !node.isDisposed else { return }
    node.isDirty = true
    dirty.append(node)
  }
}

/// A child's key among its siblings.
enum SimulatedKey: Hashable {
  case name(String)
  case id(Int)
}

/// What a body declares while it runs.
final class SimulatedContext {
  fileprivate var declarations: [Declaration] = []
  fileprivate var output: String?

  fileprivate struct Declaration {
    let name: String
    let key: SimulatedKey
    let input: AnyHashable?
    let viewState: (() -> AnyHashable)?
    let body: (SimulatedContext) -> Void
  }

  /// The node's visible output (what the Observant harness's `text` records).
  func text(_ string: String) { output = string }

  /// Declares a child. A kept child re-runs when `input` changed (compared with `==`); with no
  /// input, only for its own reasons.
  func child(
    _ name: String, key: SimulatedKey? = nil, input: AnyHashable? = nil,
    viewState: (() -> AnyHashable)? = nil, body: @escaping (SimulatedContext) -> Void
  ) {
    declarations.append(
      Declaration(name: name, key: key ?? .name(name), input: input, viewState: viewState, body: body))
  }

  func reserve(_ count: Int) { declarations.reserveCapacity(declarations.count + count) }
}

/// One body of a `SimulatedTree`.
final class SimulatedNode {
  let name: String
  let key: SimulatedKey
  /// Creation order: parents are created before their children.
  let order: Int
  unowned let tree: SimulatedTree
  private var body: (SimulatedContext) -> Void
  private var input: AnyHashable?
  private let viewState: (() -> AnyHashable)?
  private var lastViewState: AnyHashable?
  private(set) var output: String?
  private(set) var runCount = 0
  fileprivate var isDirty = false
  fileprivate(set) var isDisposed = false
  /// Bumped per run under Apple's tracking: a firing from an earlier run's tracking (still
  /// installed, since Apple's tracking cannot be cancelled) is ignored.
  fileprivate var generation = 0
  private var children: [SimulatedNode] = []
  private var childrenByKey: [SimulatedKey: SimulatedNode] = [:]
  private var declaringRun = 0

  fileprivate init(
    name: String, key: SimulatedKey, input: AnyHashable?, viewState: (() -> AnyHashable)?,
    body: @escaping (SimulatedContext) -> Void, tree: SimulatedTree
  ) {
    self.name = name
    self.key = key
    self.input = input
    self.viewState = viewState
    self.body = body
    self.tree = tree
    tree.nextOrder += 1
    self.order = tree.nextOrder
  }

  fileprivate func start() {
    if tree.policy == .equatableDiffing, viewState != nil {
      tree.viewStateComputations += 1
      lastViewState = viewState?()
    }
    run()
  }

  fileprivate func visit(_ visitor: (SimulatedNode) -> Void) {
    visitor(self)
    for child in children { child.visit(visitor) }
  }

  fileprivate func viewStateChanged() -> Bool {
    guard let viewState else { return false }
    tree.viewStateComputations += 1
    let current = viewState()
    defer { lastViewState = current }
    return current != lastViewState
  }

  fileprivate func dispose() {
    guard !isDisposed else { return }
    isDisposed = true
    for child in children { child.dispose() }
    children = []
    childrenByKey = [:]
  }

  fileprivate func run() {
    runCount += 1
    tree.bodyRuns += 1
    let context = SimulatedContext()
    switch tree.policy {
    case .appleObservation:
      generation &+= 1
      let token = TrackingToken(node: self, generation: generation)
      withObservationTracking { body(context) } onChange: { token.fire() }
    case .wholeState, .equatableDiffing:
      body(context)
    }
    output = context.output
    reconcile(context.declarations)
  }

  fileprivate func fire(generation firedGeneration: Int) {
    guard firedGeneration == generation else { return }
    tree.markDirty(self)
  }

  private func reconcile(_ declarations: [SimulatedContext.Declaration]) {
    guard !declarations.isEmpty || !children.isEmpty else { return }
    let thisRun = runCount
    var declared: [SimulatedNode] = []
    declared.reserveCapacity(declarations.count)
    var created: [SimulatedNode] = []
    var keptCount = 0
    childrenByKey.reserveCapacity(declarations.count)
    for declaration in declarations {
      if let child = childrenByKey[declaration.key] {
        guard child.declaringRun != thisRun else { continue }  // a repeated key: first one wins
        child.declaringRun = thisRun
        keptCount += 1
        child.body = declaration.body
        if let newInput = declaration.input {
          if newInput != child.input { tree.markDirty(child) }
          child.input = newInput
        }
        declared.append(child)
      } else {
        let child = SimulatedNode(
          name: declaration.name, key: declaration.key, input: declaration.input,
          viewState: declaration.viewState, body: declaration.body, tree: tree)
        child.declaringRun = thisRun
        childrenByKey[declaration.key] = child
        created.append(child)
        declared.append(child)
      }
    }
    if keptCount < children.count {
      for child in children where child.declaringRun != thisRun {
        childrenByKey[child.key] = nil
        child.dispose()
      }
    }
    children = declared
    for child in created where !child.isDisposed { child.start() }
  }
}

/// The `onChange` of one run's tracking. `withObservationTracking` wants a `@Sendable` closure;
/// the simulator is single-threaded (writes happen on the thread that renders).
private struct TrackingToken: @unchecked Sendable {
  let node: SimulatedNode
  let generation: Int

  func fire() { node.fire(generation: generation) }
}

/// What a step counted for one strategy.
struct StepCount {
  /// Body runs (renders).
  var runs: Int
  /// View-state computations, for the diffing strategy.
  var computations: Int? = nil
}
