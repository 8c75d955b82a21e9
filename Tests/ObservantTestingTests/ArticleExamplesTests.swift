import Observant
import ObservantTesting
import Testing

// The audit example of the Observant catalog's "Declaring observable types" article, verbatim
// (`ArticleCodeTests` in ObservantTests checks that it is here).

@Suite("Article: Declaring observable types (the audit)")
struct DeclaringArticleAudit {
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
  /// The same type with the mistakes the article lists: a setter copied from the neighbouring
  /// field, and a collection without `_modify`.
  struct MiswiredSettings: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _volume = StateField(5)
    var volume: Int { get { registrar.read(_volume) } set { registrar.write(&_balance, newValue) } }

    private var _balance = StateField(0)
    var balance: Int { get { registrar.read(_balance) } set { registrar.write(&_balance, newValue) } }

    private var _tags = StateField<[String]>([])
    var tags: [String] { get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) } }
  }

  @Test func settingsAreTracked() {
    #expect(
      TrackingAudit.problems(
        in: Settings(),
        fields: [
          .field(\.volume, sample: 7),
          .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
        ]) == [])
  }

  @Test("the audit names a setter wired to another field's storage and a collection without _modify")
  func miswired() {
    let problems = TrackingAudit.problems(
      in: MiswiredSettings(),
      fields: [
        .field(\.volume, sample: 7),
        .field(\.balance, sample: 1),
        .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
      ])
    #expect(problems.count == 2)
    #expect(problems.contains { $0.hasPrefix("volume:") })
    #expect(problems.contains { $0.hasPrefix("tags:") && $0.contains("_modify") })
  }
}

// The examples of the ObservantTesting catalog's root page, verbatim.

@Suite("Article: ObservantTesting")
struct TestingArticle {
  // swift-format-ignore
  struct Row: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int

    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }

    private var _tags = StateField<[String]>([])
    var tags: [String] {
      get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
      _modify { yield &self[tracking: \._tags] }
    }

    init(id: Int) { self.id = id }
  }

  // swift-format-ignore
  struct Detail: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  }

  // swift-format-ignore
  struct Alert: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _message = StateField("")
    var message: String { get { registrar.read(_message) } set { registrar.write(&_message, newValue) } }
  }

  // swift-format-ignore
  struct Screen: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _detail = StateField(Detail())
    var detail: Detail {
      get { registrar.read(_detail) } set { registrar.write(&_detail, newValue) }
      _modify { yield &self[tracking: \._detail] }
    }

    private var _alert: StateField<Alert?> = nil
    var alert: Alert? {
      get { registrar.read(_alert) } set { registrar.write(&_alert, newValue) }
      _modify { yield &self[tracking: \._alert] }
    }

    private var _rows = StateField<IdentifiedArrayOf<Row>>([])
    var rows: IdentifiedArrayOf<Row> {
      get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
      _modify { yield &self[tracking: \._rows] }
    }
  }

  // swift-format-ignore
  /// A setter copied from the neighbouring field, as the page's example message describes.
  struct Totals: ObservableState {
    var registrar = StateRegistrar<Self>()
    private var _count = StateField(0)
    var count: Int { get { registrar.read(_count) } set { registrar.write(&_total, newValue) } }
    private var _total = StateField(0)
    var total: Int { get { registrar.read(_total) } set { registrar.write(&_total, newValue) } }
  }

  @Test func rowIsTracked() {
    #expect(
      TrackingAudit.problems(
        in: Row(id: 1),
        fields: [
          .field(\.count, sample: 1),
          .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
        ], untracked: ["id"]) == [])
  }

  @Test func screenIsTracked() {
    #expect(
      TrackingAudit.problems(
        in: Screen(),
        fields: [
          .child(\.detail, sample: Detail(), inPlace: { $0.detail.count += 1 }),
          .child(\.alert, sample: Alert(), inPlace: { $0.alert?.message = "Saved" }),
          .collection(\.rows, sample: [Row(id: 1)], inPlace: { $0.rows[id: 1]?.count += 1 }),
        ]) == [])
  }

  @Test("the example message is what the audit says")
  func exampleMessage() {
    let problems = TrackingAudit.problems(
      in: Totals(), fields: [.field(\.count, sample: 1), .field(\.total, sample: 2)])
    #expect(
      problems.contains(
        "count: its setter writes _total, the storage of total; it must write its own: registrar.write(&_count, newValue)"
      ))
  }
}
