extension TrackingRegistrar {
  // The last step of a write racing with a read (see `_readersMayHaveMissed(since:)`): the graph
  // detects the race, the notification goes through this layer like any other.

  /// Delivers, after the fact, a write of `key` that overwrote the state `seen` (`Stamp.none` for
  /// a class field) to the readers that still depend on that state.
  @usableFromInline @inline(never)
  internal func _deliverLate(_ key: FieldKey, overwriting seen: UInt64) {
    guard let table = existingTable else { return }
    var late: [Dependency] = []
    table.dependencies(of: key, overwriting: seen).forEach { late.append($0) }
    Notifications.deliverReplacement(late)
  }

  /// `_deliverLate(_:overwriting:)` for a value-type field named `name`.
  @usableFromInline @inline(never)
  internal func _deliverLate(field name: StaticString, overwriting seen: UInt64) {
    _deliverLate(FieldNames.key(for: name), overwriting: seen)
  }
}
