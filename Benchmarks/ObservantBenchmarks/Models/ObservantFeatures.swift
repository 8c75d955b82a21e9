import Observant
import ObservantStore

// The Observant side of the scenarios: features written the way an app would write them
// (ObservableState with the README's two-line accessors, an action enum, a reducer), driven by a
// `Store` and rendered with `ObservantHarness`.

enum CounterFeature {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _count: StateField<Int>
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
    init(count: Int = 0) { _count = StateField(count) }
  }

  enum Action: Sendable {
    case increment
    case decrement
    case set(Int)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    case .set(let value): state.count = value
    }
    return .none
  }
}

enum RowFeature {
  // swift-format-ignore
  struct State: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _count: StateField<Int>
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
    init(id: Int, count: Int = 0) {
      self.id = id
      _count = StateField(count)
    }
  }

  typealias Action = CounterFeature.Action

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    case .set(let value): state.count = value
    }
    return .none
  }
}

enum ListFeature {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows: StateField<IdentifiedArrayOf<RowFeature.State>>
    var rows: IdentifiedArrayOf<RowFeature.State> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    init(ids: some Sequence<Int>) {
      _rows = StateField(IdentifiedArray(uniqueElements: ids.map { RowFeature.State(id: $0) }))
    }
  }

  enum Action: Sendable {
    case add(id: Int)
    case remove(id: Int)
    case move(from: Int, to: Int)
    case replace(id: Int, count: Int)
    case row(id: Int, action: RowFeature.Action)
    /// Several actions reduced as one (one commit, one transaction).
    case batch([Action])
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .add(let id): state.rows.append(RowFeature.State(id: id))
    case .remove(let id): state.rows.remove(id: id)
    case .move(let from, let to): state.rows.move(from: from, to: to)
    case .replace(let id, let count): state.rows[id: id] = RowFeature.State(id: id, count: count)
    case .row(let id, let action):
      guard state.rows[id: id] != nil else { return .none }
      return RowFeature.reduce(&state.rows[id: id]!, action).map { .row(id: id, action: $0) }
    case .batch(let actions):
      for action in actions { _ = reduce(&state, action) }
    }
    return .none
  }
}

enum ParentFeature {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _child = StateField<CounterFeature.State?>(nil)
    var child: CounterFeature.State? {
      get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
      _modify { yield &self[tracking: \._child] }
    }
    init() {}
  }

  enum Action: Sendable {
    case present
    case dismiss
    case child(CounterFeature.Action)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .present: state.child = CounterFeature.State()
    case .dismiss: state.child = nil
    case .child(let action):
      guard state.child != nil else { return .none }
      return CounterFeature.reduce(&state.child!, action).map(Action.child)
    }
    return .none
  }
}

enum DestinationFeature {
  /// Enum state: identity by case, then by the payload's identity.
  enum Destination: IdentityComparable {
    case detail(CounterFeature.State)
    case edit(CounterFeature.State)

    static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case let (.detail(lhs), .detail(rhs)), let (.edit(lhs), .edit(rhs)): Observant.isIdentityEqual(lhs, rhs)
      default: false
      }
    }

    var detail: CounterFeature.State? {
      if case .detail(let state) = self { state } else { nil }
    }
    var edit: CounterFeature.State? {
      if case .edit(let state) = self { state } else { nil }
    }
  }

  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _destination = StateField<Destination?>(nil)
    var destination: Destination? { get { registrar.read(_destination) } set { registrar.write(&_destination, newValue) } }
    init() {}
  }

  enum Action: Sendable {
    case showDetail
    /// The same payload (same identity) moves under another case.
    case switchToEdit
    case dismiss
    case detail(CounterFeature.Action)
    case edit(CounterFeature.Action)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .showDetail:
      state.destination = .detail(CounterFeature.State())
    case .switchToEdit:
      if case .detail(let payload) = state.destination { state.destination = .edit(payload) }
    case .dismiss:
      state.destination = nil
    case .detail(let action):
      guard case .detail(var payload) = state.destination else { return .none }
      let effect = CounterFeature.reduce(&payload, action)
      state.destination = .detail(payload)
      return effect.map(Action.detail)
    case .edit(let action):
      guard case .edit(var payload) = state.destination else { return .none }
      let effect = CounterFeature.reduce(&payload, action)
      state.destination = .edit(payload)
      return effect.map(Action.edit)
    }
    return .none
  }
}

enum SiblingsFeature {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _first: StateField<CounterFeature.State>
    var first: CounterFeature.State {
      get { registrar.read(_first) } set { registrar.write(&_first, newValue) }
      _modify { yield &self[tracking: \._first] }
    }
    private var _second: StateField<CounterFeature.State>
    var second: CounterFeature.State {
      get { registrar.read(_second) } set { registrar.write(&_second, newValue) }
      _modify { yield &self[tracking: \._second] }
    }
    init(first: Int, second: Int) {
      _first = StateField(CounterFeature.State(count: first))
      _second = StateField(CounterFeature.State(count: second))
    }
  }

  enum Action: Sendable {
    case first(CounterFeature.Action)
    case second(CounterFeature.Action)
    case swap
    case resetBoth
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .first(let action): return CounterFeature.reduce(&state.first, action).map(Action.first)
    case .second(let action): return CounterFeature.reduce(&state.second, action).map(Action.second)
    case .swap:
      let first = state.first
      state.first = state.second
      state.second = first
    case .resetBoth:
      state.first = CounterFeature.State()
      state.second = CounterFeature.State()
    }
    return .none
  }
}
