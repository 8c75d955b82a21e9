// Programming errors an IdentifiedArray refuses to absorb. Each message names the ids involved,
// and is kept in release builds too (`fatalError`, not `precondition`), so a crash report says
// which id was at fault. The message builders are separate so tests can check them directly.

extension IdentifiedArray {
  /// The message for a duplicate id where ids must be unique.
  internal static func _duplicateIDMessage(_ id: ID, in operation: StaticString) -> String {
    "Duplicate id \(String(reflecting: id)) in \(operation)"
  }

  /// The message for an element whose id changed while it was written through a subscript.
  internal static func _idChangeMessage(from oldID: ID, to newID: ID, in operation: String) -> String {
    "\(operation) cannot change an element's id from \(String(reflecting: oldID)) to \(String(reflecting: newID))"
  }

  /// The message for a merge closure that returned an element with a different id.
  internal static func _mergedIDMessage(from oldID: ID, to newID: ID) -> String {
    "IdentifiedArray(_:id:uniquingIDsWith:) merged elements with id \(String(reflecting: oldID)) into an element with id \(String(reflecting: newID))"
  }

  @usableFromInline @inline(never)
  internal static func _duplicateIDFailure(_ id: ID, in operation: StaticString) -> Never {
    fatalError(_duplicateIDMessage(id, in: operation))
  }

  /// Stops the program because writing through `subscript(position:)` changed the element's id.
  @usableFromInline @inline(never)
  internal static func _positionalIDChangeFailure(at position: Int, from oldID: ID, to newID: ID) -> Never {
    fatalError(_idChangeMessage(from: oldID, to: newID, in: "IdentifiedArray[\(position)]"))
  }

  /// Stops the program because an element written through `subscript(id:)` has another id.
  @usableFromInline @inline(never)
  internal static func _keyedIDChangeFailure(from oldID: ID, to newID: ID) -> Never {
    fatalError(_idChangeMessage(from: oldID, to: newID, in: "IdentifiedArray[id: \(String(reflecting: oldID))]"))
  }

  @usableFromInline @inline(never)
  internal static func _mergedIDFailure(from oldID: ID, to newID: ID) -> Never {
    fatalError(_mergedIDMessage(from: oldID, to: newID))
  }

  /// The message for a position outside `0..<count` given to `subscript(position:)`.
  @usableFromInline
  internal static func _positionMessage(_ position: Int, count: Int) -> String {
    "IdentifiedArray index \(position) is out of bounds 0..<\(count)"
  }

  /// Stops the program, with a message naming the index and the bounds, unless `position` is a
  /// valid index (`subscript(position:)`'s precondition). One unsigned compare when it holds.
  @inlinable @inline(__always)
  internal func _checkPosition(_ position: Int) {
    _checkPrecondition(
      UInt(bitPattern: position) < UInt(bitPattern: _elements.count),
      Self._positionMessage(position, count: _elements.count))
  }
}
