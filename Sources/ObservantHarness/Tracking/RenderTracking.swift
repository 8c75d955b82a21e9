import Observant

/// How the bodies of a ``RenderTree`` and the cells of a ``CellPool`` learn what they read, and
/// when they run again.
///
/// The tree reconciles children the same way whatever the tracking; the tracking decides which
/// bodies re-run after a change. Two come with the harness:
///
/// - ``ReactionTracking`` (the default): each body runs inside its own Observant `Reaction`; a
///   step is a `transaction`.
/// - ``AppleObservationTracking``: each run of a body is one `withObservationTracking` of Apple's
///   Observation module, installed again by the next run; a change marks the body dirty, and
///   dirty bodies run when the step's mutation ends.
///
/// The same tree through either:
///
/// ```swift
/// let tree = RenderTree("Counter", tracking: AppleObservationTracking()) { counter in
///   counter.child("Label") { $0.text("\(model.count)") }   // model: an @Observable class
/// }
/// tree.step { model.count += 1 }.runs   // ["Label"]
/// ```
///
/// A tracking instance may be shared: a tree and a cell pool given the same
/// ``AppleObservationTracking`` are one UI, and a step of either runs the dirty bodies of both.
///
/// Conform to it to count another policy (a strategy that re-runs every body on every action,
/// say): start each ``RenderBody`` with ``track(_:)``, and run what became dirty in ``step(_:)``.
public protocol RenderTracking {
  /// Runs `body` now (``RenderBody/run()``, recording what it reads, then
  /// ``RenderBody/finishRun()``, recording nothing), and runs both again whenever something it
  /// read changes or the returned subscription is invalidated, until that subscription is
  /// cancelled.
  ///
  /// Bodies started while another body runs (the children a parent creates) must run after the
  /// bodies started before them when both are dirty: creation order, parents first.
  ///
  /// The caller keeps `body` alive while it is subscribed (a tracking may refer to it without
  /// owning it), and cancels the subscription before letting it go.
  func track(_ body: any RenderBody) -> any RenderSubscription

  /// ``track(_:)`` for a body that belongs to `isolation`: the actor the tree or pool was created
  /// on, or `nil` outside any actor. A tracking that can run bodies on other threads keeps every
  /// later run on that actor (``ReactionTracking`` hands a run dirtied by a write on another
  /// thread to the actor). The default calls ``track(_:)``: for trackings whose bodies run only
  /// where the step runs.
  func track(_ body: any RenderBody, isolation: (any Actor)?) -> any RenderSubscription

  /// Applies one step's `mutation`; the bodies it made dirty have run when this returns (also
  /// when `mutation` throws). Steps may nest; the outermost one runs the bodies.
  func step(_ mutation: () throws -> Void) rethrows

  /// Runs the bodies that wait: those made dirty by writes outside any step. A tracking that runs
  /// them at the write has none (``ReactionTracking``). ``RenderTree/step(_:_:)`` calls it before
  /// the step begins, so that such runs are logged as ``RenderTree/betweenStepsName``.
  func runPendingBodies()
}

extension RenderTracking {
  /// Calls ``track(_:)``: the tracking runs bodies only where its steps run.
  public func track(_ body: any RenderBody, isolation: (any Actor)?) -> any RenderSubscription {
    track(body)
  }
}

/// A body as a ``RenderTracking`` runs it: a node of a ``RenderTree`` or a bound ``Cell``.
///
/// The harness implements it; a custom tracking only calls it.
public protocol RenderBody: AnyObject {
  /// The node's or cell's name, for diagnostics.
  var name: String { get }

  /// One run of the body: its reads are what the tracking records.
  func run()

  /// Called right after every ``run()``, with nothing recorded: the tree reconciles the children
  /// the body declared here, so that what the children read as they start is theirs, not the
  /// parent's.
  func finishRun()
}

/// A body's registration with a ``RenderTracking``, returned by ``RenderTracking/track(_:)``.
public protocol RenderSubscription: AnyObject {
  /// Runs the body again as if something it read had changed: later in the current step (after
  /// the body running now), or at the end of the next one.
  func invalidate()

  /// Stops for good: the body never runs again, even if it is dirty.
  func cancel()

  /// Why the run in progress (or the latest run) happened, if the tracking records it: the field
  /// writes that dirtied it (see `Reaction.lastRunCauses`). Empty by default.
  var lastRunCauses: [RunCause] { get }
}

extension RenderSubscription {
  /// None: the tracking does not record causes.
  public var lastRunCauses: [RunCause] { [] }
}
