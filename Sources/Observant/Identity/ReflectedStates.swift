/// Appends the observable states `value` holds, found by reflection (`Mirror`), in the order
/// reflection meets them: `value` itself if it is one, otherwise the states among its children,
/// down to a depth of 16. For values whose type is known only as "may hold state" (an enum with
/// state payloads, say): the slow paths that compare or reconcile such values, never a hot path.
internal func collectStates(in value: Any, into states: inout [any ObservableState], depth: Int = 0) {
  guard depth < 16 else { return }
  if let state = value as? any ObservableState {
    states.append(state)
    return
  }
  for child in Mirror(reflecting: value).children {
    collectStates(in: child.value, into: &states, depth: depth + 1)
  }
}
