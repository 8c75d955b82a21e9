import Observant
import ObservantStore

// Small features written the way an app would: ObservableState with the two-line accessors, an
// action enum, a reducer.

enum CounterFeature {
  // swift-format-ignore
  struct State: ObservableState, Equatable {
    var registrar = StateRegistrar<Self>()
    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
    init(count: Int = 0) { _count = StateField(count) }
  }

  enum Action: Equatable, Sendable {
    case increment
    case decrement
    case reset
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    case .reset: state = State()
    }
    return .none
  }
}

enum RowFeature {
  // swift-format-ignore
  struct State: ObservableState, Identifiable, Equatable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
    private var _child = StateField<CounterFeature.State?>(nil)
    var child: CounterFeature.State? {
      get { registrar.read(_child) } set { registrar.write(&_child, newValue) }
      _modify { yield &self[tracking: \._child] }
    }
    init(id: Int, count: Int = 0) {
      self.id = id
      _count = StateField(count)
    }
  }

  enum Action: Equatable, Sendable {
    case increment
    case showChild
    case dismissChild
    case child(CounterFeature.Action)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
    case .showChild:
      state.child = CounterFeature.State()
    case .dismissChild:
      state.child = nil
    case .child(let action):
      guard state.child != nil else { return .none }
      return CounterFeature.reduce(&state.child!, action).map(Action.child)
    }
    return .none
  }
}

enum ListFeature {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _rows = StateField<IdentifiedArrayOf<RowFeature.State>>([])
    var rows: IdentifiedArrayOf<RowFeature.State> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
    init(rows: some Sequence<Int> = []) {
      _rows = StateField(IdentifiedArray(uniqueElements: rows.map { RowFeature.State(id: $0) }))
    }
  }

  enum Action: Equatable, Sendable {
    case add(Int)
    case remove(Int)
    case move(from: Int, to: Int)
    case replace(Int)
    case removeAll
    case reset
    case incrementThenRemove(Int)
    case row(id: Int, action: RowFeature.Action)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .add(let id): state.rows.append(RowFeature.State(id: id))
    case .remove(let id): state.rows.remove(id: id)
    case .move(let from, let to): state.rows.move(from: from, to: to)
    case .replace(let id): state.rows[id: id] = RowFeature.State(id: id, count: 100)
    case .removeAll: state.rows.removeAll()
    case .reset: state = State()
    case .incrementThenRemove(let id):
      state.rows[id: id]?.count += 1
      state.rows.remove(id: id)
    case .row(let id, let action):
      guard state.rows[id: id] != nil else { return .none }
      return RowFeature.reduce(&state.rows[id: id]!, action).map { ListFeature.Action.row(id: id, action: $0) }
    }
    return .none
  }
}

enum SiblingsFeature {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _first = StateField(CounterFeature.State())
    var first: CounterFeature.State {
      get { registrar.read(_first) } set { registrar.write(&_first, newValue) }
      _modify { yield &self[tracking: \._first] }
    }
    private var _second = StateField(CounterFeature.State())
    var second: CounterFeature.State {
      get { registrar.read(_second) } set { registrar.write(&_second, newValue) }
      _modify { yield &self[tracking: \._second] }
    }
    init() {}
  }

  enum Action: Equatable, Sendable {
    case first(CounterFeature.Action)
    case second(CounterFeature.Action)
    case resetBoth
    case swap
    case replaceAll
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .first(let action): return CounterFeature.reduce(&state.first, action).map(Action.first)
    case .second(let action): return CounterFeature.reduce(&state.second, action).map(Action.second)
    case .resetBoth:
      state.first = CounterFeature.State()
      state.second = CounterFeature.State()
    case .swap:
      let first = state.first
      state.first = state.second
      state.second = first
    case .replaceAll:
      state = State()
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

    /// The payload of `.detail`, or `nil`: what a store scopes through.
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

  enum Action: Equatable, Sendable {
    case showDetail
    case moveToEdit
    case dismiss
    case detail(CounterFeature.Action)
    case edit(CounterFeature.Action)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .showDetail:
      state.destination = .detail(CounterFeature.State())
    case .moveToEdit:
      // The same payload (same identity) under another case.
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
