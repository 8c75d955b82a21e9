import Synchronization

/// One edge of the dependency graph: an observer read a field of one registrar.
///
/// A dependency is linked into two places: the observer's list (in the order the observer first
/// read its fields), which the observer owns, and the field's list in the registrar's observer
/// table, which the table's lock guards. A reaction whose re-run reads the same fields keeps its
/// dependencies as they are: nothing is allocated or relinked, only the stamps it read are updated.
internal final class Dependency: @unchecked Sendable {
  // Stored properties in this order so that the 4-byte ones fill the gap behind the name's tag
  // byte: 104 bytes, one 112-byte heap block (an edge is what every observed read keeps).

  /// Held so the table outlives the dependency and its address is not reused meanwhile.
  let table: ObserverTable
  let key: FieldKey
  let name: FieldName
  /// The observer's run that last read the field (dependencies a re-run does not read are dropped).
  var generation: UInt32
  /// The table's slot of the field, while linked; -1 when not linked.
  var slot: Int32 = -1
  /// Where the dependency is in its recorder's list (owner-confined).
  var position: Int32 = 0
  /// The observer this edge belongs to; set before the edge is linked. Strong: an installed
  /// observer is kept alive by its edges (and keeps them in turn) until it unlinks them, which is
  /// how a one-shot scope nobody holds stays installed until it fires.
  var observer: Observer?
  /// The stamp of the field as the observer read it; `Stamp.none` for class fields. A write notifies
  /// the dependencies that read the state it overwrites, so writes to other copies of a value pass
  /// by readers who never saw them.
  let seen: Atomic<UInt64>
  /// A second stamp with the same content as `seen`, or 0: when the storage the observer read was
  /// replaced by an equal copy carrying another stamp (an undo snapshot whose field equals the
  /// current one, say), the observer need not run, and hears writes from either state.
  let alias = Atomic<UInt64>(0)
  /// The guard the field was read under in the latest run; `nil` if it was read unguarded (or
  /// under two different guards) at least once.
  var guardedBy: TrackingGuard?

  // The field's list, guarded by the table's lock: unretained (the observers own their
  // dependencies), kept as addresses so that walking and relinking the list touches no reference
  // count (loading an `unowned(unsafe)` reference into a local retains it). The accessors below
  // test and convert without closures (`Optional.map`): debug builds, which the sanitizer and
  // internal-check runs use, call a closure per link otherwise.
  private(set) var previousAddress: UnsafeMutableRawPointer?
  private(set) var nextAddress: UnsafeMutableRawPointer?

  var previous: Dependency? {
    get { previousReference?.takeUnretainedValue() }
    set { previousAddress = Dependency.address(of: newValue) }
  }

  var next: Dependency? {
    get { nextReference?.takeUnretainedValue() }
    set { nextAddress = Dependency.address(of: newValue) }
  }

  /// The previous dependency of the field's list, unretained.
  var previousReference: Unmanaged<Dependency>? {
    get {
      guard let previousAddress else { return nil }
      return Unmanaged<Dependency>.fromOpaque(previousAddress)
    }
    set { previousAddress = newValue?.toOpaque() }
  }

  /// The next dependency of the field's list, unretained.
  var nextReference: Unmanaged<Dependency>? {
    get {
      guard let nextAddress else { return nil }
      return Unmanaged<Dependency>.fromOpaque(nextAddress)
    }
    set { nextAddress = newValue?.toOpaque() }
  }

  /// The address of `dependency` (nil for nil), without retaining it.
  @inline(__always)
  static func address(of dependency: Dependency?) -> UnsafeMutableRawPointer? {
    guard let dependency else { return nil }
    return Unmanaged.passUnretained(dependency).toOpaque()
  }

  /// Whether a write that overwrites the state `stamp` concerns this dependency.
  @inline(__always)
  func hasRead(_ stamp: UInt64) -> Bool {
    let read = seen.load(ordering: .relaxed)
    return read == stamp || read == Stamp.none || (stamp != Stamp.none && alias.load(ordering: .relaxed) == stamp)
  }

  /// - Parameter observer: the observer the edge belongs to, if it is to be linked (retained here,
  ///   once: the caller passes it unretained).
  init(
    table: ObserverTable, key: FieldKey, name: FieldName, seen: UInt64, generation: UInt32, guardedBy: TrackingGuard?,
    observer: Unmanaged<Observer>? = nil
  ) {
    self.table = table
    self.key = key
    self.name = name
    self.seen = Atomic(seen)
    self.generation = generation
    self.guardedBy = guardedBy
    self.observer = observer?.takeUnretainedValue()
  }

  var isLinked: Bool { slot >= 0 }
}

extension Sequence where Element == Dependency {
  /// Unlinks every dependency, one lock per run of dependencies on the same table, without
  /// collecting them anywhere.
  func unlinkAll() {
    var iterator = makeIterator()
    var next = iterator.next()
    while let first = next {
      next = first.table.unlink(first, andFollowingOf: &iterator)
    }
  }
}

/// A dependency's reflection leaves out its list neighbours, held `unowned(unsafe)` (valid only
/// under its table's lock), and its observer (which reflects its dependencies in turn).
extension Dependency: CustomReflectable {
  var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "field": "\(name.typeName).\(name.fieldName(for: key))", "table": table, "isLinked": isLinked,
      ],
      displayStyle: .class)
  }
}
