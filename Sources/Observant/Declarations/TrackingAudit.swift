/// A field of an `ObservableState` type, with a value to write to it, for `TrackingAudit`.
public struct AuditedField<State: ObservableState> {
  let keyPath: PartialKeyPath<State>
  let read: (State) -> Void
  let write: (inout State) -> Bool

  /// A tracked field and a sample value that differs from the field's initial value.
  public static func field<Value: Equatable>(_ keyPath: WritableKeyPath<State, Value>, sample: Value) -> Self {
    AuditedField(
      keyPath: keyPath,
      read: { _ = $0[keyPath: keyPath] },
      write: { state in
        guard state[keyPath: keyPath] != sample else { return false }
        state[keyPath: keyPath] = sample
        return true
      })
  }
}

/// Catches hand-written `ObservableState` accessors that are wired wrong, before a screen goes
/// stale: a getter that does not record its read, a setter that does not notify, a key path
/// copied from the neighbouring field, or a stored property that was never made tracked.
///
/// ```swift
/// @Test func counterAccessorsAreTracked() {
///   #expect(TrackingAudit.problems(in: Counter(), fields: [
///     .field(\.count, sample: 1),
///     .field(\.title, sample: "x"),
///   ]) == [])
/// }
/// ```
public enum TrackingAudit {
  /// Describes every wiring problem found; empty when the accessors are right.
  ///
  /// - Parameters:
  ///   - make: a value to test (written to; each field is checked on a fresh value).
  ///   - fields: every tracked field, each with a sample value different from its initial value.
  ///   - untracked: stored properties that are deliberately not tracked (e.g. `id`), which would
  ///     otherwise be reported.
  public static func problems<State: ObservableState>(
    in make: @autoclosure () -> State,
    fields: [AuditedField<State>],
    untracked: Set<String> = []
  ) -> [String] {
    var problems: [String] = []
    var fieldNames: [String] = []
    for (position, field) in fields.enumerated() {
      var state = make()
      let (_, log) = recordAccesses { field.read(state) }
      let name = log.first?.fieldName ?? storageWritten(by: field, in: make()) ?? "field #\(position + 1)"
      fieldNames.append(name)
      if log.isEmpty {
        problems.append("\(name): reading it records nothing; its getter does not call read(_:_:)")
        continue
      }
      if !log.contains(field.keyPath) {
        problems.append("\(name): reading it records \(log); its getter passes another key path to read(_:_:)")
      }
      let readers = fields.map { other in
        withCancellableTracking({ other.read(state) }, onChange: {}).observation
      }
      defer { readers.forEach { $0.cancel() } }
      let wasActive = readers.map(\.isActive)
      guard field.write(&state) else {
        problems.append("\(name): the sample equals the initial value; choose a sample that differs")
        continue
      }
      if readers[position].isActive {
        problems.append("\(name): writing it does not notify its readers; its setter does not call write(_:_:_:) with its own key path")
      }
      for (otherPosition, reader) in readers.enumerated()
      where otherPosition != position && wasActive[otherPosition] && !reader.isActive {
        let other = fields[otherPosition]
        if !sharesStorage(field, other, in: make()) {
          let otherName = recordAccesses { other.read(make()) }.accesses.first?.fieldName ?? "field #\(otherPosition + 1)"
          problems.append("\(name): writing it notifies readers of \(otherName); its setter passes \(otherName)'s key path")
        }
      }
    }
    let covered = Set(fieldNames.flatMap { [$0, "_" + $0] })
    for child in Mirror(reflecting: make()).children {
      guard let label = child.label, child.value as? StateRegistrar == nil else { continue }
      if covered.contains(label) || untracked.contains(label) { continue }
      if label.hasPrefix("_") {
        problems.append("\(label): storage with no audited field; add .field(\\.\(label.dropFirst()), sample:) to the audit")
      } else {
        problems.append("\(label): a stored property that is not tracked; reads and writes of it are invisible to observers (make it a computed property over private storage with read/write, or pass it in untracked:)")
      }
    }
    return problems
  }

  /// The property (minus a leading underscore) whose stored value writing the field changes.
  private static func storageWritten<State: ObservableState>(by field: AuditedField<State>, in state: State) -> String? {
    var state = state
    let before = Mirror(reflecting: state).children.map { String(describing: $0.value) }
    guard field.write(&state) else { return nil }
    let after = Mirror(reflecting: state).children
    for (child, old) in zip(after, before) where String(describing: child.value) != old {
      guard let label = child.label else { continue }
      return label.hasPrefix("_") ? String(label.dropFirst()) : label
    }
    return nil
  }

  /// Two audited fields read each other's storage (a computed field over another's storage):
  /// writing one legitimately notifies readers of the other.
  private static func sharesStorage<State: ObservableState>(
    _ field: AuditedField<State>, _ other: AuditedField<State>, in state: State
  ) -> Bool {
    let (_, log) = recordAccesses { other.read(state) }
    return log.contains(field.keyPath)
  }
}
