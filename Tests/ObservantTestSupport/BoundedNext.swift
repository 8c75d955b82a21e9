import Observant

/// The outcome of `boundedNext(_:seconds:)`.
public enum BoundedNext<Element: Sendable>: Sendable {
  /// `next()` returned: a value, or `nil` (the sequence ended).
  case returned(Element?)
  /// `next()` was still waiting after the bound; the iteration was cancelled.
  case timedOut
}

extension BoundedNext: Equatable where Element: Equatable {}

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
  _ iterator: TrackedValues<Element>.Iterator, seconds: Int = 60
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
