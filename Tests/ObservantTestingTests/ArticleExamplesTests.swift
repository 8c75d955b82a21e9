import Observant
import ObservantTesting
import Testing

// The audit example of the Observant catalog's "Declaring observable types" article, verbatim
// (`ArticleCodeTests` in ObservantTests checks that it is here).

@Suite("Article: Declaring observable types (the audit)")
struct DeclaringArticleAudit {
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
    #expect(TrackingAudit.problems(in: Settings(), fields: [
      .field(\.volume, sample: 7),
      .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
    ]) == [])
  }

  @Test("the audit names a setter wired to another field's storage and a collection without _modify")
  func miswired() {
    let problems = TrackingAudit.problems(in: MiswiredSettings(), fields: [
      .field(\.volume, sample: 7),
      .field(\.balance, sample: 1),
      .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
    ])
    #expect(problems.count == 2)
    #expect(problems.contains { $0.hasPrefix("volume:") })
    #expect(problems.contains { $0.hasPrefix("tags:") && $0.contains("_modify") })
  }
}
