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

/// One tracked field of a value type, declared with Observant.
struct ObservantCounterState: ObservableState {
  let stateRegistrar = StateRegistrar()
  private var _count = 0
  var count: Int {
    get { read(\.count, _count) }
    set { write(\.count, &_count, newValue) }
  }
}
