import Observant
import Synchronization

/// Something a store refused or worked around instead of crashing, reported to its
/// `StoreDiagnostics`.
public struct StoreDiagnostic: Sendable, CustomStringConvertible {
  /// What went wrong, for counting (`StoreDiagnostics.count(of:)`).
  public enum Kind: Sendable, Hashable {
    /// An action was sent to a store whose state is gone (its row was removed, its optional child
    /// dismissed); the action was dropped.
    case actionSentToInvalidStore
    /// One send led to more than the store's `maximumActionsPerSend` actions (sent by reducers,
    /// effects, or reactions re-run by the commits): the actions still queued were dropped. Every
    /// action processed before was committed.
    case runawayActions
  }

  /// What went wrong.
  public let kind: Kind
  /// A message for people, naming the store and the action.
  public let message: String

  public var description: String { message }
}

/// Collects the diagnostics of a store and the stores scoped from it, and counts the work done at
/// each commit. Tests can keep one and assert on it; by default diagnostics are also printed to
/// standard error.
///
/// ```swift
/// let diagnostics = StoreDiagnostics(printing: false)
/// let store = Store(initialState: List.State(), reducer: List.reduce, diagnostics: diagnostics)
/// ...
/// #expect(diagnostics.count(of: .actionSentToInvalidStore) == 1)
/// ```
///
/// Memory stays bounded however long the tree lives: every diagnostic is counted, but only the
/// most recent ones are kept (1,000 by default; see `init(printing:keeping:)`). An app whose rows
/// send an action as they go away (a stale store drops it and reports it) would otherwise keep a
/// message per dropped action for good.
public final class StoreDiagnostics: Sendable {
  private struct Storage {
    /// The most recent diagnostics: a ring once it holds `limit` of them, oldest at `start`.
    var recent: [StoreDiagnostic] = []
    var start = 0
    var counts: [StoreDiagnostic.Kind: Int] = [:]
    var storesExaminedInLastCommit = 0
    var commits = 0
    var storesCreated = 0

    mutating func keep(_ diagnostic: StoreDiagnostic, limit: Int) {
      counts[diagnostic.kind, default: 0] += 1
      guard limit > 0 else { return }
      if recent.count < limit {
        recent.append(diagnostic)
      } else {
        recent[start] = diagnostic
        start = (start + 1) % limit
      }
    }

    var inOrder: [StoreDiagnostic] { Array(recent[start...] + recent[..<start]) }
  }

  private let storage = Mutex(Storage())
  private let printing: Bool
  private let limit: Int

  /// - Parameters:
  ///   - printing: also print each diagnostic to standard error (the default).
  ///   - limit: how many of the most recent diagnostics `all` keeps (1,000 by default; 0 keeps
  ///     none). `count(of:)` counts every diagnostic whatever the limit. Must not be negative.
  public init(printing: Bool = true, keeping limit: Int = 1_000) {
    if limit < 0 {
      observantFatalError(
        "Observant: StoreDiagnostics(keeping: \(limit)): the number of diagnostics to keep must be 0 or more")
    }
    self.printing = printing
    self.limit = limit
  }

  /// The most recent diagnostics, oldest first: every diagnostic so far, up to the limit given
  /// to `init(printing:keeping:)` (1,000 by default); past it, the oldest are let go of.
  public var all: [StoreDiagnostic] { storage.withLock { $0.inOrder } }

  /// How many diagnostics of `kind` were reported, including those `all` no longer keeps.
  public func count(of kind: StoreDiagnostic.Kind) -> Int {
    storage.withLock { $0.counts[kind] ?? 0 }
  }

  /// How many stores and collection scopes the last commit examined: only those whose parent slot
  /// changed. Independent of the number of live stores.
  public var storesExaminedInLastCommit: Int { storage.withLock { $0.storesExaminedInLastCommit } }

  /// How many actions were committed.
  public var commits: Int { storage.withLock { $0.commits } }

  /// How many stores this tree has created, the root included (element stores are created only
  /// when a `StoreCollection` element is accessed).
  public var storesCreated: Int { storage.withLock { $0.storesCreated } }

  internal func recordStoreCreated() {
    storage.withLock { $0.storesCreated += 1 }
  }

  @usableFromInline
  internal func report(_ diagnostic: StoreDiagnostic) {
    storage.withLock { $0.keep(diagnostic, limit: limit) }
    if printing { printToStandardError(diagnostic.message) }
  }

  @usableFromInline
  internal func recordCommit(storesExamined: Int) {
    storage.withLock { storage in
      storage.commits += 1
      storage.storesExaminedInLastCommit = storesExamined
    }
  }
}
