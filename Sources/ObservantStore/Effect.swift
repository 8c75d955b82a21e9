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
/// that tree without recursion, so an effect built from 100,000 nested merges costs no stack. The
/// same holds for `map`: mapping a `.run` effect adds its transform to a list (O(1)) that the
/// actions sent back go through in a loop, so a `.run` effect mapped 100,000 times over costs no
/// stack either.
public struct Effect<Action> {
  @usableFromInline
  internal enum Operation {
    case none
    case send(Action)
    /// Starts the effect's task, whose actions go through the transforms `map` added.
    case run(EffectRun<Action>)
    /// Two or more effects, none of them `.none`, run in order.
    case merge(EffectGroup<Action>)
  }

  /// An effect that is not a merge: what running an effect comes down to.
  @usableFromInline
  internal enum Leaf {
    case send(Action)
    case run(EffectRun<Action>)
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
    Effect(.run(EffectRun(operation)))
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
  /// Mapping a `.run` effect, however many times, keeps its transforms in a list, applied in a loop
  /// to each action its task sends back: a chain of maps costs no stack, to run or to release.
  ///
  /// - Complexity: O(*n*) where *n* is the number of effects merged into this one, at any depth;
  ///   O(1) for a `.run` effect, whatever the number of maps before.
  @inlinable
  public func map<Other>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
    switch operation {
    case .none: return .none
    case .send(let action): return .send(transform(action))
    case .run(let run): return Effect<Other>(.run(run.mapped(transform)))
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
      case .run(let run):
        mapped.append(Effect<Other>(.run(run.mapped(transform))))
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
    case .run(let run): return try body(.run(run))
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
      case .run(let run):
        try body(.run(run))
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

/// A `.run` effect: the operation its task runs, and the transforms that `map` added to the actions
/// it sends back.
///
/// A chain of maps made by closures that call each other would run (starting the task, sending an
/// action) and be released recursively, one frame per map: 100,000 maps would overflow the stack.
/// Here the operation sends its actions type-erased, and each map adds a node to a list; the task
/// is started with the list's transforms in an array, applied in a loop, and the list is released
/// in a loop (see `EffectTransform`).
@usableFromInline
internal struct EffectRun<Action> {
  /// Starts the task; it sends the actions of the type the effect was made with, as `Any`, on the
  /// main actor.
  private let startTask: @Sendable (_ send: @escaping @MainActor @Sendable (Any) -> Void) -> Task<Void, Never>
  /// The last transform `map` added (each node holds the one before); `nil` when none was.
  private let transforms: EffectTransform?

  private init(
    startTask: @escaping @Sendable (_ send: @escaping @MainActor @Sendable (Any) -> Void) -> Task<Void, Never>,
    transforms: EffectTransform?
  ) {
    self.startTask = startTask
    self.transforms = transforms
  }

  /// A `.run` effect that runs `operation` in a task.
  init(_ operation: @escaping @Sendable (Send<Action>) async -> Void) where Action: Sendable {
    self.init(
      startTask: { send in Task { await operation(Send { action in send(action) }) } },
      transforms: nil)
  }

  /// The same task, with `transform` applied to its actions after the transforms so far.
  ///
  /// - Complexity: O(1).
  @usableFromInline
  func mapped<Other>(_ transform: @escaping @Sendable (Action) -> Other) -> EffectRun<Other> {
    EffectRun<Other>(
      startTask: startTask,
      transforms: EffectTransform(after: transforms) { action in transform(action as! Action) })
  }

  /// Starts the task: each action it sends goes through the transforms, first added first, and
  /// then to `send`.
  @MainActor
  @usableFromInline
  func start(sending send: @escaping @MainActor @Sendable (Action) -> Void) -> Task<Void, Never> {
    guard let transforms else { return startTask { action in send(action as! Action) } }
    let inOrder = transforms.inOrder()
    return startTask { action in
      var action = action
      for transform in inOrder { action = transform(action) }
      send(action as! Action)
    }
  }
}

/// One transform of a `.run` effect's actions, and the transforms before it: a list that `map`
/// extends in O(1), shared by the effects mapped from one another.
///
/// `@unchecked Sendable`: `previous` is written only by `deinit`, when nothing else holds the node.
@usableFromInline
internal final class EffectTransform: @unchecked Sendable {
  let transform: @Sendable (Any) -> Any
  /// The transform applied before this one; `nil` for the first.
  private var previous: EffectTransform?
  /// How many transforms the list holds, this one included.
  private let count: Int

  init(after previous: EffectTransform?, _ transform: @escaping @Sendable (Any) -> Any) {
    self.transform = transform
    self.previous = previous
    self.count = (previous?.count ?? 0) + 1
  }

  /// The transforms of the list, in the order they apply (first added first).
  ///
  /// - Complexity: O(*n*), *n* the number of transforms.
  func inOrder() -> [@Sendable (Any) -> Any] {
    var transforms: [@Sendable (Any) -> Any] = []
    transforms.reserveCapacity(count)
    var node: EffectTransform? = self
    while let current = node {
      transforms.append(current.transform)
      node = current.previous
    }
    transforms.reverse()
    return transforms
  }

  /// Releasing a node releases the one before it, which releases the one before: a list of
  /// 100,000 transforms would be released recursively, 100,000 frames deep. Instead, the nodes
  /// before this one that nobody else holds are unlinked here, one at a time, so each is released
  /// with nothing left to release after it.
  deinit {
    var next = previous.take()
    while var node = next.take() {
      // `node` is the last reference unless another effect shares the rest of the list; then that
      // effect releases it.
      guard isKnownUniquelyReferenced(&node) else { return }
      next = node.previous.take()
    }
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
