/// A keyed `ForEach`: one child per element, keyed by the element's id.
///
/// Four overloads, chosen by what the element type offers: with an explicit `id` or, for
/// `Identifiable` elements, the element's `id`; and, for `Equatable` elements, the element as the
/// child's input (so a parent re-run with a changed element re-runs that child once), otherwise
/// no input (the child is kept unchanged while its key stays, and re-runs only for its own
/// reads). The `Equatable` overloads are more constrained, so Swift picks them whenever they
/// apply; there is no ambiguity to resolve at the call site.
extension RenderContext {
  /// Declares one child per element, keyed by `id(element)` and named by `name(element)`. The
  /// elements are not `Equatable`, so children get no input: a child is kept unchanged while its
  /// key is declared, and re-runs only when something it read changes. Its future runs see the
  /// latest element, because the latest body is stored.
  ///
  /// ```swift
  /// list.forEach(model.tasks, id: \.uuid, name: { "Task[\($0.title)]" }) { task, row in
  ///   row.text(task.title)
  /// }
  /// ```
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled.
  public func forEach<Data: RandomAccessCollection, ID: Hashable>(
    _ data: Data,
    id: (Data.Element) -> ID,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) {
    declareEach(data, id: id, name: name, input: { _ in nil }, body: body)
  }

  /// Declares one child per element, keyed by `id(element)` and named by `name(element)`, with
  /// the element as the child's input: when this body re-runs, a child whose element changed
  /// re-runs once, after this body (see `child(_:key:input:body:)` for what "changed" means;
  /// `ObservableState` elements compare by identity).
  ///
  /// ```swift
  /// list.forEach(model.names, id: { $0 }, name: { "Name[\($0)]" }) { name, row in
  ///   row.text(name)
  /// }
  /// ```
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled.
  public func forEach<Data: RandomAccessCollection, ID: Hashable>(
    _ data: Data,
    id: (Data.Element) -> ID,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) where Data.Element: Equatable {
    declareEach(data, id: id, name: name, input: renderInputMaker(for: Data.Element.self), body: body)
  }

  /// Declares one child per `Identifiable` element, keyed by its `id` and named by
  /// `name(element)`, without an input (see `forEach(_:id:name:body:)`).
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled.
  public func forEach<Data: RandomAccessCollection>(
    _ data: Data,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) where Data.Element: Identifiable {
    declareEach(data, id: { $0.id }, name: name, input: { _ in nil }, body: body)
  }

  /// Declares one child per `Identifiable` element, keyed by its `id` and named by
  /// `name(element)`, with the element as the child's input.
  ///
  /// ```swift
  /// list.forEach(model.state.rows, name: { "Row[\($0.id)]" }) { row, context in
  ///   context.text("\(model.row(row.id)?.count ?? 0)")
  /// }
  /// ```
  ///
  /// For `ObservableState` rows this means: a row replaced by a new value with the same id
  /// re-runs its child once; a row mutated in place does not re-run it through the parent (its
  /// own registrar re-runs it if it read the field).
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled.
  public func forEach<Data: RandomAccessCollection>(
    _ data: Data,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) where Data.Element: Identifiable & Equatable {
    declareEach(data, id: { $0.id }, name: name, input: renderInputMaker(for: Data.Element.self), body: body)
  }

  /// The one implementation behind the four overloads.
  private func declareEach<Data: RandomAccessCollection, ID: Hashable>(
    _ data: Data,
    id: (Data.Element) -> ID,
    name: (Data.Element) -> String,
    input: (Data.Element) -> (any RenderInput)?,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) {
    checkOpen("forEach")
    reserveDeclarations(data.count)
    for element in data {
      declare(name(element), key: AnyHashable(id(element)), input: input(element)) { context in
        body(element, context)
      }
    }
  }
}
