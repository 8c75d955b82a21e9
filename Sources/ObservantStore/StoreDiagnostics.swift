import Observant
import Synchronization

/// Something a store refused or worked around instead of crashing, reported to its
/// `StoreDiagnostics`.
public struct StoreDiagnostic: Sendable, CustomStringConvertible {
  /// What went wrong, for counting (`StoreDiagnostics.count(of:)`).
  public enum Kind: Sendable, Equatable {
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
public final class StoreDiagnostics: Sendable {
  private struct Storage {
    var diagnostics: [StoreDiagnostic] = []
    var storesExaminedInLastCommit = 0
    var commits = 0
    var storesCreated = 0
  }

  private let storage = Mutex(Storage())
  private let printing: Bool

  /// - Parameter printing: also print each diagnostic to standard error (the default).
  public init(printing: Bool = true) {
    self.printing = printing
  }

  /// Every diagnostic so far, oldest first.
  public var all: [StoreDiagnostic] { storage.withLock { $0.diagnostics } }

  /// How many diagnostics of `kind` were reported.
  public func count(of kind: StoreDiagnostic.Kind) -> Int {
    storage.withLock { $0.diagnostics.lazy.filter { $0.kind == kind }.count }
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
    storage.withLock { $0.diagnostics.append(diagnostic) }
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
