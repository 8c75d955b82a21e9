// The only module of the package whose sources import Apple's Observation (a toolchain module,
// not a package) at run time for users: apps that enable the bridge link it.
import Observant
import Observation

/// Makes Observant's fields observable by Apple's Observation: SwiftUI views, UIKit's
/// observation tracking, `withObservationTracking` and `Observations` see them, one field at a
/// time, with Observant's precision.
///
/// Turn it on once, before the first view reads a model (in the app's `init`, say):
///
/// ```swift
/// import ObservantObservationBridge
///
/// ObservationBridge.isEnabled = true
/// ```
///
/// From then on, every read of an Observant field made outside Observant's own tracking scopes
/// (a `Reaction`, `withTracking`) is also reported to Apple's tracking — and so are the reads of
/// a `withTracking(propagatingToOuterScope: true)` scope with no Observant scope around it, when
/// it ends — and Apple's observers of that field hear of a change exactly when Observant's
/// reactions would:
///
/// - only the fields read: a row view that read `rowStore.count` hears changes of that row's
///   `count`, not of other rows, and not of the list around it;
/// - by Observant's rules: an equal write is silent, a parent slot follows the identity rules, a
///   write to a copy (a draft, an undo snapshot) disturbs the readers of the live value at most
///   once, and a transaction that sets a field and sets it back reports nothing;
/// - once per transaction, when it ends, on the writing thread. Apple's `@Observable` reports
///   before the value changes (`willSet`); the bridge reports after it changed (Apple's `willSet`
///   and `didSet` are both called then). For a write outside a transaction that is inside the
///   `@Tracked` setter: a property's own `didSet` (and what it writes) runs after the report.
///   SwiftUI only invalidates a view and reads the value later, so this makes no difference to
///   it.
///
/// **Cost.** Off (the default), an untracked read of a field pays one extra load, and
/// nothing else changes. On, a read outside Observant's scopes also looks up the field's watcher
/// in the object's observer table (a lock and a short list) and reports it to Apple's registrar;
/// the first read of a state of a field installs a watcher (an Observant observer, an Apple
/// registrar and a key path: about 700 bytes with the object's observer table), which stays until
/// that state is replaced (value types) or until the object goes away (classes). Writes to fields read this way then go through the
/// observed path. Reads inside `withoutTracking` are not reported.
///
/// **When objects go away.** When an observed object (or the last copy of an observed value)
/// goes away, Apple's observers of its fields hear one last change (Apple's own `@Observable`
/// types tell their observers nothing then in Swift 6.3.1 on Linux, though Apple's tests expect a
/// change), and the bridge's entries for it are released. When it goes away inside a
/// transaction (a value replaced by a new one in a setter, a dictionary's subscript or a store's
/// reducer), they hear it when the transaction ends, like any other change: an `onChange` that
/// reads the state finds the new value.
///
/// **A write racing with `withObservationTracking`.** Apple's tracking installs its observers
/// after its closure returns: a write made on another thread between a read in the closure and
/// that installation is not reported to it, for Observant fields as for `@Observable` ones.
/// Writes after the installation are all reported. Apple's `onChange` is called at least once,
/// not exactly once: a write on another thread that lands while Apple installs a scope's
/// observers on several registrars (the bridge gives each watched state of a field a registrar
/// of its own, so a scope that read several fields has several) can call it again later: Apple
/// then keeps that scope's observations, which call `onChange` at every later change of the
/// fields it read while their objects live (as for Apple's own `@Observable` types; the bridge's
/// entries for them go with the objects). Make the writes and the tracking on one actor
/// (SwiftUI: the main actor) and there is no such window.
public enum ObservationBridge {
  /// Whether reads of Observant fields are reported to Apple's Observation (see the type's
  /// documentation). Off by default.
  ///
  /// Set it once at launch, before views read fields; it may be changed at any time, from any
  /// thread. Turning it off stops reporting new reads; fields already reported keep reporting
  /// their next change (a class's fields: every change) until their objects go away.
  ///
  /// - Complexity: O(1).
  public static var isEnabled: Bool {
    get { ExternalObservation.isStarted && !ExternalObservation.isRestrictedToMarkedTasks }
    set {
      if newValue {
        ExternalObservation.start(AppleObservation(), onlyInMarkedTasks: false)
      } else {
        ExternalObservation.stop()
      }
    }
  }

  /// Runs `body` with its reads reported to Apple's Observation, leaving other tasks alone unless
  /// the bridge is enabled for everything: for this package's tests, which share a process with
  /// tests that expect no bridge. Threads started by `body` are not included; wrap their work too.
  package static func withBridgeForTesting<Result>(_ body: () throws -> Result) rethrows -> Result {
    startForTesting()
    return try ExternalObservation.$isMarkedTask.withValue(true) { try body() }
  }

  /// The `async` form of `withBridgeForTesting(_:)`.
  package static func withBridgeForTesting<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
  ) async rethrows -> Result {
    startForTesting()
    return try await ExternalObservation.$isMarkedTask.withValue(true) { try await body() }
  }

  private static func startForTesting() {
    if !ExternalObservation.isStarted {
      ExternalObservation.start(AppleObservation(), onlyInMarkedTasks: true)
    }
  }
}

/// Apple's Observation as the bridge's external system: each watched state of a field gets an
/// `ObservationRegistrar` of its own and a key path naming it.
///
/// Apple keys what it tracks by registrar and key path. A registrar per watched state (rather
/// than one per object, with a key path per field) keeps Observant's distinction between states:
/// a scope that read the live value's field and one that read a draft's hear different
/// registrars, and no lock is shared between unrelated objects. The key path is made once per
/// watched state, not per read, and is the keeper: whatever Apple keeps of an access (the access
/// list of a scope being evaluated, an installed observation) keeps it alive, which tells the
/// watcher that Apple may still be told through the handle (see
/// `ExternalObservationSystem.makeField()`). It holds a token, not the handle: an observation
/// Apple keeps in the handle's registrar for good (a scope that fired on one thread while being
/// installed on another) must not keep the registrar alive through its own key path.
private struct AppleObservation: ExternalObservationSystem {
  func makeField() -> (field: any ExternalObservedField, keeper: any AnyObject & Sendable) {
    let field = AppleObservedField()
    let keyPath = \BridgedField[state: FieldIdentity(token: FieldToken())]
    field.keyPath = keyPath
    return (field, keyPath)
  }
}

/// Set up by `AppleObservation.makeField()` before it is shared, then only read.
private final class AppleObservedField: ExternalObservedField, @unchecked Sendable {
  private let registrar = ObservationRegistrar()
  /// Weak: the watcher holds it while the state can be read, and Apple's observers after that.
  weak var keyPath: KeyPath<BridgedField, Void>?

  func reportAccess() {
    guard let keyPath else { return }
    registrar.access(BridgedField(), keyPath: keyPath)
  }

  func reportChange() {
    guard let keyPath else { return }
    registrar.willSet(BridgedField(), keyPath: keyPath)
    registrar.didSet(BridgedField(), keyPath: keyPath)
  }
}

/// What makes each watched state's key path unique (and a distinct object).
private final class FieldToken: Sendable {}

/// A token as a key path argument: equal only to itself.
private struct FieldIdentity: Hashable, Sendable {
  let token: FieldToken
  static func == (lhs: Self, rhs: Self) -> Bool { lhs.token === rhs.token }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(token)) }
}

/// The subject Apple's registrar wants: it only uses its type; the key path names the one
/// thing each registrar stands for, a state of an Observant field.
private struct BridgedField: Observable {
  subscript(state state: FieldIdentity) -> Void { () }
}
