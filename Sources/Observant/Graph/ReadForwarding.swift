/// Where a recorder that records nothing sends the reads it receives instead: the hook through
/// which the observation bridge (a layer above the graph) hears reads made outside tracking
/// scopes. The graph knows only this class; the layer that implements the hook subclasses it.
///
/// A forwarding recorder is made by that layer (the bridge's per-thread recorders, see
/// `ThreadLocal.recorderForReads`), with `Recorder(forwardingReadsTo:)`. It hands over only the
/// reads that would become new dependencies, so a scope's tracked reads never reach this hook,
/// and they cost nothing more for it. (A class rather than a protocol: a recorder keeps one word
/// for it, not an existential's two.)
internal class ReadForwarding: @unchecked Sendable {
  init() {}

  /// A read of `key` (resolved) on `registrar`, in the state `seen`, on the reading thread.
  func forwardRead(_ registrar: TrackingRegistrar, _ key: FieldKey, _ name: FieldName, seen: UInt64) {}
}
