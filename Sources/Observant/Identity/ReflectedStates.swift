/// Appends the observable states `value` holds, found by reflection (`Mirror`), in the order
/// reflection meets them: `value` itself if it is one, otherwise the states among its children, at
/// any depth (objects are not entered). For values whose type is known only as "may hold state" (an enum with
/// state payloads, say): the slow paths that compare or reconcile such values, never a hot path.
internal func collectStates(in value: Any, into states: inout [any ObservableState]) {
  // A walk with a stack of its own, in the order of the fields, however deep the value is (a
  // recursive enum of plain values, say): a depth limit would leave the deepest states out, and
  // their readers would miss changes. Objects are not entered: their fields are theirs, shared by
  // every copy of the value (and a graph of objects may have cycles).
  var pending: [Any] = [value]
  while let next = pending.popLast() {
    if let state = next as? any ObservableState {
      states.append(state)
    } else if !(type(of: next) is AnyClass) {
      pending.append(contentsOf: Mirror(reflecting: next).children.reversed().map(\.value))
    }
  }
}
