// The only file of the harness that imports Apple's Observation (a toolchain module, not a
// package): trees on the default `ReactionTracking` never call into it.
import Observation
import Observant

/// Apple's tracking: each run of a body is one `withObservationTracking` of the Observation
/// module, with a fair scheduler around it, so that a tree counts what a SwiftUI-style view
/// would re-run with `@Observable` models.
///
/// ```swift
/// @Observable final class Counter { var count = 0 }
/// let model = Counter()
/// let tree = RenderTree("Counter", tracking: AppleObservationTracking()) { counter in
///   counter.child("Label") { $0.text("\(model.count)") }
/// }
/// tree.step { model.count += 1 }.runs   // ["Label"]
/// ```
///
/// With the `ObservantObservationBridge` product enabled, Apple's tracking sees Observant's fields
/// too: the same tree renders Observant stores and models as SwiftUI would (the benchmark's
/// `observant-apple-bridge` strategy does).
///
/// Apple's tracking is one-shot and fires before the value changes (`willSet`), so it cannot
/// re-run a body at the write. The scheduler does what a UI framework does:
///
/// - When a change fires a body's tracking, the body is marked dirty.
/// - When the step's mutation ends, dirty bodies run, in creation order (parents before
///   children), each once per step however many of its reads changed. Each run installs the
///   tracking again, with what that run read; a firing from an earlier run's tracking is ignored.
/// - Children created by a run run at once; kept children whose input changed are marked dirty
///   and run after, in the same step. Bodies dirtied while dirty bodies run (a body that writes)
///   run in another round; a flush stops after 100 rounds with a message.
/// - A write outside any step marks its readers dirty; they run when
///   ``runPendingBodies()`` is called, which ``RenderTree/step(_:_:)`` does before each step.
///
/// Nested scopes of Apple's tracking merge their reads into the enclosing scope; the tree never
/// nests them: children start in ``RenderBody/finishRun()``, after the parent's scope has ended.
///
/// Single-threaded like the tree: make the writes, the steps and the tracking's calls on one
/// thread (Apple's `onChange` runs on the writing thread).
public final class AppleObservationTracking: RenderTracking {
  private var nextOrder = 0
  private var dirty: [AppleTrackedBody] = []
  private var stepDepth = 0
  private var isFlushing = false

  /// How many rounds of dirty bodies a step may run before it stops with a message.
  private static let maximumRounds = 100

  public init() {}

  /// Runs `body` now inside `withObservationTracking`, then its `finishRun()`.
  ///
  /// - Complexity: one subscription object, and one tracking installation per run.
  public func track(_ body: any RenderBody) -> any RenderSubscription {
    nextOrder += 1
    let subscription = AppleTrackedBody(body: body, order: nextOrder, tracking: self)
    subscription.run()
    return subscription
  }

  /// Applies `mutation`, then runs the dirty bodies (when this is the outermost step).
  public func step(_ mutation: () throws -> Void) rethrows {
    stepDepth += 1
    defer {
      stepDepth -= 1
      if stepDepth == 0 { flush() }
    }
    try mutation()
  }

  /// Runs the bodies that writes outside any step made dirty (inside a step, its end does).
  public func runPendingBodies() {
    if stepDepth == 0 { flush() }
  }

  // MARK: Scheduling (called by the subscriptions)

  internal func markDirty(_ body: AppleTrackedBody) {
    guard !body.isDirty, !body.isCancelled else { return }
    body.isDirty = true
    dirty.append(body)
  }

  /// Runs dirty bodies in rounds, each round in creation order, until none is dirty. A running
  /// flush is not entered again: bodies dirtied meanwhile run in its next round.
  ///
  /// - Complexity: O(*d* log *d*) per round for *d* dirty bodies, plus their runs.
  private func flush() {
    guard !isFlushing else { return }
    isFlushing = true
    defer { isFlushing = false }
    var rounds = 0
    while !dirty.isEmpty {
      rounds += 1
      guard rounds <= Self.maximumRounds else {
        let names = dirty.prefix(5).map { "\"\($0.name)\"" }.joined(separator: ", ")
        printToStandardError(
          """
          ObservantHarness: AppleObservationTracking stopped a step after \(Self.maximumRounds) rounds: \
          bodies keep changing what they read (still dirty: \(names)); they did not run again
          """)
        for body in dirty { body.isDirty = false }
        dirty = []
        return
      }
      var round = dirty
      dirty.removeAll(keepingCapacity: true)
      round.sort { $0.order < $1.order }
      for body in round where body.isDirty && !body.isCancelled {
        body.isDirty = false
        body.run()
      }
    }
  }
}

/// One body under Apple's tracking: its subscription, its place in creation order, and the
/// generation of its latest run.
internal final class AppleTrackedBody: RenderSubscription {
  let order: Int
  let name: String
  var isDirty = false
  private(set) var isCancelled = false
  /// Strong until cancelled: Apple's registrar may hold this object (through a run's `onChange`)
  /// after the body is gone, and a firing then must find nothing to run.
  private var body: (any RenderBody)?
  private let tracking: AppleObservationTracking
  /// Bumped per run: Apple's tracking cannot be cancelled, so an earlier run's tracking may still
  /// fire; only the latest run's firing counts.
  private var generation = 0

  init(body: any RenderBody, order: Int, tracking: AppleObservationTracking) {
    self.body = body
    self.name = body.name
    self.order = order
    self.tracking = tracking
  }

  func run() {
    guard let body else { return }
    generation &+= 1
    let firing = Firing(body: self, generation: generation)
    // A `forEach` child reads its element again before its run, where Apple's tracking cannot
    // see it: nested scopes of Apple's tracking merge into the enclosing one, so reads cannot be
    // hidden inside it, and the child must not depend on the whole collection.
    (body as? RenderNode)?.prepareRun()
    withObservationTracking {
      body.run()
    } onChange: {
      firing.fire()
    }
    // Even if the run cancelled this body (a body that tore its tree down): the tree pairs the
    // two calls.
    body.finishRun()
  }

  func invalidate() {
    tracking.markDirty(self)
  }

  func cancel() {
    isCancelled = true
    body = nil
  }

  fileprivate func fire(generation firedGeneration: Int) {
    guard firedGeneration == generation, !isCancelled else { return }
    tracking.markDirty(self)
  }
}

/// The `onChange` of one run. `withObservationTracking` wants it `@Sendable`; the harness is
/// single-threaded (writes happen on the thread that steps).
private struct Firing: @unchecked Sendable {
  let body: AppleTrackedBody
  let generation: Int

  func fire() { body.fire(generation: generation) }
}
