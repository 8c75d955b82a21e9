import Observant
import ObservantTesting
import Testing

// A setter or `_modify` that writes its own storage and another field's too: the other field's
// readers would hear writes of this one.

// swift-format-ignore
private struct SetterWritesBoth: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int {
    get { registrar.read(_count) }
    set {
      registrar.write(&_count, newValue)
      registrar.write(&_total, newValue)
    }
  }
  private var _total = StateField(0)
  var total: Int { get { registrar.read(_total) } set { registrar.write(&_total, newValue) } }
  init() {}
}

// swift-format-ignore
private struct ModifyWritesNeighbour: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _tags = StateField<[String]>([])
  var tags: [String] {
    get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
    _modify {
      yield &self[tracking: \._tags]
      registrar.write(&_other, _other.value + 1)
    }
  }
  private var _other = StateField(0)
  var other: Int { get { registrar.read(_other) } set { registrar.write(&_other, newValue) } }
  init() {}
}

// swift-format-ignore
private struct TransformingSetter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue + 1) } }
  init() {}
}

@Suite("Tracking audit: accessors that also write another field")
struct AuditDoubleWriteTests {
  @Test("a setter that also writes another field's storage is reported, in either order of the fields")
  func setterWritesBoth() {
    let expected =
      "count: its setter also writes _total, the storage of total; it must write only its own: registrar.write(&_count, newValue)"
    #expect(
      TrackingAudit.problems(
        in: SetterWritesBoth(), fields: [.field(\.count, sample: 1), .field(\.total, sample: 2)]) == [expected])
    #expect(
      TrackingAudit.problems(
        in: SetterWritesBoth(), fields: [.field(\.total, sample: 2), .field(\.count, sample: 1)]) == [expected])
  }

  @Test("a _modify that also writes another field's storage is reported")
  func modifyWritesNeighbour() {
    #expect(
      TrackingAudit.problems(
        in: ModifyWritesNeighbour(),
        fields: [
          .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }), .field(\.other, sample: 3),
        ]) == [
          "tags: its _modify also changes _other, the storage of other; it must change only its own: _modify { yield &self[tracking: \\._tags] }"
        ])
  }

  @Test("a setter that stores another value than it was given: the fix names the setter too")
  func transformingSetter() {
    #expect(
      TrackingAudit.problems(in: TransformingSetter(), fields: [.field(\.count, sample: 1)]) == [
        "count: after writing it, reading it returns another value; its getter must return registrar.read(_count) and its setter store the new value as it is: registrar.write(&_count, newValue)"
      ])
  }
}
