import Observant
import ObservantCollections
import ObservantTestSupport
import Testing

// The declaration forms, compiled and exercised in their most compact layout: a scalar field in
// two lines, a collection field's `_modify` and a field's init accessor on the accessors' second
// line. (The README's and the articles' own declarations are checked verbatim by their tests; see
// `ArticleCodeTests`.) `// swift-format-ignore` keeps each declaration in this layout.

// A scalar field, two lines.
// swift-format-ignore
struct CompactCounter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
}

// swift-format-ignore
struct CompactRow: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }
  init(id: Int, title: String = "") {
    self.id = id
    _title = StateField(title)
  }
}

// A collection field, three lines (storage, get/set, _modify for in-place mutation).
// swift-format-ignore
struct CompactList: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _rows = StateField<IdentifiedArrayOf<CompactRow>>([])
  var rows: IdentifiedArrayOf<CompactRow> { get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
    _modify { yield &self[tracking: \._rows] } }
}

// Custom field values without a hand-written init: an init accessor puts the field in the
// memberwise initializer (one extra line per field).
// swift-format-ignore
struct CompactSettings: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _volume: StateField<Int>
  var volume: Int { get { registrar.read(_volume) } set { registrar.write(&_volume, newValue) }
    @storageRestrictions(initializes: _volume) init { _volume = StateField(newValue) } }
  private var _name: StateField<String>
  var name: String { get { registrar.read(_name) } set { registrar.write(&_name, newValue) }
    @storageRestrictions(initializes: _name) init { _name = StateField(newValue) } }
}

// An observable class.
final class CompactProfile: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var name = ""
  @Tracked var followers = 0
  @TrackedWeak var manager: CompactProfile?
}

final class DeclarationHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var counter = CompactCounter()
  @Tracked var list = CompactList()
  @Tracked var settings = CompactSettings(volume: 3, name: "Default")
  @Tracked var crossModule = CrossModuleCounter()
}

@Suite("Declaration forms")
struct DeclarationTests {
  @Test("a scalar field in two lines: reads are tracked, writes notify exactly its readers")
  func scalarField() {
    let holder = DeclarationHolder()
    let reaction = Reaction("count", ownedByParent: false) { _ = holder.counter.count }
    holder.counter.count += 1
    holder.counter.count = 1  // equal: silent
    #expect(reaction.runCount == 2)
    #expect(reaction.lastAccessLog.contains("CompactCounter.count"))
    reaction.cancel()
  }

  @Test("a collection field in three lines: an element changed in place notifies that element's readers only")
  func collectionField() {
    let holder = DeclarationHolder()
    holder.list.rows = [CompactRow(id: 1), CompactRow(id: 2)]
    let list = Reaction("list", ownedByParent: false) { _ = holder.list.rows.ids }
    let row = Reaction("row", ownedByParent: false) { _ = holder.list.rows[id: 2]?.title }
    holder.list.rows[id: 2]?.title = "Two"
    #expect(list.runCount == 1)
    #expect(row.runCount == 2)
    holder.list.rows.append(CompactRow(id: 3))
    #expect(list.runCount == 2)
    list.cancel()
    row.cancel()
  }

  @Test("an init accessor per field gives a memberwise initializer with custom values")
  func memberwiseInitializer() {
    let settings = CompactSettings(volume: 7, name: "Loud")
    #expect(settings.volume == 7)
    #expect(settings.name == "Loud")
    let holder = DeclarationHolder()
    let reaction = Reaction("volume", ownedByParent: false) { _ = holder.settings.volume }
    holder.settings.volume = 8
    #expect(reaction.runCount == 2)
    reaction.cancel()
  }

  @Test("a class with @Tracked and @TrackedWeak properties")
  func trackedClass() {
    let profile = CompactProfile()
    var manager: CompactProfile? = CompactProfile()
    let reaction = Reaction("profile", ownedByParent: false) {
      _ = profile.name
      _ = profile.manager
    }
    profile.manager = manager
    profile.name = "Ada"
    #expect(reaction.runCount == 3)
    manager = nil
    #expect(profile.manager == nil)
    reaction.cancel()
  }

  @Test("field keys are equal across modules: an accessor inlined into this module, a writer compiled in another")
  func crossModuleKeys() {
    let holder = DeclarationHolder()
    let reaction = Reaction("cross", ownedByParent: false) { _ = holder.crossModule.count }
    incrementInSupportModule(&holder.crossModule)
    #expect(reaction.runCount == 2)
    #expect(holder.crossModule.count == 1)
    transaction {
      var copy = holder.crossModule
      incrementInSupportModule(&copy)
      holder.crossModule = copy
    }
    #expect(reaction.runCount == 3)
    #expect(holder.crossModule.count == 2)
    reaction.cancel()
  }

  @Test("transaction { state.rows.append(x) } compiles and batches")
  func transactionWithDiscardableResult() {
    let holder = DeclarationHolder()
    let list = Reaction("list", ownedByParent: false) { _ = holder.list.rows.count }
    transaction { holder.list.rows.append(CompactRow(id: 9)) }
    #expect(list.runCount == 2)
    list.cancel()
  }
}
