import Observant
import Testing

/// A panel's model: class fields (named `Gauge.count`), a value-type row (`Row.count`), and a
/// field whose type does not print.
private final class Gauge: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var count = 0
  @Tracked var title = "A"
  @Tracked var pair = Pair()
  @Tracked var row = Row(id: 3)
}

@Suite("Why did this re-run")
struct WhyTests {
  @Test("a reaction recording causes reports the field write that re-ran it, with old and new values")
  func fieldWrite() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = panel.count }
    #expect(label.lastRunCauses.isEmpty)  // the first run has no cause
    panel.count = 1
    #expect(label.lastRunCauses.map(\.description) == ["Gauge.count 0 -> 1"])
    #expect(label.lastRunCauses == [RunCause(field: "Gauge.count", oldValue: "0", newValue: "1")])
  }

  @Test("several writes of one field in a transaction are one cause, from the first old value to the last new")
  func mergedWrites() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = panel.count }
    transaction {
      panel.count = 1
      panel.count = 2
    }
    #expect(label.lastRunCauses.map(\.description) == ["Gauge.count 0 -> 2"])
  }

  @Test("writes of two fields are two causes, in the order of the first writes")
  func twoFields() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = (panel.count, panel.title) }
    transaction {
      panel.title = "B"
      panel.count = 1
    }
    #expect(label.lastRunCauses.map(\.description) == ["Gauge.title A -> B", "Gauge.count 0 -> 1"])
  }

  @Test("a field of value-type state is named by its type, as the access log names it: Row.count")
  func valueTypeField() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = panel.row.count }
    panel.row.count += 1
    #expect(label.lastRunCauses.map(\.description) == ["Row.count 0 -> 1"])
    #expect(label.lastAccessLog.contains("Row.count"))
  }

  @Test("a field whose values do not print is named without them")
  func unprintableValues() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = panel.pair }
    panel.pair = Pair(left: 1, right: 2)
    #expect(label.lastRunCauses.map(\.description) == ["Gauge.pair"])
  }

  @Test("the causes are those of the latest run only")
  func latestRunOnly() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = (panel.count, panel.title) }
    panel.count = 1
    panel.title = "B"
    #expect(label.lastRunCauses.map(\.description) == ["Gauge.title A -> B"])
  }

  @Test("a write set back within its transaction re-runs nothing and is no cause of a later run")
  func setBackIsNoCause() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = (panel.count, panel.title) }
    transaction {
      panel.count = 5
      panel.count = 0
    }
    #expect(label.runCount == 1)
    panel.title = "B"
    #expect(label.lastRunCauses.map(\.description) == ["Gauge.title A -> B"])
  }

  @Test("a reaction re-run by a derived value names it, with its old and new values")
  func derivedCause() {
    let panel = Gauge()
    let doubled = Derived("doubled") { panel.count * 2 }
    let label = Reaction("Label", recordingCauses: true) { _ = doubled.value }
    panel.count = 1
    #expect(label.runCount == 2)
    #expect(label.lastRunCauses.map(\.description) == ["Derived.doubled 0 -> 2"])
  }

  @Test("an invalidation is reported as such")
  func invalidation() {
    let panel = Gauge()
    let label = Reaction("Label", recordingCauses: true) { _ = panel.count }
    label.invalidate()
    #expect(label.lastRunCauses == [.invalidation])
    #expect(label.lastRunCauses.map(\.description) == ["invalidated"])
  }

  @Test("a reaction that does not record causes reports none")
  func offByDefault() {
    let panel = Gauge()
    let label = Reaction("Label") { _ = panel.count }
    panel.count = 1
    #expect(!label.isRecordingCauses)
    #expect(label.lastRunCauses.isEmpty)
  }

  @Test("recording can be turned on and off on a live reaction")
  func toggling() {
    let panel = Gauge()
    let label = Reaction("Label") { _ = panel.count }
    label.isRecordingCauses = true
    panel.count = 1
    #expect(label.lastRunCauses.map(\.description) == ["Gauge.count 0 -> 1"])
    label.isRecordingCauses = false
    panel.count = 2
    #expect(label.lastRunCauses.isEmpty)
  }

  @Test("only the reactions that record causes report them")
  func perReaction() {
    let panel = Gauge()
    let recording = Reaction("Recording", recordingCauses: true) { _ = panel.count }
    let quiet = Reaction("Quiet") { _ = panel.count }
    panel.count = 1
    #expect(recording.lastRunCauses.map(\.description) == ["Gauge.count 0 -> 1"])
    #expect(quiet.lastRunCauses.isEmpty)
  }
}
