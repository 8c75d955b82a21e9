// swift-format-ignore-file
// (Observable types declared the way the README and the articles show them: two lines a field.)
import Observant
import ObservantHarness
import ObservantStore
import Testing

// The README's examples, verbatim where possible, so the README stays true.

private final class Profile: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var name = "Ada"
  @Tracked var followers = 0
  @Tracked var isOnline = false
}

// README: "Store and scoping"
enum Todos {
  struct Todo: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _isDone = StateField(false)
    var isDone: Bool { get { registrar.read(_isDone) } set { registrar.write(&_isDone, newValue) } }
    init(id: Int) { self.id = id }
  }

  enum TodoAction: Sendable { case toggle }

  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _todos = StateField<IdentifiedArrayOf<Todo>>([])
    var todos: IdentifiedArrayOf<Todo> {
      get { registrar.read(_todos) } set { registrar.write(&_todos, newValue) }
      _modify { yield &self[tracking: \._todos] }
    }
    init(todos: IdentifiedArrayOf<Todo>) { _todos = StateField(todos) }
  }

  enum Action: Sendable {
    case add(id: Int)
    case remove(id: Int)
    case todo(id: Int, action: TodoAction)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .add(let id):
      state.todos.append(Todo(id: id))
    case .remove(let id):
      state.todos.remove(id: id)
    case .todo(let id, .toggle):
      state.todos[id: id]?.isDone.toggle()
    }
    return .none
  }
}

@MainActor
@Suite("README examples")
struct ReadmeExampleTests {
  @Test("re-running only what changed: the render log")
  func renderLog() {
    let profile = Profile()
    let tree = RenderTree("Screen") { screen in
      screen.child("Header") { $0.text(profile.name) }
      screen.child("Stats") { $0.text("\(profile.followers) followers") }
      screen.child("Badge") { $0.text(profile.isOnline ? "online" : "away") }
    }
    tree.step("follow") { profile.followers += 1 }
    tree.step("rename, go online") {
      profile.name = "Ada Lovelace"
      profile.isOnline = true
    }
    tree.step("same value") { profile.followers += 0 }
    #expect(
      tree.log.description == """
        initial: Screen.body x1, Header.body x1, Stats.body x1, Badge.body x1
        follow: Stats.body x1
        rename, go online: Header.body x1, Badge.body x1
        same value: nothing ran
        """)
  }

  @Test("store and scoping: the todo list")
  func todoList() {
    let store = Store(
      initialState: Todos.State(todos: [Todos.Todo(id: 1), Todos.Todo(id: 2), Todos.Todo(id: 3)]),
      reducer: Todos.reduce)
    let tree = RenderTree("List") { list in
      let todos = store.scope(state: \.todos, action: Todos.Action.todo)
      list.text("\(todos.count) todos")
      list.forEach(todos, name: { "Todo[\($0.id)]" }) { todo, row in
        row.text(todo.isDone ? "done" : "open")
      }
    }
    tree.step("toggle 2") { store.send(.todo(id: 2, action: .toggle)) }
    tree.step("add 4") { store.send(.add(id: 4)) }
    tree.step("remove 1") { store.send(.remove(id: 1)) }
    #expect(
      tree.log.description == """
        initial: List.body x1, Todo[1].body x1, Todo[2].body x1, Todo[3].body x1
        toggle 2: Todo[2].body x1
        add 4: List.body x1, Todo[4].body x1
        remove 1: List.body x1
        """)
    #expect(tree.output(of: "Todo[2]") == "done")
    #expect(store.diagnostics.storesExaminedInLastCommit == 2)
  }
}
