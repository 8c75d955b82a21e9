import Observant

/// Catches hand-written `ObservableState` accessors that are wired wrong, in a test, before a
/// screen goes stale.
///
/// ```swift
/// import ObservantTesting
/// import Testing
///
/// @Test func rowIsTracked() {
///   #expect(TrackingAudit.problems(in: Row(id: 1), fields: [
///     .field(\.count, sample: 1),
///     .collection(\.tags, sample: ["a"], inPlace: { $0.tags.append("b") }),
///   ], untracked: ["id"]) == [])
/// }
/// ```
///
/// It reports, one sentence each, naming the field and the fix:
/// - a getter that records nothing (it returns the storage without `registrar.read`), or records
///   the read under another name (a helper function that calls `registrar.read` for it:
///   `registrar.read` names the field after the accessor that calls it);
/// - a setter that does not notify (it writes the storage without `registrar.write`), also when
///   the getter records nothing;
/// - a getter, setter or `_modify` wired to another field's storage, or also writing it;
/// - a collection or child-state field without `_modify`, which copies the whole collection or
///   child on every in-place change;
/// - a `_modify` that changes the storage without notifying the field's readers;
/// - a stored property that is not tracked, and `StateField` storage that the audit does not list.
///
/// Add the `ObservantTesting` product to a test target:
/// `.product(name: "ObservantTesting", package: "observant")`.
public enum TrackingAudit {
  /// Every wiring problem of `State`'s accessors, as sentences; empty when they are right.
  ///
  /// Each field is checked on a fresh value: its getter must record the read; writing the sample
  /// must change its own storage, notify its readers and read back as the sample; writing any
  /// other field must leave it alone. For collections and child state, the in-place mutation must
  /// go through `_modify` (not through the getter and the setter), change the field's own storage,
  /// and notify the field's readers when it changes what the field holds (an insertion, say; a
  /// child's own fields notify their own readers). Last, every stored property must be the storage
  /// of an audited field, or be listed in `untracked`.
  ///
  /// ```swift
  /// TrackingAudit.problems(in: Counter(), fields: [.field(\.count, sample: 1)])
  /// // ["count: its setter writes _total, the storage of total; it must write its own:
  /// //   registrar.write(&_count, newValue)"]   (one line)
  /// ```
  ///
  /// Fields are named after their property (the name their getter records). The fixes assume the
  /// storage of `name` is called `_name`.
  ///
  /// - Parameters:
  ///   - make: the value to audit; evaluated once per check, so every check starts fresh.
  ///   - fields: every tracked field, each with a sample that differs from its initial value.
  ///   - untracked: stored properties that are deliberately not tracked, such as `id`.
  /// - Complexity: O(*f*²) writes for *f* fields when a getter reads the wrong storage (to find
  ///   which), O(*f*) otherwise.
  public static func problems<State: ObservableState>(
    in make: @autoclosure () -> State,
    fields: [AuditedField<State>],
    untracked: Set<String> = []
  ) -> [String] {
    var problems: [String] = []
    var audited: Set<String> = []
    for position in fields.indices {
      audited.insert(audit(position, of: fields, make: make, problems: &problems))
    }
    problems += storageProblems(in: make(), audited: audited, untracked: untracked)
    return problems
  }

  /// Checks `fields[position]`, appends its problems, and returns its name.
  private static func audit<State: ObservableState>(
    _ position: Int, of fields: [AuditedField<State>], make: () -> State, problems: inout [String]
  ) -> String {
    let field = fields[position]
    var state = make()
    let recorded = recordAccesses { field.read(state) }.accesses.first
    let reader = recorded.map { _ in withCancellableTracking({ field.read(state) }, onChange: {}).observation }
    defer { reader?.cancel() }
    let sampleIsInitial = field.holdsSample(state) == true
    let before = StorageSnapshot(of: state)
    field.writeSample(&state)
    let after = StorageSnapshot(of: state)
    let written = before.changedLabels(in: after)

    // The getter records the property's name; failing that, or when what it records names no
    // storage (a helper function that calls `registrar.read` records its own name), the storage
    // the setter wrote tells.
    let recordedName = recorded?.fieldName
    let recordsAStorage = recordedName.map { after.labels.contains("_" + $0) } ?? false
    let name: String
    if let recordedName, recordsAStorage {
      name = recordedName
    } else if written.count == 1 {
      name = written[0].fieldName
    } else {
      name = recordedName ?? "field #\(position + 1)"
    }
    let storage = "_" + name
    var found: [String] = []
    defer { problems += found }
    if let recordedName, !recordsAStorage, recordedName != name {
      found.append(
        "\(name): its getter records the read as \(recordedName), not \(name) (registrar.read names the field after the accessor that calls it, so a write of \(name) never reaches its readers); call registrar.read(\(storage)) in the getter itself, or pass the name: registrar.read(\(storage), field: \"\(name)\")"
      )
    }

    if field.inPlace == nil, let advice = inPlaceAdvice(field.kind, name: name) {
      found.append("\(name): \(advice) so that its _modify accessor is checked")
    }
    if sampleIsInitial {
      found.append(
        "\(name): the sample equals the initial value, so writing it changes nothing; choose a sample that differs")
      return name
    }
    if recorded == nil {
      found.append(
        "\(name): reading it records nothing, so its readers never hear of changes; its getter must return registrar.read(\(storage))"
      )
    }
    if written.isEmpty {
      found.append("\(name): writing it changes nothing; its setter must call registrar.write(&\(storage), newValue)")
    } else if recorded == nil, written == [storage], before.keptStamp(of: storage, in: after) {
      // No reader could be installed (the getter records nothing), but registrar.write gives the
      // field a new stamp: the setter stored the value around it.
      found.append(
        "\(name): writing it does not notify its readers; its setter must call registrar.write(&\(storage), newValue)")
    } else if !written.contains(storage) {
      found.append(
        "\(name): its setter writes \(written[0]), the storage of \(written[0].fieldName); it must write its own: registrar.write(&\(storage), newValue)"
      )
    } else if written.count > 1, let other = written.first(where: { $0 != storage }) {
      found.append(
        "\(name): its setter also writes \(other), the storage of \(other.fieldName); it must write only its own: registrar.write(&\(storage), newValue)"
      )
    } else if field.holdsSample(state) == false {
      // Its readers were not notified either (they saw the other storage's state, not the state
      // the write replaced); reading its own storage fixes both.
      if let other = storageRead(by: position, of: fields, make: make) {
        found.append(
          "\(name): its getter reads \(other), the storage of \(other.fieldName); it must read its own: registrar.read(\(storage))"
        )
      } else {
        found.append(
          "\(name): after writing it, reading it returns another value; its getter must return registrar.read(\(storage)) and its setter store the new value as it is: registrar.write(&\(storage), newValue)"
        )
      }
    } else if reader?.isActive == true, recordedName == nil || recordsAStorage {
      // (A reader of a misnamed read is never told; the getter's fix, reported above, is the one.)
      found.append(
        "\(name): writing it does not notify its readers; its setter must call registrar.write(&\(storage), newValue)")
    }
    if found.isEmpty, let recorded, let inPlace = field.inPlace,
      let problem = auditInPlace(field, inPlace, name: name, recorded: recorded, state: &state)
    {
      found.append(problem)
    }
    return name
  }

  /// Checks the in-place mutation of a field whose getter and setter are right, on `state`, which
  /// holds the sample.
  private static func auditInPlace<State: ObservableState>(
    _ field: AuditedField<State>, _ inPlace: (inout State) -> Void, name: String, recorded: AccessLog.Entry,
    state: inout State
  ) -> String? {
    let reader = withCancellableTracking({ field.read(state) }, onChange: {}).observation
    defer { reader.cancel() }
    let isUnchanged = field.watch(state)
    let before = StorageSnapshot(of: state)
    // Without `_modify`, Swift mutates through the getter and the setter: the getter's read shows.
    let accesses = recordAccesses { inPlace(&state) }.accesses
    let storage = "_" + name
    let fix = "_modify { yield &self[tracking: \\.\(storage)] }"
    if accesses.contains(recorded) {
      let copied = field.kind == .child ? "child state" : "collection"
      return "\(name): it has no _modify accessor, so every in-place change copies the whole \(copied); add \(fix)"
    }
    let changed = before.changedLabels(in: state)
    if changed.isEmpty {
      return "\(name): the inPlace mutation changed nothing; make it change \(name)"
    }
    if !changed.contains(storage) {
      return
        "\(name): its _modify yields \(changed[0]), the storage of \(changed[0].fieldName); it must yield its own: \(fix)"
    }
    if let other = changed.first(where: { $0 != storage }) {
      return
        "\(name): its _modify also changes \(other), the storage of \(other.fieldName); it must change only its own: \(fix)"
    }
    if isUnchanged(state) != true, reader.isActive {
      return "\(name): changing it in place does not notify its readers; it must be \(fix)"
    }
    return nil
  }

  /// How to audit a field of this kind with its in-place mutation, if it has one.
  private static func inPlaceAdvice<State>(_ kind: AuditedField<State>.Kind, name: String) -> String? {
    switch kind {
    case .value: nil
    case .collection: "holds a collection; audit it with .collection(\\.\(name), sample: …, inPlace: { $0.\(name)… })"
    case .child: "holds child state; audit it with .child(\\.\(name), sample: …, inPlace: { $0.\(name)… })"
    }
  }

  /// The storage that `fields[position]`'s getter reads instead of its own: the one whose field's
  /// write changes what the getter returns.
  private static func storageRead<State: ObservableState>(
    by position: Int, of fields: [AuditedField<State>], make: () -> State
  ) -> String? {
    for (other, field) in fields.enumerated() where other != position {
      var state = make()
      let isUnchanged = fields[position].watch(state)
      let before = StorageSnapshot(of: state)
      field.writeSample(&state)
      let written = before.changedLabels(in: state)
      if isUnchanged(state) == false, written.count == 1 { return written[0] }
    }
    return nil
  }

  /// Stored properties that belong to no audited field and are not listed as untracked.
  private static func storageProblems<State: ObservableState>(
    in state: State, audited: Set<String>, untracked: Set<String>
  ) -> [String] {
    StorageSnapshot.storedProperties(of: state).compactMap { label, value in
      let name = label.fieldName
      if audited.contains(name) || untracked.contains(label) || untracked.contains(name) { return nil }
      if value is any _StateFieldStorage {
        return "\(label): the storage of a field the audit does not list; add .field(\\.\(name), sample: …) to fields:"
      }
      return
        "\(label): a stored property that is not tracked, so its changes reach no observer; keep it in a StateField behind registrar accessors, or list it in untracked: if that is deliberate"
    }
  }
}
