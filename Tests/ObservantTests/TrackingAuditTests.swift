import Observant
import Testing

/// Accessors with the mistakes `TrackingAudit` exists to catch.
private struct Miswired: ObservableState {
  let stateRegistrar = StateRegistrar()

  private var _good = 0
  var good: Int {
    get { read(\.good, _good) }
    set { write(\.good, &_good, newValue) }
  }

  private var _silentGetter = 0
  var silentGetter: Int {
    get { _silentGetter }  // forgot read
    set { write(\.silentGetter, &_silentGetter, newValue) }
  }

  private var _silentSetter = 0
  var silentSetter: Int {
    get { read(\.silentSetter, _silentSetter) }
    set { _silentSetter = newValue }  // forgot write
  }

  private var _copyPasted = 0
  var copyPasted: Int {
    get { read(\.copyPasted, _copyPasted) }
    set { write(\.good, &_copyPasted, newValue) }  // copied from `good`
  }

  var plain = 0  // never made tracked
}

@Suite("Tracking audit")
struct TrackingAuditTests {
  @Test("correct accessors have no problems")
  func correctAccessors() {
    #expect(
      TrackingAudit.problems(
        in: Parent(),
        fields: [
          .field(\.title, sample: "x"), .field(\.score, sample: 1), .field(\.numbers, sample: [1]),
          .field(\.plainRows, sample: [PlainRow(id: 1)]),
        ],
        untracked: ["_child", "_sibling", "_optional", "_rows", "_opaque"]) == [])
  }

  @Test("a getter that does not record, a setter that does not notify, a copied key path and an untracked property are reported")
  func miswiredAccessors() {
    let problems = TrackingAudit.problems(
      in: Miswired(),
      fields: [
        .field(\.good, sample: 1), .field(\.silentGetter, sample: 1), .field(\.silentSetter, sample: 1),
        .field(\.copyPasted, sample: 1),
      ])
    #expect(
      problems == [
        "silentGetter: reading it records nothing; its getter does not call read(_:_:)",
        "silentSetter: writing it does not notify its readers; its setter does not call write(_:_:_:) with its own key path",
        "copyPasted: writing it does not notify its readers; its setter does not call write(_:_:_:) with its own key path",
        "copyPasted: writing it notifies readers of good; its setter passes good's key path",
        "plain: a stored property that is not tracked; reads and writes of it are invisible to observers (make it a computed property over private storage with read/write, or pass it in untracked:)",
      ])
  }
}
