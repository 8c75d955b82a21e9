import Observant
import ObservantTesting
import Testing

@Suite("Tracking audit")
struct TrackingAuditTests {
  @Test("correctly wired accessors have no problems")
  func correctAccessors() {
    #expect(
      TrackingAudit.problems(
        in: Row(id: 1),
        fields: [
          .field(\.count, sample: 1),
          .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
        ],
        untracked: ["id"]) == [])
  }

  @Test("nested child state, an optional child and collections of state have no problems")
  func nestedState() {
    #expect(
      TrackingAudit.problems(
        in: Parent(),
        fields: [
          .field(\.title, sample: "x"),
          .child(\.child, sample: Child(), inPlace: { $0.child.count += 1 }),
          .child(\.optional, sample: Child(), inPlace: { $0.optional?.count += 1 }),
          .collection(\.rows, sample: [Row(id: 1)], inPlace: { $0.rows[id: 1]?.count += 1 }),
          .collection(\.note, sample: "draft", inPlace: { $0.note?.append("!") }),
          .collection(\.scores, sample: ["a": 1], inPlace: { $0.scores["b"] = 2 }),
        ]) == [])
    #expect(TrackingAudit.problems(in: Child(), fields: [.field(\.count, sample: 1)]) == [])
  }

  @Test("an insertion through _modify notifies the collection's readers")
  func insertionInPlace() {
    #expect(
      TrackingAudit.problems(
        in: Parent(),
        fields: [
          .field(\.title, sample: "x"),
          .child(\.child, sample: Child(), inPlace: { $0.child = Child() }),
          .child(\.optional, sample: Child(), inPlace: { $0.optional = nil }),
          .collection(\.rows, sample: [Row(id: 1)], inPlace: { $0.rows.append(Row(id: 2)) }),
          .collection(\.note, sample: "draft", inPlace: { $0.note = nil }),
          .collection(\.scores, sample: ["a": 1], inPlace: { $0.scores["a"] = nil }),
        ]) == [])
  }

  @Test("a getter that records nothing is reported")
  func silentGetter() {
    #expect(
      TrackingAudit.problems(in: SilentGetter(), fields: [.field(\.count, sample: 1)]) == [
        "count: reading it records nothing, so its readers never hear of changes; its getter must return registrar.read(_count)"
      ])
  }

  @Test("a setter that does not notify is reported")
  func silentSetter() {
    #expect(
      TrackingAudit.problems(in: SilentSetter(), fields: [.field(\.count, sample: 1)]) == [
        "count: writing it does not notify its readers; its setter must call registrar.write(&_count, newValue)"
      ])
  }

  @Test("a getter that reads another field's storage is reported")
  func getterReadsOtherStorage() {
    #expect(
      TrackingAudit.problems(
        in: GetterReadsOtherStorage(), fields: [.field(\.count, sample: 1), .field(\.total, sample: 2)]) == [
          "count: its getter reads _total, the storage of total; it must read its own: registrar.read(_count)"
        ])
  }

  @Test("a setter that writes another field's storage is reported")
  func setterWritesOtherStorage() {
    #expect(
      TrackingAudit.problems(
        in: SetterWritesOtherStorage(), fields: [.field(\.count, sample: 1), .field(\.total, sample: 2)]) == [
          "count: its setter writes _total, the storage of total; it must write its own: registrar.write(&_count, newValue)"
        ])
  }

  @Test("a _modify that yields another field's storage is reported")
  func modifyYieldsOtherStorage() {
    #expect(
      TrackingAudit.problems(
        in: ModifyYieldsOtherStorage(),
        fields: [
          .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
          .collection(\.labels, sample: ["x"], inPlace: { $0.labels.append("y") }),
        ]) == [
          "tags: its _modify yields _labels, the storage of labels; it must yield its own: _modify { yield &self[tracking: \\._tags] }"
        ])
  }

  @Test("a _modify that bypasses the registrar is reported")
  func modifyBypassesRegistrar() {
    #expect(
      TrackingAudit.problems(
        in: ModifyBypassesRegistrar(), fields: [.collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") })]
      ) == [
        "tags: changing it in place does not notify its readers; it must be _modify { yield &self[tracking: \\._tags] }"
      ])
  }

  @Test("a collection without _modify is reported")
  func collectionWithoutModify() {
    #expect(
      TrackingAudit.problems(
        in: CollectionWithoutModify(), fields: [.collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") })]
      ) == [
        "tags: it has no _modify accessor, so every in-place change copies the whole collection; add _modify { yield &self[tracking: \\._tags] }"
      ])
  }

  @Test("child state without _modify is reported")
  func childWithoutModify() {
    #expect(
      TrackingAudit.problems(
        in: ChildWithoutModify(), fields: [.child(\.child, sample: Child(), inPlace: { $0.child.count += 1 })]) == [
          "child: it has no _modify accessor, so every in-place change copies the whole child state; add _modify { yield &self[tracking: \\._child] }"
        ])
  }

  @Test("a stored property that is not tracked is reported unless listed as untracked")
  func untrackedProperty() {
    #expect(
      TrackingAudit.problems(in: UntrackedProperty(), fields: [.field(\.count, sample: 1)]) == [
        "note: a stored property that is not tracked, so its changes reach no observer; keep it in a StateField behind registrar accessors, or list it in untracked: if that is deliberate"
      ])
    #expect(
      TrackingAudit.problems(in: UntrackedProperty(), fields: [.field(\.count, sample: 1)], untracked: ["note"]) == [])
  }

  @Test("storage of a field the audit does not list is reported")
  func unlistedField() {
    #expect(
      TrackingAudit.problems(in: Row(id: 1), fields: [.field(\.count, sample: 1)], untracked: ["id"]) == [
        "_tags: the storage of a field the audit does not list; add .field(\\.tags, sample: …) to fields:"
      ])
  }

  @Test("a collection or child audited as a plain field is sent to the in-place check")
  func inPlaceCheckNotSkipped() {
    #expect(
      TrackingAudit.problems(
        in: ChildWithoutModify(), fields: [.field(\.child, sample: Child())]) == [
          "child: holds child state; audit it with .child(\\.child, sample: …, inPlace: { $0.child… }) so that its _modify accessor is checked"
        ])
    #expect(
      TrackingAudit.problems(
        in: Row(id: 1), fields: [.field(\.count, sample: 1), .field(\.tags, sample: ["a"])], untracked: ["id"]) == [
          "tags: holds a collection; audit it with .collection(\\.tags, sample: …, inPlace: { $0.tags… }) so that its _modify accessor is checked"
        ])
  }

  @Test("a sample equal to the initial value is reported")
  func sampleEqualsInitialValue() {
    #expect(
      TrackingAudit.problems(in: Row(id: 1), fields: [.field(\.count, sample: 0)], untracked: ["id", "tags"]) == [
        "count: the sample equals the initial value, so writing it changes nothing; choose a sample that differs"
      ])
  }

  @Test("the audit leaves no observers behind")
  func noObserversLeft() {
    let row = Row(id: 1)
    _ = TrackingAudit.problems(
      in: row,
      fields: [.field(\.count, sample: 1), .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") })],
      untracked: ["id"])
    #expect(row.registrar.observerEntryCount == 0)
  }
}
