import Observant

/// A simulated UI: a tree of nodes whose bodies re-run when what they read changes, with a log of
/// which bodies ran at every step.
///
/// By default each node's body runs inside its own Observant `Reaction`, so it re-runs exactly
/// when something it read changed, or when its parent passed it a changed input; pass
/// `tracking: AppleObservationTracking()` to count what Apple's `withObservationTracking` would
/// re-run instead (see ``RenderTracking``). Children are keyed by identity, like a
/// SwiftUI `ForEach`: when a parent re-runs, children whose keys it declares again are kept (and
/// not re-run unless their input changed), new keys create children, and keys no longer declared
/// dispose their subtrees.
///
/// ```swift
/// let tree = RenderTree("List") { list in
///   list.forEach(model.state.rows, name: { "Row[\($0.id)]" }) { row, context in
///     context.text("\(model.row(row.id)?.count ?? 0)")
///   }
/// }
/// let step = tree.step { model.state.rows[id: 7]?.count += 1 }
/// print(step)   // Row[7].body x1
/// ```
///
/// A tree is single-threaded: create it, step it and query it on one thread (the main actor, or
/// the thread a test runs on). Call `step` outside any `transaction { }` and outside bodies:
/// bodies re-run when the outermost transaction (or step of the tracking) ends.
///
/// A tree belongs to the isolation it was created in, like a `Reaction`: one created on the main
/// actor runs its bodies only on the main actor. A write on another thread that reaches what a
/// body read (a background thread writing a copy of a `@MainActor` store's state, whose copies
/// share registrars) does not run the body on that thread: under ``ReactionTracking`` the re-run
/// is handed to the main actor's next turn. A tree created outside any actor re-runs a body on
/// the thread whose transaction dirtied it.
///
/// - Complexity: Building a tree runs every body once. A step costs what its bodies cost, plus
///   reconciliation, O(*n*) with hashing in the children of each parent that re-ran; nodes that
///   did not run cost nothing.
public final class RenderTree {
  /// What decides when bodies re-run: ``ReactionTracking`` unless the initializer was given
  /// another.
  public let tracking: any RenderTracking
  /// Whether the tracking's subscriptions may report causes (not Observant's without
  /// `recordingCauses`, nor Apple's): only then does a run ask its subscription for them.
  internal let asksCauses: Bool
  /// The actor the tree was created on (`nil` outside any actor): its bodies run only there.
  internal let isolation: (any Actor)?
  private var root: RenderNode?
  // The tree is used on one thread (see the type's notes): the state touched by every body run
  // skips the dynamic exclusivity checks, which cost more than the bookkeeping itself.

  /// Live nodes by name, for `output(of:)` and `runCount(of:)` without walking the tree.
  internal var names = NodeNameIndex()
  @exclusivity(unchecked) private var finishedSteps: [RenderStep] = []
  /// The step collecting runs now: an explicit `step`, "initial", or runs between steps.
  @exclusivity(unchecked) private var openStep: OpenStep?
  @exclusivity(unchecked) private var isStepping = false
  /// Bodies running on the stack right now (a body's children run inside its run).
  @exclusivity(unchecked) private var runningBodies = 0
  @exclusivity(unchecked) private var createdNodes = 0
  /// A closed context no one references, reused by the next run (see `makeContext(for:)`).
  @exclusivity(unchecked) private var spareContext: RenderContext?

  /// Everything that went wrong while building and stepping this tree, oldest first.
  public private(set) var diagnostics: [RenderDiagnostic] = []

  /// The name of the log entry that collects bodies run outside any `step` (by a write made
  /// between steps, say).
  public static let betweenStepsName = "(between steps)"

  /// Builds the tree: runs the root body, and the bodies of the children it declares, now. The
  /// log records these runs as the step "initial".
  ///
  /// ```swift
  /// let tree = RenderTree("Screen") { screen in
  ///   screen.child("Header") { header in header.text(model.title) }
  /// }
  /// tree.log.description   // "initial: Screen.body x1, Header.body x1"
  /// ```
  ///
  /// - Parameters:
  ///   - rootName: the root node's name in the log.
  ///   - tracking: how bodies learn what they read and when they re-run: Observant reactions by
  ///     default, or ``AppleObservationTracking``, or a tracking shared with a ``CellPool``.
  ///   - isolation: the actor the bodies belong to: the caller's (`#isolation`).
  ///   - body: the root body; it runs whenever something it read changes.
  public init(
    _ rootName: String = "Root", tracking: any RenderTracking = ReactionTracking(),
    isolation: isolated (any Actor)? = #isolation,
    body: @escaping (RenderContext) -> Void
  ) {
    self.tracking = tracking
    self.asksCauses = (tracking as? ReactionTracking)?.recordingCauses ?? !(tracking is AppleObservationTracking)
    self.isolation = isolation
    openStep = OpenStep(name: "initial")
    let root = RenderNode(
      name: rootName, key: ChildKey(rootName), input: nil, body: .closure(body), tree: self)
    self.root = root
    names.insert(root)
    root.start()
    closeStep()
  }

  deinit {
    tearDown()
  }

  /// Runs `mutation` as one step of the tracking (one `transaction` for Observant's) and returns
  /// which bodies ran because of it, in the order they ran. The step is also appended to `log`,
  /// even if `mutation` throws. Bodies still waiting from writes made between steps (under
  /// ``AppleObservationTracking``) run first, logged as ``betweenStepsName``.
  ///
  /// ```swift
  /// let step = tree.step("append") { model.state.rows.append(Row(id: 8)) }
  /// step.runs   // ["List", "Row[8]"]
  /// ```
  ///
  /// Steps do not nest, and a body must not call `step`: both are programming errors.
  ///
  /// - Complexity: The bodies that re-run, plus reconciliation in the parents among them.
  @discardableResult
  public func step(_ name: String = "step", _ mutation: () throws -> Void) rethrows -> RenderStep {
    // Checked here (a call to the shared precondition, with its closures, costs more).
    if isStepping {
      observantFatalError(
        "RenderTree.step(\"\(name)\"): steps do not nest; call step after the current one returned")
    }
    if runningBodies != 0 {
      observantFatalError("RenderTree.step(\"\(name)\"): a body must not call step; bodies run inside a step")
    }
    tracking.runPendingBodies()
    closeStep()
    openStep = OpenStep(name: name)
    isStepping = true
    defer { isStepping = false }
    do {
      try tracking.step(mutation)
    } catch {
      closeStep()
      throw error
    }
    return closeStep() ?? RenderStep(name: name, runs: [])
  }

  /// Every step so far, starting with "initial". Bodies run outside `step` (by a write made
  /// between steps) appear as a step named `RenderTree.betweenStepsName`.
  public var log: RenderLog {
    guard let openStep else { return RenderLog(steps: finishedSteps) }
    return RenderLog(steps: finishedSteps + [openStep.finish()])
  }

  /// The names of the live nodes, depth-first in declaration order (a parent, then its children).
  ///
  /// - Complexity: O(*n*) in the live nodes, computed on each call.
  public var liveNodeNames: [String] {
    var result: [String] = []
    root?.appendSubtreeNames(to: &result)
    return result
  }

  /// The text the live node named `nodeName` emitted in its latest run (the last `text` of that
  /// run), or `nil` if it emitted none or no such node is live. If several live nodes share the
  /// name, the one created first answers.
  ///
  /// - Complexity: O(1) for a name that one live node has.
  public func output(of nodeName: String) -> String? {
    names.firstCreated(named: nodeName)?.output
  }

  /// How many times the body of the live node named `nodeName` has run since the node was
  /// created; 0 if no such node is live. If several live nodes share the name, their runs add up
  /// (as in `RenderStep.count(of:)`).
  ///
  /// - Complexity: O(1) for a name that one live node has.
  public func runCount(of nodeName: String) -> Int {
    names.totalRunCount(named: nodeName)
  }

  /// Disposes every node: their subscriptions are cancelled and they never run again, and the tree is
  /// left empty. Calling it again does nothing; deinitializing the tree calls it. A body may call it
  /// (or release the last reference to its tree): the running body finishes, declaring nothing.
  ///
  /// - Complexity: O(*n*) in the live nodes.
  public func tearDown() {
    guard let root else { return }
    self.root = nil
    // The index is dropped whole: removing 100,000 names one by one would only cost time.
    names = NodeNameIndex()
    root.dispose(unindexing: false)
  }

  // MARK: Recording (called by nodes)

  /// A new node's place in creation order.
  internal func nextCreationOrder() -> Int {
    createdNodes += 1
    return createdNodes
  }

  /// A context for a run of `node`: the one the last run left, if nothing kept it, or a new one.
  internal func makeContext(for node: RenderNode) -> RenderContext {
    guard let context = spareContext.take() else { return RenderContext(node: node) }
    context.reopen(for: node)
    return context
  }

  /// Keeps `context`, closed by the run that used it, for the next run, unless something else
  /// still references it (a body let it escape: it must stay closed, and say so if used).
  internal func recycle(_ context: consuming RenderContext) {
    var context = context
    if isKnownUniquelyReferenced(&context) { spareContext = context }
  }

  /// Logs a body run as it starts, with what dirtied it if the tracking records causes.
  internal func bodyWillRun(_ name: String, causes: [RunCause]) {
    runningBodies += 1
    if openStep == nil { openStep = OpenStep(name: Self.betweenStepsName) }
    openStep!.append(name, causes: causes)
  }

  /// `bodyWillRun(_:causes:)` for a run without causes (no empty array passed and released).
  internal func bodyWillRun(_ name: String) {
    runningBodies += 1
    if openStep == nil { openStep = OpenStep(name: Self.betweenStepsName) }
    openStep!.append(name)
  }

  internal func bodyDidRun() {
    runningBodies -= 1
  }

  internal func report(_ diagnostic: RenderDiagnostic) {
    diagnostics.append(diagnostic)
    if let handler = RenderTree.diagnosticHandler {
      handler(diagnostic)
    } else {
      printToStandardError(diagnostic.message)
    }
  }

  @discardableResult
  private func closeStep() -> RenderStep? {
    guard let step = openStep.take()?.finish() else { return nil }
    finishedSteps.append(step)
    return step
  }
}

extension RenderTree {
  /// The handler receiving the diagnostics raised on this task (duplicate keys, say; see
  /// `withDiagnosticHandler(_:operation:)`); when `nil` (the default) they are printed to standard
  /// error. Either way every tree also keeps its own in `diagnostics`.
  public static var diagnosticHandler: (@Sendable (RenderDiagnostic) -> Void)? { _diagnosticHandler?.handle }

  /// Runs `operation` with `handler` receiving the diagnostics raised on this task instead of
  /// standard error. Tests can capture them quietly:
  ///
  /// ```swift
  /// RenderTree.withDiagnosticHandler({ _ in }) {
  ///   let tree = RenderTree { ... }
  ///   #expect(tree.diagnostics.count == 1)
  /// }
  /// ```
  @discardableResult
  public static func withDiagnosticHandler<Result>(
    _ handler: @escaping @Sendable (RenderDiagnostic) -> Void, operation: () throws -> Result
  ) rethrows -> Result {
    try $_diagnosticHandler.withValue(RenderDiagnosticHandler(handle: handler), operation: operation)
  }

  // A task-local value of a bare closure type crashes optimized builds with Swift 6.3: the
  // handler is kept in a struct.
  @TaskLocal static var _diagnosticHandler: RenderDiagnosticHandler?
}

/// The task-local home of `RenderTree.diagnosticHandler`.
internal struct RenderDiagnosticHandler: Sendable {
  let handle: @Sendable (RenderDiagnostic) -> Void
}

/// The step being recorded.
private struct OpenStep {
  let name: String
  /// The first run, kept inline, and the later runs and causes, kept apart once there are any: a
  /// step in which one body runs (a row action, say) allocates nothing, and finishing it destroys
  /// no empty array (each costs a release through its type's value witnesses).
  var firstRun: String?
  var rest: Rest?

  /// The runs after the first, and the causes of the runs up to the last one that had any (most
  /// steps: none, and no array).
  final class Rest {
    var laterRuns: [String] = []
    var causes: [[RunCause]] = []
  }

  init(name: String) { self.name = name }

  mutating func append(_ run: String, causes runCauses: [RunCause]) {
    append(run)
    guard !runCauses.isEmpty else { return }
    let rest = self.rest ?? Rest()
    self.rest = rest
    let runCount = 1 + rest.laterRuns.count
    rest.causes.append(contentsOf: repeatElement([], count: runCount - 1 - rest.causes.count))
    rest.causes.append(runCauses)
  }

  /// Appends a run that has no causes.
  mutating func append(_ run: String) {
    guard firstRun != nil else {
      firstRun = run
      return
    }
    if let rest {
      rest.laterRuns.append(run)
    } else {
      let rest = Rest()
      // The second run makes the array (an empty array grown by an append costs more).
      rest.laterRuns = [run]
      self.rest = rest
    }
  }

  /// The step, its parts moved into it.
  consuming func finish() -> RenderStep {
    guard let rest else { return RenderStep(name: name, onlyRun: firstRun) }
    return RenderStep(name: name, firstRun: firstRun, laterRuns: rest.laterRuns, causes: rest.causes)
  }
}
