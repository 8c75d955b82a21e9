import Observant

// A state type declared in another module than the tests that read it: field keys must be equal
// across modules (an inlined accessor may see its own copy of the `#function` string literal).

/// Declared with inlinable accessors, so that reads are inlined into the reading module.
public struct CrossModuleCounter: ObservableState, Sendable {
  public var registrar = StateRegistrar<Self>()
  @usableFromInline internal var _count = StateField(0)
  public var count: Int {
    @inlinable get { registrar.read(_count) }
    @inlinable set { registrar.write(&_count, newValue) }
  }
  public init() {}
}

/// A writer compiled in this module only (not inlinable).
@inline(never)
public func incrementInSupportModule(_ counter: inout CrossModuleCounter) {
  counter.count += 1
}
