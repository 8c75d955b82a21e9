import Synchronization

/// The part of a derived value the graph works with, whatever its value type: an observer of its
/// inputs that marks itself out of date, and a tracked source its readers depend on.
///
/// Freshness follows the usual push-pull scheme of signals libraries:
///
/// - An input field is written: the node becomes `dirty` (it must recompute) and tells its readers
///   that it *may* have changed: derived readers become `check` (recursively), reactions are
///   scheduled to check before they run, other observers are told when the transaction ends.
/// - A derived input may have changed: the node becomes `check` (it recomputes only if one of its
///   derived inputs turns out to have changed).
/// - A read (or a reader's check) brings the node up to date: a `check` node brings its derived
///   inputs up to date in the order it read them and recomputes at the first whose version moved;
///   a `dirty` node recomputes. A result equal to the previous one keeps the version, so its
///   readers' checks find nothing changed and they do not run.
///
/// A node nobody reads (no dependency on its own registrar) unlinks its inputs when it becomes out
/// of date: until it is read again, writes to them cost what writes to unobserved fields cost.
internal class DerivedNode: Observer, @unchecked Sendable {
  internal enum Freshness {
    /// The cached value is the value of the current inputs.
    case clean
    /// Only derived inputs may have changed: compare their versions before recomputing.
    case check
    /// A field it read was written (or it never computed, or it stopped listening): recompute.
    case dirty
  }

  private struct Marks {
    var freshness = Freshness.dirty
  }

  let name: String
  /// The source side: readers link their dependencies into this registrar's table.
  let registrar = TrackingRegistrar()
  private let marks = Mutex(Marks())

  /// The node's only field on its own registrar.
  static var fieldKey: FieldKey { FieldKey(internalField: 0) }
  /// Named once: every reader's dependency shares the name.
  let fieldName: FieldName

  init(name: String) {
    self.name = name
    self.fieldName = .custom(name, owner: "Derived")
    super.init()
  }

  override final var marksDuringWrites: Bool { true }

  var freshness: Freshness { marks.withLock { $0.freshness } }

  /// Sets the freshness; returns the previous one.
  @discardableResult
  func setFreshness(_ freshness: Freshness) -> Freshness {
    marks.withLock { marks in
      defer { marks.freshness = freshness }
      return marks.freshness
    }
  }

  // MARK: Being told

  /// A field the last computation read is being written (called on the writing thread, inside
  /// the transaction the write opened for it).
  override func dependencyChanged(_ dependency: Dependency, _ change: FieldChange) {
    let previous = setFreshness(.dirty)
    if previous == .clean { propagate() } else if !registrar.hasObservers { stopListening() }
  }

  /// A derived value the last computation read may have changed.
  func markCheck() {
    let wasClean = marks.withLock { marks -> Bool in
      guard marks.freshness == .clean else { return false }
      marks.freshness = .check
      return true
    }
    if wasClean { propagate() }
  }

  /// Tells the readers that the value may have changed, or, if there are none, stops listening
  /// to the inputs.
  private func propagate() {
    guard registrar.hasObservers, let table = registrar.existingTable else {
      stopListening()
      return
    }
    var readers = table.dependencies(of: Self.fieldKey, overwriting: Stamp.none)
    defer { readers.recycle() }
    guard !readers.isEmpty else {
      stopListening()
      return
    }
    let context = TransactionContext.current
    readers.forEach { dependency in
      guard let observer = dependency.observer else { return }
      if observer.marksDuringWrites {
        unsafeDowncast(observer, to: DerivedNode.self).markCheck()
      } else if observer.isScheduled {
        context.scheduleCheck(unsafeDowncast(observer, to: ScheduledObserver.self))
      } else {
        // A synchronous reader (a `withTracking` scope) cannot wait for a check: it is told,
        // conservatively, once the writes are stored (reading the value then is up to date).
        context.deferImmediate(dependency, .unknown)
      }
    }
  }

  /// Unlinks the inputs of a node nobody reads, unless it is computing right now (then the next
  /// change tries again). The node is `dirty` from then on: it recomputes when read.
  func stopListening() {}
}
