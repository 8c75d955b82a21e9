import Observant
import Observation

/// One tracked field, declared with Observant.
final class ObservantCounter: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var count = 0
}

/// One tracked field, declared with Apple's Observation.
@Observable final class AppleCounter {
  var count = 0
}

/// The floor: a plain stored property.
final class PlainCounter {
  var count = 0
}

// swift-format-ignore
/// One tracked field of a value type, declared with Observant.
struct ObservantCounterState: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
}
