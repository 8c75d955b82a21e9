import Observant
import ObservantTestSupport
import Testing

// The code of the Observant catalog's articles (Sources/Observant/Observant.docc), verbatim: each
// article's `swift` code blocks appear here line for line (indentation aside), and
// `ArticleCodeTests` fails when one does not. The assertions after each block check what the
// article's comments promise.

// MARK: GettingStarted.md

@Suite("Article: Getting started")
struct GettingStartedArticle {
  /// What the examples print (this `print` shadows the standard library's; see `PrintedLines`).
  let printed = PrintedLines()
  func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }

  final class Counter: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var count = 0
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

  @Test("a counter: one run per change, none for the same value, one per transaction")
  func counter() {
    let counter = Counter()
    let label = Reaction("Label") {
      print("count: \(counter.count)")
    }
    counter.count += 1  // prints "count: 1"
    counter.count = 1  // the same value: nothing runs
    transaction {  // two writes, one run: prints "count: 3"
      counter.count += 1
      counter.count += 1
    }
    label.cancel()  // never runs again

    #expect(printed.take() == ["count: 0", "count: 1", "count: 3"])
    #expect(label.runCount == 3)
    counter.count += 1
    #expect(label.runCount == 3)
    #expect(printed.take() == [])
  }

  @Test("a counter, step by step")
  func counterSteps() {
    let counter = Counter()
    let label = Reaction("Label") { _ = counter.count }
    counter.count += 1
    #expect(label.runCount == 2)
    counter.count = 1
    #expect(label.runCount == 2)
    transaction {
      counter.count += 1
      counter.count += 1
    }
    #expect(label.runCount == 3)
    #expect(counter.count == 3)
  }

  @Test("a list: a row's change re-runs that row; adding a row re-runs the header and the rows")
  func list() {
    let list = TodoList()
    list.todos = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs"), Todo(id: 3, title: "Bread")]

    let header = Reaction("Header") {
      print("\(list.todos.count) todos")
    }
    let rows = list.todos.ids.map { id in
      Reaction("Row \(id)") {
        guard let todo = list.todos[id: id] else { return }
        print("\(todo.isDone ? "[x]" : "[ ]") \(todo.title)")
      }
    }

    list.todos[id: 2]?.isDone = true  // re-runs "Row 2", nothing else
    list.todos[id: 1]?.title = "Oat milk"  // re-runs "Row 1", nothing else

    #expect(header.runCount == 1)
    #expect(rows.map(\.runCount) == [2, 2, 1])

    list.todos.append(Todo(id: 4, title: "Tea"))  // re-runs "Header", and every row

    #expect(header.runCount == 2)
    #expect(rows.map(\.runCount) == [3, 3, 2])
  }
}

// MARK: DeclaringObservableTypes.md

@Suite("Article: Declaring observable types")
struct DeclaringArticle {
  final class Profile: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var name = ""
    @Tracked var tags: [String] = []
    @TrackedWeak var manager: Profile?
    var cache: [String: Int] = [:]  // not tracked: invisible to observers
  }

  final class Document: Trackable {
    struct Storage { var title = "" }

    let trackingRegistrar = TrackingRegistrar()
    private var storage = Storage()

    var title: String {
      get { trackAccess(); return storage.title }
      set { trackMutation { storage.title = newValue } }
    }
  }

  // swift-format-ignore
  struct Settings: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _volume = StateField(5)
    var volume: Int { get { registrar.read(_volume) } set { registrar.write(&_volume, newValue) } }

    private var _tags = StateField<[String]>([])
    var tags: [String] {
      get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
      _modify { yield &self[tracking: \._tags] }
    }
  }

  // swift-format-ignore
  struct Alert: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _message = StateField("")
    var message: String { get { registrar.read(_message) } set { registrar.write(&_message, newValue) } }
  }

  // swift-format-ignore
  struct Account: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _settings = StateField(Settings())
    var settings: Settings {
      get { registrar.read(_settings) } set { registrar.write(&_settings, newValue) }
      _modify { yield &self[tracking: \._settings] }
    }

    private var _alert: StateField<Alert?> = nil
    var alert: Alert? {
      get { registrar.read(_alert) } set { registrar.write(&_alert, newValue) }
      _modify { yield &self[tracking: \._alert] }
    }

    private var _destination = StateField(Destination.none)
    var destination: Destination {
      get { registrar.read(_destination) } set { registrar.write(&_destination, newValue) }
    }
  }

  enum Destination: IdentityComparable {
    case none
    case settings(Settings)
    case message(String)

    static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case (.none, .none): true
      case let (.settings(lhs), .settings(rhs)): Observant.isIdentityEqual(lhs, rhs)
      case let (.message(lhs), .message(rhs)): lhs == rhs
      default: false
      }
    }
  }

  // swift-format-ignore
  struct Point: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _x: StateField<Int>
    var x: Int {
      @storageRestrictions(initializes: _x) init { _x = StateField(newValue) }
      get { registrar.read(_x) } set { registrar.write(&_x, newValue) }
    }

    private var _y: StateField<Int>
    var y: Int = 0 {
      @storageRestrictions(initializes: _y) init { _y = StateField(newValue) }
      get { registrar.read(_y) } set { registrar.write(&_y, newValue) }
    }
  }

  // swift-format-ignore
  struct Size: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _width: StateField<Double>
    var width: Double { get { registrar.read(_width) } set { registrar.write(&_width, newValue) } }

    init(width: Double) {
      _width = StateField(width)
    }
  }

  final class AccountModel: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var account = Account()
  }

  @Test("classes: @Tracked and @TrackedWeak properties are observed, plain ones are not")
  func classes() {
    let profile = Profile()
    let boss = Profile()
    let name = Reaction { _ = profile.name }
    let tags = Reaction { _ = profile.tags }
    let manager = Reaction { _ = profile.manager }
    let cache = Reaction { _ = profile.cache }
    profile.name = "Ada"
    profile.tags.append("math")
    profile.manager = boss
    profile.cache["x"] = 1
    #expect((name.runCount, tags.runCount, manager.runCount, cache.runCount) == (2, 2, 2, 1))
    #expect(cache.lastAccessLog.isEmpty)
  }

  @Test("a hand-written tracked property reports its reads and its changes")
  func handWritten() {
    let document = Document()
    let title = Reaction { _ = document.title }
    #expect(title.lastAccessLog.fields == ["Document.title"])
    document.title = "Notes"
    #expect(title.runCount == 2)
    #expect(document.title == "Notes")
  }

  @Test("value types: fields, collections, children, optional children and enum state")
  func valueTypes() {
    let model = AccountModel()
    let volume = Reaction { _ = model.account.settings.volume }
    let tags = Reaction { _ = model.account.settings.tags }
    let alert = Reaction { _ = model.account.alert?.message }
    let destination = Reaction { _ = model.account.destination }
    model.account.settings.volume = 7
    #expect((volume.runCount, tags.runCount, alert.runCount, destination.runCount) == (2, 1, 1, 1))
    model.account.settings.tags.append("a")
    #expect((volume.runCount, tags.runCount, alert.runCount, destination.runCount) == (2, 2, 1, 1))
    model.account.alert = Alert()
    #expect((volume.runCount, tags.runCount, alert.runCount, destination.runCount) == (2, 2, 2, 1))
    model.account.alert?.message = "Saved"
    #expect((volume.runCount, tags.runCount, alert.runCount, destination.runCount) == (2, 2, 3, 1))
    model.account.destination = .message("Hi")
    #expect((volume.runCount, tags.runCount, alert.runCount, destination.runCount) == (2, 2, 3, 2))
    model.account.destination = .message("Hi")
    #expect(destination.runCount == 2)
  }

  @Test("an edited copy of an enum payload written back notifies the payload's readers of what changed")
  func enumPayload() {
    let model = AccountModel()
    model.account.destination = .settings(Settings())
    let slot = Reaction { _ = model.account.destination }
    let volume = Reaction {
      if case .settings(let settings) = model.account.destination { _ = settings.volume }
    }
    #expect((slot.runCount, volume.runCount) == (1, 1))
    guard case .settings(var settings) = model.account.destination else { Issue.record(); return }
    transaction {
      settings.volume = 9
      model.account.destination = .settings(settings)
    }
    #expect(volume.runCount == 2)
    #expect(slot.runCount == 1)  // the same identity: the slot's readers are not told
  }

  @Test("an optional child's slot readers hear it appear, be replaced and disappear, not its fields")
  func optionalChild() {
    let model = AccountModel()
    let slot = Reaction { _ = model.account.alert }
    let message = Reaction { _ = model.account.alert?.message }
    model.account.alert = Alert()
    #expect((slot.runCount, message.runCount) == (2, 2))
    model.account.alert?.message = "Saved"
    #expect((slot.runCount, message.runCount) == (2, 3))
    model.account.settings.volume = 1
    #expect((slot.runCount, message.runCount) == (2, 3))
    model.account.alert = Alert()
    #expect((slot.runCount, message.runCount) == (3, 4))
    model.account.alert = nil
    #expect((slot.runCount, message.runCount) == (4, 5))
  }

  // swift-format-ignore
  /// Fields of every collection kind the article's table lists.
  struct Board: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _identified = StateField<IdentifiedArrayOf<Tile>>([Tile(id: 1), Tile(id: 2)])
    var identified: IdentifiedArrayOf<Tile> {
      get { registrar.read(_identified) } set { registrar.write(&_identified, newValue) }
      _modify { yield &self[tracking: \._identified] }
    }

    private var _array = StateField<[Tile]>([Tile(id: 1), Tile(id: 2)])
    var array: [Tile] {
      get { registrar.read(_array) } set { registrar.write(&_array, newValue) }
      _modify { yield &self[tracking: \._array] }
    }

    private var _contiguous = StateField<ContiguousArray<Tile>>([Tile(id: 1), Tile(id: 2)])
    var contiguous: ContiguousArray<Tile> {
      get { registrar.read(_contiguous) } set { registrar.write(&_contiguous, newValue) }
      _modify { yield &self[tracking: \._contiguous] }
    }

    private var _dictionary = StateField<[Int: Tile]>([1: Tile(id: 1), 2: Tile(id: 2)])
    var dictionary: [Int: Tile] {
      get { registrar.read(_dictionary) } set { registrar.write(&_dictionary, newValue) }
      _modify { yield &self[tracking: \._dictionary] }
    }

    private var _words = StateField<[String]>(["a"])
    var words: [String] {
      get { registrar.read(_words) } set { registrar.write(&_words, newValue) }
      _modify { yield &self[tracking: \._words] }
    }
  }

  // swift-format-ignore
  struct Tile: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int
    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
    init(id: Int) { self.id = id }
  }

  final class BoardModel: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var board = Board()
  }

  @Test("collections of state: element changes reach the element's readers only; structure reaches the slot's")
  func collectionTable() {
    let model = BoardModel()
    let slots = [
      Reaction { _ = model.board.identified.count },
      Reaction { _ = model.board.array.count },
      Reaction { _ = model.board.contiguous.count },
      Reaction { _ = model.board.dictionary.count },
    ]
    let elements = [
      Reaction { _ = model.board.identified[id: 1]?.count },
      Reaction { _ = model.board.array[0].count },
      Reaction { _ = model.board.contiguous[0].count },
      Reaction { _ = model.board.dictionary[1]?.count },
    ]
    let words = Reaction { _ = model.board.words }
    model.board.identified[id: 1]?.count += 1
    model.board.array[0].count += 1
    model.board.contiguous[0].count += 1
    model.board.dictionary[1]?.count += 1
    #expect(slots.map(\.runCount) == [1, 1, 1, 1])
    #expect(elements.map(\.runCount) == [2, 2, 2, 2])
    model.board.identified.append(Tile(id: 3))
    model.board.array.append(Tile(id: 3))
    model.board.contiguous.append(Tile(id: 3))
    model.board.dictionary[3] = Tile(id: 3)
    #expect(slots.map(\.runCount) == [2, 2, 2, 2])
    model.board.words.append("b")
    #expect(words.runCount == 2)
  }

  @Test("initializers: init accessors put fields back into the memberwise initializer")
  func initializers() {
    let point = Point(x: 3, y: 4)
    let size = Size(width: 2)
    #expect((point.x, point.y, size.width) == (3, 4, 2))
    let onTheAxis = Point(x: 3)  // y's default value is the parameter's default
    #expect((onTheAxis.x, onTheAxis.y) == (3, 0))
  }
}

// MARK: IdentityRules.md

@Suite("Article: Identity rules")
struct IdentityRulesArticle {
  // swift-format-ignore
  struct Todo: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int

    private var _title = StateField("")
    var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

    init(id: Int, title: String) {
      self.id = id
      _title = StateField(title)
    }
  }

  final class Editor: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var todos: IdentifiedArrayOf<Todo> = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]
    @Tracked var draft: Todo?
  }

  /// What each run of a reaction showed.
  final class Shown: @unchecked Sendable {
    var values: [String] = []
  }

  @Test("the slot notifies when identity changes, the element's readers when its fields change")
  func slots() {
    let editor = Editor()
    let list = Reaction("List") { _ = editor.todos.count }
    let title = Reaction("Title") { _ = editor.todos[id: 1]?.title }

    editor.todos[id: 1]?.title = "Oat milk"  // "Title" runs; "List" does not
    editor.todos.append(Todo(id: 3, title: "Tea"))  // "List" runs (and "Title", which read the slot)
    editor.todos[id: 3] = Todo(id: 3, title: "Tea")  // a new value under the same id: "List" runs
    editor.todos = IdentifiedArray(uniqueElements: editor.todos.elements)  // rebuilt: "List" and "Title" run

    #expect(list.runCount == 4)
    #expect(title.runCount == 5)
  }

  @Test("the slot, step by step: in place, appended, replaced under the same id, rebuilt from the same elements")
  func slotSteps() {
    let editor = Editor()
    let list = Reaction("List") { _ = editor.todos.count }
    let title = Reaction("Title") { _ = editor.todos[id: 1]?.title }
    editor.todos[id: 1]?.title = "Oat milk"
    #expect((list.runCount, title.runCount) == (1, 2))
    editor.todos.append(Todo(id: 3, title: "Tea"))
    #expect((list.runCount, title.runCount) == (2, 3))
    editor.todos[id: 3] = Todo(id: 3, title: "Tea")
    #expect((list.runCount, title.runCount) == (3, 4))
    let before = editor.todos
    editor.todos = IdentifiedArray(uniqueElements: editor.todos.elements)
    #expect((list.runCount, title.runCount) == (4, 5))
    #expect(editor.todos.map(\.observableStateID) == before.map(\.observableStateID))  // the same elements...
    #expect(!isIdentityEqual(editor.todos, before))  // ...but a new structure version: not identity-equal
    let copy = editor.todos
    editor.todos[id: 1]?.title = "Soy milk"  // in place: the structure version stays
    #expect(isIdentityEqual(editor.todos, copy))
    #expect((list.runCount, title.runCount) == (4, 6))
  }

  @Test("copies: a detached copy disturbs the live value's readers once, the copy assigned back notifies")
  func copies() {
    let editor = Editor()
    let shown = Shown()
    let title = Reaction("Title") { shown.values.append(editor.todos[id: 1]?.title ?? "") }

    var copy = editor.todos[id: 1]!
    copy.title = "Oat milk"  // a write to a detached copy: "Title" runs once, still shows "Milk"
    copy.title = "Soy milk"  // not again: once per field of a copy
    editor.todos[id: 1] = copy  // assigned back: "Title" runs and shows "Soy milk"

    #expect(shown.values == ["Milk", "Milk", "Soy milk"])
    #expect(title.runCount == 3)
  }

  @Test("drafts: edited in the state, saved later; the row's readers show the saved value")
  func drafts() {
    let editor = Editor()
    let shown = Shown()
    let title = Reaction("Title") { shown.values.append(editor.todos[id: 1]?.title ?? "") }
    let draftTitle = Reaction("Draft") { _ = editor.draft?.title }

    editor.draft = editor.todos[id: 1]  // start editing a copy
    editor.draft?.title = "Almond milk"  // "Draft" runs; "Title" runs once for this copy
    editor.draft?.title = "Rice milk"  // "Draft" runs
    editor.todos[id: 1] = editor.draft!  // saved: "Title" runs and shows "Rice milk"
    editor.draft = nil

    #expect(shown.values == ["Milk", "Milk", "Rice milk"])
    #expect(title.runCount == 3)
    #expect(draftTitle.runCount == 5)
  }

  @Test("undo: a snapshot restored re-runs the readers of what changed back")
  func undo() {
    let editor = Editor()
    let shown = Shown()
    let title = Reaction("Title") { shown.values.append(editor.todos[id: 1]?.title ?? "") }
    let list = Reaction("List") { _ = editor.todos.count }

    let snapshot = editor.todos
    editor.todos[id: 1]?.title = "Tea"
    editor.todos.append(Todo(id: 3, title: "Bread"))
    editor.todos = snapshot  // "Title" shows "Milk" again, "List" counts 2 again

    #expect(shown.values.last == "Milk")
    #expect(editor.todos.count == 2)
    #expect(list.runCount == 3)
    #expect(title.runCount == 4)
  }

  @Test("undo inside one transaction re-runs nothing")
  func undoInTransaction() {
    let editor = Editor()
    let title = Reaction("Title") { _ = editor.todos[id: 1]?.title }
    transaction {
      let snapshot = editor.todos
      editor.todos[id: 1]?.title = "Tea"
      editor.todos = snapshot
    }
    #expect(title.runCount == 1)
  }

  @Test("replace(with:) tells the readers of a value nobody owns; plain assignment does not")
  func replaceWith() {
    var todo = Todo(id: 7, title: "Milk")
    let title = Reaction("Title") { _ = todo.title }

    transaction { todo.replace(with: Todo(id: 7, title: "Eggs")) }  // "Title" runs
    transaction { todo = Todo(id: 7, title: "Tea") }  // nobody is told

    #expect(title.runCount == 2)
    _ = todo
  }
}

// MARK: ReactionsAndTransactions.md

@Suite("Article: Reactions and transactions")
struct ReactionsArticle {
  final class Profile: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var name = "Ada"
    @Tracked var followers = 0
    @Tracked var isOnline = false
  }

  @Test("a reaction re-runs once per transaction; set and set back re-runs nothing")
  func transactions() {
    let profile = Profile()
    let header = Reaction("Header") { print("\(profile.name): \(profile.followers)") }

    profile.followers += 1  // a write outside a transaction is its own transaction: one run
    transaction {  // several writes, one run, when the outermost transaction ends
      profile.name = "Ada Lovelace"
      transaction { profile.followers += 1 }
    }
    transaction {  // set and set back: nothing runs
      profile.followers += 1
      profile.followers -= 1
    }
    header.cancel()  // never runs again (deallocating it does the same)

    #expect(header.runCount == 3)
  }

  @Test("dependencies are what the last run read")
  func branches() {
    let profile = Profile()
    let status = Reaction("Status") {
      print(profile.isOnline ? "\(profile.name) is online" : "away")
    }
    profile.name = "Grace"  // not read by the last run: nothing runs
    profile.isOnline = true  // runs, and now reads name too
    profile.name = "Ada"  // runs

    #expect(status.runCount == 3)
  }

  @Test("a reaction created in another's body is owned by it; its reads are its own")
  func ownership() {
    let profile = Profile()
    var followers: Reaction?
    let screen = Reaction("Screen") {
      _ = profile.isOnline
      followers = Reaction("Followers") { _ = profile.followers }
    }
    profile.followers += 1  // re-runs "Followers" only
    profile.isOnline = true  // re-runs "Screen": it cancels the old "Followers" and makes a new one

    #expect(screen.runCount == 2)
    #expect(followers?.isCancelled == false)
    #expect(followers?.runCount == 1)
  }

  @Test("withTracking, withCancellableTracking, recordAccesses and withoutTracking")
  func tracking() {
    let profile = Profile()
    let name = withTracking {
      profile.name
    } onChange: {
      print("name will change")  // once, on the first change
    }
    profile.name = "Grace"
    profile.name = "Ada"

    let (_, observation) = withCancellableTracking {
      "\(profile.name) has \(profile.followers) followers"
    } onChange: {
      print("changed")
    }
    print(observation.accesses)  // [Profile.name, Profile.followers]
    observation.cancel()

    let (_, accesses) = recordAccesses { _ = profile.isOnline }
    print(accesses)  // [Profile.isOnline]

    let untracked = recordAccesses { withoutTracking { profile.followers } }
    print(untracked.accesses)  // []

    #expect(name == "Ada")
    #expect(observation.accesses.description == "[Profile.name, Profile.followers]")
    #expect(!observation.isActive)
    #expect(accesses.description == "[Profile.isOnline]")
    #expect(untracked.accesses.isEmpty)
  }
}
