import Observant
import Testing

// A field holding an optional reference to a plain class (neither `Trackable` nor `Equatable`)
// compares with `===`, as the class itself does: `nil` over `nil`, or the same instance again,
// changes nothing, and a reference set and set back within a transaction re-runs nobody.

private final class ORToken: @unchecked Sendable {
  let value: Int
  init(_ value: Int) { self.value = value }
}

/// Equatable by value: compared with `==`, optional or not.
private final class OREquatableToken: Equatable, @unchecked Sendable {
  let value: Int
  init(_ value: Int) { self.value = value }
  static func == (lhs: OREquatableToken, rhs: OREquatableToken) -> Bool { lhs.value == rhs.value }
}

private final class ORHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var token: ORToken?
  @Tracked var equatable: OREquatableToken?
}

private struct ORTokenState: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _token = StateField<ORToken?>(nil)
  var token: ORToken? {
    get { registrar.read(_token) }
    set { registrar.write(&_token, newValue) }
  }
  init() {}
}

private final class ORStateHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = ORTokenState()
}

@Suite("Optional class references compare with ===")
struct OptionalReferenceTests {
  @Test("a @Tracked optional reference: nil over nil and the same instance re-run nothing; another instance does")
  func trackedOptional() {
    let holder = ORHolder()
    let first = ORToken(1)
    let reader = Reaction { _ = holder.token }
    defer { reader.cancel() }
    holder.token = nil
    #expect(reader.runCount == 1)
    holder.token = first
    #expect(reader.runCount == 2)
    holder.token = first
    #expect(reader.runCount == 2)
    holder.token = ORToken(1)  // another instance
    #expect(reader.runCount == 3)
    holder.token = nil
    holder.token = nil
    #expect(reader.runCount == 4)
  }

  @Test("set and set back within a transaction re-runs nobody; the object is released afterwards")
  func setBack() {
    let holder = ORHolder()
    let reader = Reaction { _ = holder.token }
    defer { reader.cancel() }
    weak var released: ORToken?
    transaction {
      let token = ORToken(2)
      released = token
      holder.token = token
      holder.token = nil
    }
    #expect(reader.runCount == 1)
    #expect(released == nil)
  }

  @Test("an optional reference in a StateField compares the same way")
  func stateField() {
    let holder = ORStateHolder()
    let token = ORToken(3)
    let reader = Reaction { _ = holder.state.token }
    defer { reader.cancel() }
    holder.state.token = nil
    #expect(reader.runCount == 1)
    holder.state.token = token
    holder.state.token = token
    #expect(reader.runCount == 2)
    transaction {
      holder.state.token = ORToken(4)
      holder.state.token = token
    }
    #expect(reader.runCount == 2)
  }

  @Test("an optional Equatable class compares with ==")
  func equatableOptional() {
    let holder = ORHolder()
    let reader = Reaction { _ = holder.equatable }
    defer { reader.cancel() }
    holder.equatable = OREquatableToken(1)
    #expect(reader.runCount == 2)
    holder.equatable = OREquatableToken(1)  // equal, another instance
    #expect(reader.runCount == 2)
    holder.equatable = OREquatableToken(2)
    #expect(reader.runCount == 3)
  }
}
