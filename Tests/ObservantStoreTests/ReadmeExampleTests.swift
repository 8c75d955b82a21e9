import Observant
import ObservantTestSupport
import Testing

// The README's `swift` blocks, verbatim: `ArticleCodeTests` fails when one of them is missing
// here. The README's type names (`Profile`, `Todo`, `Settings`) are nested in the suite, which
// keeps them apart from the test module's own types; each test runs a block and asserts exactly
// what the block's comments say it prints or runs. The suite's `print` shadows the standard
// library's, so what the examples print is recorded (`PrintedLines`).

@Suite("README examples")
struct ReadmeExamples {
  let printed = PrintedLines()
  func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }

  // MARK: Two minutes

  final class Profile: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var name = "Ada"
    @Tracked var followers = 0
    var cache: [String: Int] = [:]  // not @Tracked: invisible to observers
  }

  @Test("a reaction prints once now, once per change, once per transaction; equal and untracked writes run nothing")
  func reaction() {
    let profile = Profile()
    let header = Reaction("Header") { print("\(profile.name): \(profile.followers)") }  // prints "Ada: 0"
    profile.followers += 1  // prints "Ada: 1"
    profile.followers = 1  // an equal value: nothing runs
    profile.cache["Ada"] = 1  // not tracked: nothing runs
    transaction {  // two writes, one run: prints "Ada Lovelace: 2"
      profile.name = "Ada Lovelace"
      profile.followers += 1
    }
    header.cancel()  // never runs again (deallocating it does the same)

    #expect(printed.take() == ["Ada: 0", "Ada: 1", "Ada Lovelace: 2"])
    #expect(header.runCount == 3)
    profile.followers += 1
    #expect(printed.take() == [])
  }

  // swift-format-ignore
  struct Todo: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int

    private var _title = StateField("")
    var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

    private var _isDone = StateField(false)
    var isDone: Bool { get { registrar.read(_isDone) } set { registrar.write(&_isDone, newValue) } }

    init(id: Int, title: String) {
      self.id = id
      _title = StateField(title)
    }
  }

  final class TodoList: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var todos: IdentifiedArrayOf<Todo> = []
  }

  @Test("a keyed list: a field of one row re-runs that row's reaction only")
  func keyedList() {
    let list = TodoList()
    list.todos = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs"), Todo(id: 3, title: "Bread")]
    let rows = list.todos.ids.map { id in
      Reaction("Row \(id)") {
        guard let todo = list.todos[id: id] else { return }
        print("\(todo.isDone ? "[x]" : "[ ]") \(todo.title)")
      }
    }  // prints "[ ] Milk", "[ ] Eggs", "[ ] Bread"
    list.todos[id: 2]?.isDone = true  // prints "[x] Eggs": row 2 runs, rows 1 and 3 do not
    list.todos[id: 1]?.title = "Oat milk"  // prints "[ ] Oat milk"

    #expect(printed.take() == ["[ ] Milk", "[ ] Eggs", "[ ] Bread", "[x] Eggs", "[ ] Oat milk"])
    #expect(rows.map(\.runCount) == [2, 2, 1])
  }

  @Test("the prose after the list: adding a todo re-runs every reader of the list, these rows included")
  func addingRerunsEveryRow() {
    let list = TodoList()
    list.todos = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]
    let rows = list.todos.ids.map { id in Reaction("Row \(id)") { _ = list.todos[id: id]?.title } }
    list.todos.append(Todo(id: 3, title: "Tea"))
    #expect(rows.map(\.runCount) == [2, 2])
    list.todos.move(from: 0, to: 2)
    #expect(rows.map(\.runCount) == [3, 3])
    list.todos.remove(id: 3)
    #expect(rows.map(\.runCount) == [4, 4])
  }

  // MARK: Declaring observable types

  // swift-format-ignore
  struct Settings: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _volume: StateField<Int>
    var volume: Int = 3 {
      @storageRestrictions(initializes: _volume) init { _volume = StateField(newValue) }
      get { registrar.read(_volume) } set { registrar.write(&_volume, newValue) }
    }
  }
  // Settings().volume == 3, Settings(volume: 11).volume == 11

  final class SettingsModel: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var settings = Settings()
  }

  @Test("an init accessor with a default value: Settings() and Settings(volume:) both compile; the field is tracked")
  func initAccessorWithDefault() {
    #expect(Settings().volume == 3)
    #expect(Settings(volume: 11).volume == 11)
    let model = SettingsModel()
    let volume = Reaction("Volume") { _ = model.settings.volume }
    model.settings.volume = 11
    #expect(volume.runCount == 2)
    #expect(volume.lastAccessLog.contains("Settings.volume"))
  }
}
