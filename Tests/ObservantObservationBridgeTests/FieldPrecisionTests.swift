import Observant
import ObservantObservationBridge
import Observation
import Testing

/// Apple's `withObservationTracking` over Observant fields, through the bridge: it fires for the
/// fields read, by Observant's rules.
@Suite("Observation bridge: fields")
struct FieldPrecisionTests {
  @Test("only the fields read fire")
  func onlyFieldsRead() {
    ObservationBridge.withBridgeForTesting {
      let profile = Profile()
      let firings = Firings()
      let name = withObservationTracking { profile.name } onChange: { firings.onChange() }
      #expect(name == "Ada")
      profile.count += 1
      profile.state.title = "Other"
      #expect(firings.value == 0)
      profile.name = "Grace"
      #expect(firings.value == 1)
      profile.name = "Ada"
      #expect(firings.value == 1)  // one-shot
    }
  }
}
