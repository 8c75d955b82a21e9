import Observant
import ObservantHarness
import ObservantObservationBridge
import ObservantStore
import Testing

#if canImport(SwiftUI)
import SwiftUI
#endif
#if canImport(UIKit)
import UIKit
#endif

// The code of the article "SwiftUI and UIKit" (Sources/Observant/Observant.docc), verbatim: the
// SwiftUI and UIKit views compile where those frameworks exist; the rest runs here.

enum Todos {
  // swift-format-ignore
  struct Todo: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _isDone = StateField(false)
    var isDone: Bool { get { registrar.read(_isDone) } set { registrar.write(&_isDone, newValue) } }
    init(id: Int) { self.id = id }
  }
  enum TodoAction: Sendable { case toggle }

  // swift-format-ignore
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
    case todo(id: Int, action: TodoAction)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .add(let id): state.todos.append(Todo(id: id))
    case .todo(let id, .toggle): state.todos[id: id]?.isDone.toggle()
    }
    return .none
  }
}

#if canImport(SwiftUI)
struct TodosApp: App {  // @main
  let store = Store(initialState: Todos.State(todos: [Todos.Todo(id: 1), Todos.Todo(id: 2)]), reducer: Todos.reduce)

  init() { ObservationBridge.isEnabled = true }

  var body: some Scene {
    WindowGroup { TodoList(store: store) }
  }
}

struct TodoList: View {
  let store: Store<Todos.State, Todos.Action>

  var body: some View {
    List {
      ForEach(store.scope(state: \.todos, action: Todos.Action.todo)) { todo in
        TodoRow(store: todo)
      }
    }
  }
}

struct TodoRow: View {
  let store: Store<Todos.Todo, Todos.TodoAction>

  var body: some View {
    Button(store.isDone ? "done" : "open") { store.send(.toggle) }
  }
}
#endif

#if canImport(UIKit)
final class TodoCell: UITableViewCell {
  private var observation: Reaction?

  func bind(to store: Store<Todos.Todo, Todos.TodoAction>) {
    observation = Reaction("TodoCell", scheduling: .mainActor) { [weak self] in
      self?.accessoryType = store.isDone ? .checkmark : .none
    }
  }

  override func prepareForReuse() {
    super.prepareForReuse()
    observation?.cancel()
    observation = nil
  }
}
#endif

@MainActor
@Suite("Article: SwiftUI and UIKit")
struct SwiftUIAndUIKitArticleTests {
  @Test(
    "the SwiftUI list through Apple's withObservationTracking, as SwiftUI renders it: a toggle re-renders its row, an add the list and the new row"
  )
  func swiftUIThroughAppleTracking() async {
    // In a child process: the example turns the bridge on for the whole process.
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      await MainActor.run {
        ObservationBridge.isEnabled = true
        let store = Store(
          initialState: Todos.State(todos: [Todos.Todo(id: 1), Todos.Todo(id: 2)]), reducer: Todos.reduce)
        let tree = RenderTree("TodoList", tracking: AppleObservationTracking()) { list in
          list.forEach(store.scope(state: \.todos, action: Todos.Action.todo), name: { "TodoRow[\($0.id)]" }) {
            todo, row in
            row.text(todo.isDone ? "done" : "open")
          }
        }
        tree.step("toggle 2") { store.send(.todo(id: 2, action: .toggle)) }
        tree.step("add 3") { store.send(.add(id: 3)) }
        print(tree.log)
        // initial: TodoList.body x1, TodoRow[1].body x1, TodoRow[2].body x1
        // toggle 2: TodoRow[2].body x1
        // add 3: TodoList.body x1, TodoRow[3].body x1
      }
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(
      output.split(separator: "\n").map(String.init) == [
        "initial: TodoList.body x1, TodoRow[1].body x1, TodoRow[2].body x1",
        "toggle 2: TodoRow[2].body x1",
        "add 3: TodoList.body x1, TodoRow[3].body x1",
      ])
  }

  @Test(
    "UIKit cells with reactions on the main actor: 99 actions in one turn re-render the affected cell once, at the next turn"
  )
  func uikitCells() async {
    let store = Store(initialState: Todos.State(todos: [Todos.Todo(id: 1), Todos.Todo(id: 2)]), reducer: Todos.reduce)
    let pool = CellPool("TodoCell", tracking: ReactionTracking(scheduling: .mainActor))
    let todos = store.scope(state: \.todos, action: Todos.Action.todo)
    let cells = todos.map { todo in pool.dequeue(for: todo.id) { todo.isDone ? "done" : "open" } }
    for _ in 0..<99 { store.send(.todo(id: 1, action: .toggle)) }  // 99 actions in this turn
    let before = cells.map(\.history)  // [["open"], ["open"]]: nothing yet
    await Task.yield()  // the main actor's next turn
    let after = cells.map(\.history)  // [["open", "done"], ["open"]]: row 1 once, with the latest value
    #expect(before == [["open"], ["open"]])
    #expect(after == [["open", "done"], ["open"]])
    for cell in cells { pool.enqueue(cell) }
  }

  @Test("awaiting changes: TrackedValues yields the current value, then one per change")
  func awaitingChanges() async {
    let store = Store(initialState: Todos.State(todos: [Todos.Todo(id: 1)]), reducer: Todos.reduce)
    let counts = Task {
      var seen: [Int] = []
      for await count in TrackedValues({ store.todos.count }) {
        seen.append(count)
        if count == 3 { break }
      }
      return seen
    }
    await Task.yield()
    store.send(.add(id: 2))
    await Task.yield()
    store.send(.add(id: 3))
    let seen = await counts.value  // [1, 2, 3], or [1, 3] if the loop had not taken 2 before 3 came
    // The loop gets the latest value when it falls behind (which this machine's scheduler decides).
    #expect(seen == [1, 2, 3] || seen == [1, 3])
  }
}
