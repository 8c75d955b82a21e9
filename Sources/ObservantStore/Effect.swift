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
public struct Effect<Action> {
  internal enum Operation {
    case none
    case send(Action)
    /// Starts the effect's task, given a way to send actions back on the main actor.
    case run(@Sendable (_ send: @escaping @MainActor @Sendable (Action) -> Void) -> Task<Void, Never>)
    case merge([Effect])
  }

  internal let operation: Operation

  internal init(_ operation: Operation) { self.operation = operation }

  /// No further work.
  public static var none: Self { Effect(.none) }

  /// Sends `action` to the store once the current action has been committed and its reactions
  /// have run.
  public static func send(_ action: Action) -> Self { Effect(.send(action)) }

  /// Runs `operation` in a task; it can send actions back through `send`. The root store cancels
  /// the task when it is deallocated.
  public static func run(_ operation: @escaping @Sendable (Send<Action>) async -> Void) -> Self
  where Action: Sendable {
    Effect(.run { send in Task { await operation(Send(send)) } })
  }

  /// Runs several effects.
  public static func merge(_ effects: Effect...) -> Self { Effect(.merge(effects)) }

  /// The same work, with its actions turned into another action type: how a parent reducer
  /// returns the effect of a child reducer (`.map(AppAction.child)`).
  public func map<Other>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
    switch operation {
    case .none:
      return .none
    case .send(let action):
      return .send(transform(action))
    case .merge(let effects):
      return Effect<Other>(.merge(effects.map { $0.map(transform) }))
    case .run(let start):
      return Effect<Other>(.run { send in start { action in send(transform(action)) } })
    }
  }
}

/// Sends actions back into the store from an effect's task.
public struct Send<Action: Sendable>: Sendable {
  private let send: @MainActor @Sendable (Action) -> Void

  internal init(_ send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.send = send
  }

  /// Sends `action` to the store (on the main actor). Does nothing once the store is gone.
  @MainActor
  public func callAsFunction(_ action: Action) {
    send(action)
  }
}
