/// Mutates live state that is not a class's `@Tracked` property, in place, as one anchored
/// in-place mutation: a store's root state while its reducer runs.
///
/// Synchronous observers notified meanwhile run when it ends (never inside the exclusive access to
/// `value`); a value replaced wholesale (`state = saved`) has its readers reconciled; writes made
/// through its accessors count as live for "set and set back". The caller runs this inside a
/// transaction when it wants one re-run per batch.
///
/// Inlinable, so that a store's reducer call specializes it for the store's state type.
@inlinable
package func _mutateLiveState<Value, Result>(_ value: inout Value, _ body: (inout Value) throws -> Result) rethrows
  -> Result
{
  _beginInPlaceMutation()
  defer { _endInPlaceMutation() }
  let strategy = _modifyStrategy(Value.self)
  let effective: _ModifyStrategy =
    switch strategy {
    case .trivial, .identityComparable, .announce: .announce
    default: strategy
    }
  let modification = withUnsafeMutablePointer(to: &value) {
    _InPlaceModification(effective, at: $0, anchored: true, place: _WritePlace.root($0))
  }
  defer { _ = modification.finish(at: &value) }
  return try body(&value)
}

/// The `ObservableStateID` of `value` if its type is `ObservableState`, otherwise `nil`: for
/// generic code (a store comparing states it knows nothing about). The type test is answered from
/// a per-type cache, not a runtime conformance lookup each time.
package func observableStateID<Value>(of value: Value) -> ObservableStateID? {
  guard _TypeTraits.flags(of: Value.self) & _TypeTraits.observableState != 0,
    let type = Value.self as? any ObservableState.Type
  else { return nil }
  return _openObservableStateID(type, value)
}

private func _openObservableStateID<State: ObservableState, Value>(_: State.Type, _ value: Value) -> ObservableStateID {
  (value as! State).observableStateID
}
