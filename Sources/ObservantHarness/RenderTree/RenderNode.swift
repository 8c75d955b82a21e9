import Observant

/// One node of a render tree: a body run under the tree's tracking, the text its latest run
/// emitted, and the children its latest run declared.
///
/// The tree owns the nodes (a parent holds its children) and manages their subscriptions'
/// lifetimes: disposal cancels them.
internal final class RenderNode: RenderBody {
  // A node is used on its tree's thread only (see `RenderTree`): its state skips the dynamic
  // exclusivity checks, which cost more than the bookkeeping of a run itself.

  @exclusivity(unchecked) private(set) var name: String
  let key: ChildKey
  /// Creation order in the tree; decides which of several same-named nodes answers by name.
  let creationOrder: Int
  unowned let tree: RenderTree

  /// What the next run calls: the latest body the parent declared.
  @exclusivity(unchecked) private var body: ChildBody {
    didSet { instanceCall = body.instanceCall }
  }
  /// The instance and runner of an `.instance` body, unretained (`body` holds them): a run calls
  /// them as they are, where matching `body` would copy the case out (retaining both, and
  /// releasing them after).
  @exclusivity(unchecked) private var instanceCall: ChildBody.InstanceCall?
  /// Whether the element of a `forEach` body was read again for the coming run, outside the
  /// tracking's recording (see `prepareRun()`).
  @exclusivity(unchecked) private var isPrepared = false
  /// The input the parent passed last, or `nil` if it passes none.
  @exclusivity(unchecked) private var input: (any RenderInput)?
  @exclusivity(unchecked) private var subscription: (any RenderSubscription)?
  /// What the latest run declared, from `run()` (tracked) to `finishRun()` (not tracked).
  @exclusivity(unchecked) private var declarations: [ChildDeclaration] = []
  @exclusivity(unchecked) private(set) var output: String?
  @exclusivity(unchecked) private(set) var runCount = 0
  @exclusivity(unchecked) private(set) var isDisposed = false
  /// The tree, held from `run()` to `finishRun()`: a body may release the last reference to its
  /// tree, which then goes away once the run has finished.
  @exclusivity(unchecked) private var runningTree: RenderTree?

  /// Children in declaration order, and the same nodes by key.
  @exclusivity(unchecked) private var children: [RenderNode] = []
  @exclusivity(unchecked) private var childrenByKey: [ChildKey: RenderNode] = [:]
  /// The run of the parent that last declared this node (its `runCount` then): tells kept
  /// children from disposed ones, and a repeated key from a first declaration, without a set.
  @exclusivity(unchecked) private var declaringRun = 0

  init(
    name: String, key: ChildKey, input: (any RenderInput)?, body: ChildBody, tree: RenderTree
  ) {
    self.name = name
    self.key = key
    self.input = input
    self.body = body
    self.instanceCall = body.instanceCall
    self.tree = tree
    self.creationOrder = tree.nextCreationOrder()
  }

  /// Subscribes the node with the tree's tracking, which runs the body now.
  func start() {
    subscription = tree.tracking.track(self, isolation: tree.isolation)
  }

  /// Cancels this node's subscription and its subtree's; none of them runs again.
  ///
  /// - Parameter unindexing: remove the names from the tree's index (not needed when the whole
  ///   tree goes, and not allowed while the tree deinitializes).
  func dispose(unindexing: Bool) {
    guard !isDisposed else { return }
    isDisposed = true
    subscription?.cancel()
    if unindexing { tree.names.remove(self) }
    for child in children { child.dispose(unindexing: unindexing) }
    children = []
    childrenByKey = [:]
  }

  /// Appends this node's name, then its subtree's, depth-first in declaration order.
  func appendSubtreeNames(to names: inout [String]) {
    names.append(name)
    for child in children { child.appendSubtreeNames(to: &names) }
  }

  /// Called by the node's context while the body runs.
  func emit(_ text: String) {
    output = text
  }

  // MARK: Running

  /// Reads the element of a `forEach` body again, for a run about to start: every run but the
  /// first (whose element the parent has just read) sees the element as the collection holds it
  /// now, also when the parent did not run (an in-place write re-ran this node through its own
  /// reads). Class instances are not read again (see `forEach`). Not recorded: the node must not
  /// depend on the collection. A tracking whose recording
  /// could see these reads calls it before recording (Apple's); otherwise `run()` does.
  func prepareRun() {
    guard runCount > 0, case .element(let element) = body, element.refreshes else { return }
    withoutTracking { element.refresh() }
    isPrepared = true
  }

  /// One run of the body, inside the tracking's recording; `finishRun()` follows, outside it.
  func run() {
    if !isPrepared { prepareRun() }
    isPrepared = false
    runCount += 1
    let tree = self.tree  // one strong reference for the run (each use of the unowned one takes one)
    runningTree = tree
    if tree.asksCauses {
      tree.bodyWillRun(name, causes: subscription?.lastRunCauses ?? [])
    } else {
      tree.bodyWillRun(name)
    }
    output = nil
    let context = tree.makeContext(for: self)
    if let instanceCall {
      // `body` holds both for the run: a parent replaces a child's body only while reconciling,
      // never while the child's own body runs.
      instanceCall.runner._withUnsafeGuaranteedRef { runner in
        instanceCall.element._withUnsafeGuaranteedRef { runner.run($0, context) }
      }
    } else {
      switch body {
      case .closure(let body): body(context)
      case .element(let body): body.run(context)
      case .instance(let element, let runner): runner.run(element, context)
      }
    }
    declarations = context.close()
    tree.recycle(context)
  }

  /// Whether `finishRun()` has children to reconcile (declared by the run, or kept from before):
  /// otherwise it runs no user code.
  var reconciles: Bool { !declarations.isEmpty || !children.isEmpty }

  /// Reconciles the children the run declared. Not recorded by the tracking: comparing inputs
  /// may call a user's `==` that reads tracked fields, and new children's first runs read what
  /// they read for themselves.
  func finishRun() {
    let tree = runningTree.take() ?? self.tree
    defer { tree.bodyDidRun() }
    let declared = declarations
    declarations = []
    // A body that tore the tree down (or disposed this node some other way) declares nothing.
    guard !isDisposed else { return }
    reconcile(with: declared)
  }

  /// Keeps children whose keys were declared again (invalidating those whose input changed),
  /// disposes the others, and creates children for new keys, in declaration order.
  ///
  /// - Complexity: O(*d* + *c*) with hashing, for *d* declarations and *c* previous children;
  ///   a leaf that declares nothing costs nothing.
  private func reconcile(with declarations: [ChildDeclaration]) {
    guard !declarations.isEmpty || !children.isEmpty else { return }
    let thisRun = runCount
    var declared: [RenderNode] = []
    declared.reserveCapacity(declarations.count)
    var created: [RenderNode] = []
    var changed: [RenderNode] = []
    var keptCount = 0
    // Grow the table once, not by doubling while 100,000 rows are declared.
    childrenByKey.reserveCapacity(declarations.count)

    for declaration in declarations {
      if let child = childrenByKey[declaration.key] {
        guard child.declaringRun != thisRun else {
          tree.report(.duplicateKey(declaration.key.base, name: declaration.name, first: child.name, parent: name))
          continue
        }
        // A child created earlier in this loop carries this run too, so a repeated key is caught
        // above whether the first declaration was new or kept.
        child.declaringRun = thisRun
        keptCount += 1
        if child.update(from: declaration) { changed.append(child) }
        declared.append(child)
      } else {
        let child = RenderNode(
          name: declaration.name, key: declaration.key, input: declaration.input,
          body: declaration.body, tree: tree)
        child.declaringRun = thisRun
        childrenByKey[declaration.key] = child
        created.append(child)
        declared.append(child)
      }
    }

    // Dispose first, so that nothing below can run a node that is going away.
    if keptCount < children.count {
      for child in children where child.declaringRun != thisRun {
        childrenByKey[child.key] = nil
        child.dispose(unindexing: true)
      }
    }
    children = declared
    // New children run now, right after this body, in declaration order.
    for child in created {
      guard !isDisposed else { return }  // a child's body tore the tree down
      tree.names.insert(child)
      child.start()
    }
    // Kept children with a changed input run later in this flush, in creation order; one that
    // is dirty anyway runs once.
    for child in changed where !child.isDisposed {
      child.subscription?.invalidate()
    }
  }

  /// Takes a repeated declaration's body, name and input; answers whether the input changed.
  private func update(from declaration: ChildDeclaration) -> Bool {
    body = declaration.body
    if declaration.name != name {
      tree.names.rename(self, to: declaration.name)
      name = declaration.name
    }
    guard let newInput = declaration.input else { return false }  // no input: never re-run by the parent
    defer { input = newInput }
    guard let input else { return true }  // the parent started passing one
    return !newInput.isUnchanged(from: input)
  }
}

/// What a body declared about one child, reconciled after the body returns.
internal struct ChildDeclaration {
  let name: String
  let key: ChildKey
  let input: (any RenderInput)?
  let body: ChildBody
}
