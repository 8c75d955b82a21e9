import Observant

/// A state container driven by a reducer, with scopes that hand one store to each child feature
/// or row, minimal observation, and stale stores that are harmless.
///
/// ```swift
/// let store = Store(initialState: Counter.State(), reducer: Counter.reduce)
/// store.count          // a tracked read of `count` (when State is ObservableState)
/// store.send(.increment)
/// ```
///
/// **Reading.** `store.state` and `store.someField` read the current state. When `State` is
/// `ObservableState`, a read inside a tracking scope (a `Reaction`, a render) depends on exactly the
/// fields it touched; reading a scoped store's state never subscribes the reader to the parent's
/// collection or slot, only to what identity requires (the store notifies its readers when its
/// element is replaced by a new value). Plain state (not `ObservableState`) is read as a whole: its
/// readers re-run when it changed, compared with `==` when it is `Equatable`.
///
/// **Sending.** `send` runs the reducer on the state in place and commits; see `send(_:)` for how
/// the actions it leads to are batched. A reducer must not read its store (or any store of its
/// tree) while it runs: it has the state as its `inout` parameter, and a read through a store would
/// be a simultaneous access to it. Doing so stops the program with a message naming the store.
///
/// **Scoping.** `scope(state:action:)` returns a child store, an optional child store, or a lazy
/// `StoreCollection` of per-element stores. Scopes are cached: scoping the same key path again
/// (and, for collections, asking for the same id) returns the same store. A scoped store keeps its
/// parent's and its root's state, reducer and running effects alive (the store tree, not the
/// parent `Store` objects, which hold their scopes): `Store(...).scope(...)` is a working store on
/// its own, and the tree (and its running effects) goes away with the last of its stores.
///
/// **Invalidation.** When a row or optional child disappears at a commit, its store (and every
/// store scoped from it) becomes invalid at that commit: its state reads return the last valid
/// value, `send` is dropped and reported to `diagnostics`, reads record nothing (so nothing re-runs
/// because of it), and the parent's cache forgets it (the same id later gets a new store). A store
/// scoped from an invalid store is invalid from the start.
///
/// **What showing the last state costs.** The state of a row, an optional child or an enum case
/// disappears inside the reducer, where nothing can take a copy of it; so such a store, and every
/// store scoped below one, keeps a copy of the last state read through it or committed to it, to
/// answer state reads once invalid. The copy shares the storage of the collections inside that
/// state: the reducer's next in-place change of one of them (`state.rows[id: 1]?.tags.append(x)`)
/// copies that collection, O(its size), once after each read of the store (never the rows array
/// around the row: the store keeps the row, not the array). An enum that is not
/// `IdentityComparable` reports every write to its payload, and the commit hands the case store
/// its new state, so there the copy comes after every such action. A child store of
/// `ObservableState` reached from the root through child scopes only never becomes invalid and
/// keeps no copy: keep a large collection that changes often in such child state, read through
/// its own store, rather than inside a row, an optional child or an enum payload. (Plain child
/// state is kept too: a commit compares it with the state before.) (A ``StoreCollection`` kept across actions holds a copy
/// of the rows array, with a cost of its own: see there.)
@MainActor
@dynamicMemberLookup
public final class Store<State, Action> {
  // The members a store is used through on every action (`send`, reads, `withState`) are
  // inlinable, as is the initializer: in a client's optimized build they run specialized for its
  // state and action types, and a dynamic member read's key path is applied as a direct access.

  /// Where the state comes from, the store's readers, and its place in the tree.
  @usableFromInline
  internal let core: StoreCore<State, Action>
  /// The stores scoped from this one, by state key path: child stores, and the element stores of
  /// each collection (`CollectionStores`). Held here, not by the core, so that a scoped store can
  /// hold its parent's core without a cycle.
  @usableFromInline
  internal var scopes: [AnyKeyPath: AnyObject] = [:]

  // MARK: Creating

  /// A root store.
  ///
  /// - Parameters:
  ///   - initialState: the state.
  ///   - reducer: mutates the state for an action, in place, and returns follow-up work.
  ///   - diagnostics: receives reports of dropped actions and per-commit statistics; shared by
  ///     every store scoped from this one. Printing to standard error by default.
  ///   - maximumActionsPerSend: how many actions one `send` may process in all, counting those
  ///     that reducers, `.send` effects and reactions send while it runs. Only a send that would
  ///     never end reaches the default (a reducer or effect that queues an action for every action
  ///     it processes): legitimate bursts of many thousands of actions run to the end. Past it, the
  ///     store drops what is still queued and reports `.runawayActions`. Must be positive.
  ///   - maximumReactionRoundsPerSend: how many rounds of actions sent by reactions one `send` may
  ///     process (see `send(_:)`). A reaction that sends an action whenever what it reads changes,
  ///     and reads what that action changes, would never settle: it is stopped here, after as many
  ///     rounds as `Reaction.maximumFlushRounds` allows a flush by default, and reported as
  ///     `.runawayActions`. Work done within a round (any number of actions sent by reducers,
  ///     effects, or one run of a reaction) does not count. Must be positive.
  @inlinable
  public init(
    initialState: State,
    reducer: @escaping (inout State, Action) -> Effect<Action>,
    diagnostics: StoreDiagnostics = StoreDiagnostics(),
    maximumActionsPerSend: Int = 1_000_000,
    maximumReactionRoundsPerSend: Int = 100
  ) {
    let limits = SendLimits.checked(actions: maximumActionsPerSend, reactionRounds: maximumReactionRoundsPerSend)
    self.core = RootCore.make(state: initialState, reducer: reducer, diagnostics: diagnostics, limits: limits)
  }

  /// A scoped store over `core`.
  @usableFromInline
  internal init(core: StoreCore<State, Action>) {
    self.core = core
  }

  /// The diagnostics shared by this store's tree.
  public var diagnostics: StoreDiagnostics { core.tree.diagnostics }

  /// Whether the store's state still exists. Once `false`, it stays `false`.
  public var isValid: Bool { core.isValid }

  // MARK: Reading

  /// The current state; once the store is invalid, the last state it read or committed before
  /// its state disappeared (what a view showing it last displayed). Keeping that state costs a
  /// copy of the collections in it that the reducer changes in place (see "What showing the last
  /// state costs" in the type's documentation).
  ///
  /// Inside a tracking scope this records the store's identity slot. Reads made later on the
  /// returned value are the value's own: to read through the store, so that the reads stop
  /// counting once the store is invalid, use `withState(_:)` or dynamic member reads
  /// (`store.count`).
  @inlinable
  public var state: State {
    let state = core.currentState
    core.recordIdentityRead(of: state)
    return state
  }

  /// Reads a field of the state through the store: inside a tracking scope it depends on that
  /// field and on the store's identity, under the store's guard (once the store is invalid, the
  /// read stops driving the reader). An invalid store answers from its last state and records
  /// nothing.
  ///
  /// - Complexity: O(1) for a row store read again before the next action (its row is kept per
  ///   action); otherwise the path from the root is walked once, each step a direct access (a row
  ///   store takes its row at the position it was found at while no row moved).
  @inlinable @inline(__always)
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    // Inlined into the caller, so that the key path is a literal where the closure is made: the
    // optimizer turns its application into the property's getter.
    core.read { $0[keyPath: keyPath] }
  }

  /// Runs `body` with the current state, recording every tracked read it makes through the store
  /// (see `subscript(dynamicMember:)`): the way to read nested fields of the state so that they
  /// stop driving the reader once the store is invalid. An invalid store passes its last state and
  /// records nothing.
  @inlinable
  public func withState<Result>(_ body: (State) throws -> Result) rethrows -> Result {
    try core.read(body)
  }

  // MARK: Sending

  /// Sends an action: runs the reducer on the state in place, commits, re-runs what depends on
  /// the change, and processes what follows, before returning.
  ///
  /// **Batching.** Actions sent while the store is busy (by a reducer, a `.send` effect, or a
  /// reaction) are queued, not nested, and processed in the order sent. A send is processed in
  /// rounds, each one transaction: the action, then every action that its reducers and `.send`
  /// effects queue, each reduced and committed in turn; when the round ends, the reactions that
  /// depend on what changed re-run, once each, however many actions the round processed. The
  /// actions those reactions send make the next round, and so on until nothing is queued. So a
  /// reader re-runs once per send, plus once per round of actions that reactions sent (a reaction
  /// must see a change before it can send in answer).
  ///
  /// **Limits.** A send stops with a `.runawayActions` diagnostic after `maximumActionsPerSend`
  /// actions, or after `maximumReactionRoundsPerSend` rounds of actions sent by reactions (a
  /// reaction that answers every change with an action that changes what it reads). What ran is
  /// committed; what was still queued is dropped.
  ///
  /// **Invalid stores.** An action sent to an invalid store (its row was removed, its child
  /// dismissed) is dropped and reported to `diagnostics`; nothing else happens.
  ///
  /// A reducer must not read a store of its tree (see the type's documentation); it may send to
  /// one (the action is queued).
  @inlinable
  public func send(_ action: Action) {
    core.send(action)
  }

  // MARK: Scope cache

  /// Forgets the store cached at `key` if its core is `core` (it became invalid).
  internal func forgetScope(at key: AnyKeyPath, ifItIs core: AnyObject) {
    if let cached = scopes[key] as? any CachedScope, cached.cachedCore === core { scopes[key] = nil }
  }
}

/// A store in a parent's scope cache, whatever its types.
@MainActor
internal protocol CachedScope: AnyObject {
  var cachedCore: AnyObject { get }
}

extension Store: CachedScope {
  var cachedCore: AnyObject { core }
}

/// A store of `Identifiable` state is identified by its state's id, read without tracking: a row
/// store's id is its row's id, so a keyed list (`ForEach(rows)`, `forEach(rows, name: { "Row[\($0.id)]" })`)
/// names and keys its rows without depending on anything. (`store.state.id` would record the
/// store's identity slot, and re-run the reader when the row is replaced by a new value with the
/// same id.)
extension Store: Identifiable where State: Identifiable {
  /// The id of the store's state, read without tracking. A row store's id is its row's id, for
  /// the store's whole life (also once invalid). Read on the main actor, as every store member:
  /// the compiler lets code elsewhere read it (`Identifiable` asks for a `nonisolated` id), and
  /// the program stops there with a message naming the store.
  public nonisolated var id: State.ID {
    guard _isOnMainActor() else {
      observantFatalError(
        "Observant: the id of a Store<\(State.self), \(Action.self)> was read off the main actor. A store is read "
          + "on the main actor only, its id included: read the id there, and hand the plain id (a "
          + "value) to other threads.")
    }
    return MainActor.assumeIsolated { StateIDOnMainActor(id: withoutTracking { core.lastKnownState.id }) }.id
  }
}

/// Carries an id out of `MainActor.assumeIsolated` (it is made and used on the main actor).
private struct StateIDOnMainActor<ID>: @unchecked Sendable {
  let id: ID
}

extension Store: CustomStringConvertible {
  public nonisolated var description: String { "Store<\(State.self), \(Action.self)>" }
}
