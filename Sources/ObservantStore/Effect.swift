/// What a reducer asks the store to do after it has changed the state: nothing, send another
/// action, or run asynchronous work that can send actions back.
///
/// ```swift
/// case .refreshTapped:
///   state.isLoading = true
///   return .run { send in
///     let items = await api.fetch()
///     await send(.loaded(items))
///   }
/// ```
///
/// Effects combine with `merge`, at any depth: merging is O(1) (small merges are flattened into
/// the new one, larger ones are kept as a tree), and running, mapping and releasing an effect walk
/// that tree without recursion, so an effect built from 100,000 nested merges costs no stack.
public struct Effect<Action> {
  @usableFromInline
  internal enum Operation {
    case none
    case send(Action)
    /// Starts the effect's task, given a way to send actions back on the main actor.
    case run(@Sendable (_ send: @escaping @MainActor @Sendable (Action) -> Void) -> Task<Void, Never>)
    /// Two or more effects, none of them `.none`, run in order.
    case merge(EffectGroup<Action>)
  }

  /// An effect that is not a merge: what running an effect comes down to.
  @usableFromInline
  internal enum Leaf {
    case send(Action)
    case run(@Sendable (_ send: @escaping @MainActor @Sendable (Action) -> Void) -> Task<Void, Never>)
  }

  @usableFromInline
  internal let operation: Operation

  @inlinable
  internal init(_ operation: Operation) { self.operation = operation }

  // The cases a reducer returns on every action are inlinable, so that a client's reducer builds
  // and maps them specialized: in generic code each `Effect`, `Operation` and `Leaf` type is a
  // metadata lookup at run time.

  /// No further work.
  @inlinable
  public static var none: Self { Effect(.none) }

  /// Sends `action` to the store once the current action has been committed, in the same `send`
  /// (see `Store.send(_:)`).
  @inlinable
  public static func send(_ action: Action) -> Self { Effect(.send(action)) }

  /// Runs `operation` in a task; it can send actions back through `send`. The task is cancelled
  /// when the last store of the tree (the root store or a store scoped from it) is deallocated.
  public static func run(_ operation: @escaping @Sendable (Send<Action>) async -> Void) -> Self
  where Action: Sendable {
    Effect(.run { send in Task { await operation(Send(send)) } })
  }

  /// Runs several effects, in order.
  ///
  /// - Complexity: O(1) in the depth of the merges nested in `effects`.
  public static func merge(_ effects: Effect...) -> Self { merge(effects) }

  /// Runs every effect of `effects`, in order: for a number of effects known only at run time
  /// (one per row, say), without nesting merges.
  ///
  /// ```swift
  /// return .merge(state.rows.ids.map { .send(.row(id: $0, action: .refresh)) })
  /// ```
  ///
  /// - Complexity: O(*n*) where *n* is the number of effects in `effects`.
  public static func merge(_ effects: some Sequence<Effect>) -> Self {
    var flat: [Effect] = []
    flat.reserveCapacity(effects.underestimatedCount)
    for effect in effects {
      switch effect.operation {
      case .none:
        continue
      case .merge(let group) where group.effects.count <= EffectGroup<Action>.flatteningLimit:
        // A small merge is spliced in (bounded work), so that everyday merges of merges stay
        // flat; a larger one is kept whole, so that a chain of merges stays O(1) per link.
        flat.append(contentsOf: group.effects)
      default:
        flat.append(effect)
      }
    }
    switch flat.count {
    case 0: return .none
    case 1: return flat[0]
    default: return Effect(.merge(EffectGroup(flat)))
    }
  }

  /// The same work, with its actions turned into another action type: how a parent reducer
  /// returns the effect of a child reducer (`.map(AppAction.child)`).
  ///
  /// - Complexity: O(*n*) where *n* is the number of effects merged into this one, at any depth.
  @inlinable
  public func map<Other>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
    switch operation {
    case .none: return .none
    case .send(let action): return .send(transform(action))
    case .run(let start): return Effect<Other>(.run { send in start { action in send(transform(action)) } })
    case .merge: return mapMerged(transform)
    }
  }

  /// `map(_:)` of a merge (out of line: rare, and it walks the tree).
  @usableFromInline
  internal func mapMerged<Other>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
    var mapped: [Effect<Other>] = []
    forEachLeaf { leaf in
      switch leaf {
      case .send(let action):
        mapped.append(.send(transform(action)))
      case .run(let start):
        mapped.append(Effect<Other>(.run { send in start { action in send(transform(action)) } }))
      }
    }
    switch mapped.count {
    case 0: return .none
    case 1: return mapped[0]
    default: return Effect<Other>(.merge(EffectGroup(mapped)))
    }
  }

  /// Calls `body` with every effect that is not a merge, in order, walking nested merges with a
  /// stack of their own rather than by recursion.
  @inlinable
  internal func forEachLeaf(_ body: (Leaf) throws -> Void) rethrows {
    switch operation {
    case .none: return
    case .send(let action): return try body(.send(action))
    case .run(let start): return try body(.run(start))
    case .merge: try forEachLeafOfMerge(body)
    }
  }

  /// `forEachLeaf(_:)` of a merge (out of line).
  @usableFromInline
  internal func forEachLeafOfMerge(_ body: (Leaf) throws -> Void) rethrows {
    var pending: [Effect] = [self]
    while let effect = pending.popLast() {
      switch effect.operation {
      case .none:
        continue
      case .send(let action):
        try body(.send(action))
      case .run(let start):
        try body(.run(start))
      case .merge(let group):
        pending.append(contentsOf: group.effects.reversed())
      }
    }
  }
}

/// The effects of a merge. A class so that releasing a deep tree of merges can be done without
/// recursion (see `deinit`).
@usableFromInline
internal final class EffectGroup<Action> {
  /// Merges of at most this many effects are spliced into the merges that contain them.
  static var flatteningLimit: Int { 16 }

  private(set) var effects: [Effect<Action>]

  init(_ effects: [Effect<Action>]) {
    self.effects = effects
  }

  /// Releasing a group releases its nested groups, which release theirs: a chain of 100,000
  /// merges would release recursively, 100,000 frames deep. Instead, nested groups that nobody
  /// else holds are emptied here, one at a time, so each is released with no children left.
  deinit {
    var unique: [EffectGroup] = []
    Self.takeNestedGroups(of: &effects, into: &unique)
    while var group = unique.popLast() {
      // `group` is the last reference unless some other effect shares the group; then it stays
      // whole, and whoever releases it last empties it.
      if isKnownUniquelyReferenced(&group) {
        Self.takeNestedGroups(of: &group.effects, into: &unique)
      }
    }
  }

  /// Moves the nested groups of `effects` into `groups` and empties `effects`.
  private static func takeNestedGroups(of effects: inout [Effect<Action>], into groups: inout [EffectGroup]) {
    for effect in effects {
      if case .merge(let nested) = effect.operation { groups.append(nested) }
    }
    effects = []
  }
}

/// Sends actions back into the store from an effect's task.
public struct Send<Action: Sendable>: Sendable {
  private let send: @MainActor @Sendable (Action) -> Void

  internal init(_ send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.send = send
  }

  /// Sends `action` to the store (on the main actor). Does nothing once every store of the tree is
  /// gone.
  @MainActor
  public func callAsFunction(_ action: Action) {
    send(action)
  }
}
