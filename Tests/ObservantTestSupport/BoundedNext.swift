import Observant

/// The outcome of `boundedNext(_:seconds:)`.
public enum BoundedNext<Element: Sendable>: Sendable {
  /// `next()` returned: a value, or `nil` (the sequence ended).
  case returned(Element?)
  /// `next()` was still waiting after the bound; the iteration was cancelled.
  case timedOut
}

extension BoundedNext: Equatable where Element: Equatable {}

/// The bound, in seconds, of the tests' waits for work that is due to happen (a value, a run, a
/// write on another thread): a safety net that expires only when that work never happens, never a
/// measurement. Well above what the whole suite takes under the thread sanitizer here (220-310 s):
/// a step that starts early can wait behind most of what the other tests give the main actor and
/// the cooperative pool (one such step returned after 290 s in a passing run, under a bound of
/// 300 s then).
public let safetyNetSeconds = 900

/// Awaits `iterator.next()` on the main actor, but not forever: a sequence that never yields again
/// (the defect these tests look for) is cancelled `seconds` after this step began.
///
/// The bound is a safety net, not a measurement: it only expires when the step is broken, so it
/// is generous. The clock starts at the awaited step, not at the start of the test, so a main
/// actor kept busy by other tests running in parallel does not eat into it. (Tests that started
/// a 30 s watchdog at the start of a multi-step scenario failed once in a full-suite run while the
/// main-actor stress suites held the main actor for most of a minute.)
@MainActor
public func boundedNext<Element: Sendable>(
  _ iterator: TrackedValues<Element>.Iterator, seconds: Int = safetyNetSeconds
) async -> BoundedNext<Element> {
  let step = Task { @MainActor in
    var iterator = iterator
    let value = await iterator.next()
    return Task.isCancelled ? BoundedNext<Element>.timedOut : .returned(value)
  }
  let watchdog = Task { @MainActor in
    try? await Task.sleep(for: .seconds(seconds))
    if !Task.isCancelled { step.cancel() }
  }
  let outcome = await step.value
  watchdog.cancel()
  return outcome
}

/// Waits, yielding the caller's actor between checks, until `condition` holds or `seconds` have
/// passed since the wait began; returns whether it holds. For work handed to another thread or to
/// the main actor: the bound only expires when that work never happens, so it is generous, and it
/// is measured in time rather than in turns (a turn of a main actor shared with other tests, or of
/// a sanitizer build, can take long).
public func waitUntil(
  seconds: Int = safetyNetSeconds, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}
