/// A keyed `ForEach`: one child per element, keyed by the element's id.
///
/// Four overloads, chosen by what the element type offers: with an explicit `id` or, for
/// `Identifiable` elements, the element's `id`; and, for `Equatable` elements, the element as the
/// child's input (so a parent re-run with a changed element re-runs that child once), otherwise
/// no input (the child is kept unchanged while its key stays, and re-runs only for its own
/// reads, or when its element is replaced by a new value with an identity). The `Equatable`
/// overloads are more constrained, so Swift picks them whenever they apply; there is no ambiguity
/// to resolve at the call site.
///
/// **Every run of a child sees its current element.** A child's first run gets the element this
/// body just read. A later run, which may come without this body running (the child read a field
/// of its element, and an in-place write changed it), gets the element under the child's id as
/// `data` holds it then: `data` is an autoclosure, evaluated again without tracking (so the child
/// does not depend on the collection). Pass the collection where it lives (`model.messages`,
/// `store.rows`), not a copy taken earlier: a local `let rows = model.rows`, or a nested
/// `forEach(section.rows, ...)` over an element of an outer `forEach`, is evaluated again as the
/// copy it was (write `model.sections[id: section.id]?.rows ?? []` to read the live one).
///
/// Elements that are class instances (a `Store`, a `Trackable` or `@Observable` object) are not
/// read again, and `data` is not kept for them: the child holds the instance, and its reads
/// through it are current. An instance replaced by another under the same id is a change of the
/// collection, which reaches the child through this body's re-run (the instance is the child's
/// input: a new one re-runs it). (Not keeping `data` matters for a `StoreCollection`: it holds a
/// copy of the rows array, whose storage the next in-place change of a row would then copy.)
extension RenderContext {
  /// Declares one child per element, keyed by `id(element)` and named by `name(element)`. The
  /// elements are not `Equatable`, so this body passes no input to compare: a child is kept
  /// unchanged while its key is declared, and re-runs when something it read changes. Each run
  /// sees the current element (see the type's notes on `forEach`).
  ///
  /// One exception re-runs a kept child through this body: an element with an identity (an
  /// `ObservableState` value, an optional or identified array of them, an `IdentityComparable`
  /// value, or a class instance) replaced by a new value under the same id
  /// (`rows[id: 7] = Row(id: 7)`). The child read the old value's fields through the old
  /// value's registrar, which will never report the new value's changes, so it re-runs once,
  /// after this body. Other elements (plain structs) never re-run a kept child through this body.
  ///
  /// ```swift
  /// list.forEach(model.tasks, id: \.uuid, name: { "Task[\($0.title)]" }) { task, row in
  ///   row.text(task.title)
  /// }
  /// ```
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled. A child's later run
  ///   evaluates `data` once and finds its element in O(1) (at the position this body last
  ///   declared it), or in O(*n*) if the collection changed shape without this body re-running.
  public func forEach<Data: RandomAccessCollection, ID: Hashable>(
    _ data: @autoclosure @escaping () -> Data,
    id: @escaping (Data.Element) -> ID,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) {
    declareEach(data, id: id, name: name, input: identityInputMaker(for: Data.Element.self), body: body)
  }

  /// Declares one child per element, keyed by `id(element)` and named by `name(element)`, with
  /// the element as the child's input: when this body re-runs, a child whose element changed
  /// re-runs once, after this body (see `child(_:key:input:body:)` for what "changed" means;
  /// `ObservableState` elements compare by identity). Each run sees the current element (see
  /// the type's notes on `forEach`).
  ///
  /// ```swift
  /// list.forEach(model.names, id: { $0 }, name: { "Name[\($0)]" }) { name, row in
  ///   row.text(name)
  /// }
  /// ```
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled; a child's later run
  ///   as in `forEach(_:id:name:body:)` without `Equatable`.
  public func forEach<Data: RandomAccessCollection, ID: Hashable>(
    _ data: @autoclosure @escaping () -> Data,
    id: @escaping (Data.Element) -> ID,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) where Data.Element: Equatable {
    declareEach(data, id: id, name: name, input: renderInputMaker(for: Data.Element.self), body: body)
  }

  /// Declares one child per `Identifiable` element, keyed by its `id` and named by
  /// `name(element)`, without an input (see `forEach(_:id:name:body:)`: a kept child re-runs for
  /// its own reads, or once when its element, having an identity, is replaced by a new value).
  ///
  /// ```swift
  /// screen.forEach(model.messages, name: { "Message[\($0.id)]" }) { message, row in
  ///   row.text(message.subject)   // re-runs, showing the new subject, when it changes in place
  /// }
  /// ```
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled; a child's later run
  ///   as in `forEach(_:id:name:body:)`.
  public func forEach<Data: RandomAccessCollection>(
    _ data: @autoclosure @escaping () -> Data,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) where Data.Element: Identifiable {
    declareEach(data, id: { $0.id }, name: name, input: identityInputMaker(for: Data.Element.self), body: body)
  }

  /// Declares one child per `Identifiable` element, keyed by its `id` and named by
  /// `name(element)`, with the element as the child's input.
  ///
  /// ```swift
  /// list.forEach(model.state.rows, name: { "Row[\($0.id)]" }) { row, context in
  ///   context.text("\(row.title): \(row.count)")
  /// }
  /// ```
  ///
  /// For `ObservableState` rows this means: a row replaced by a new value with the same id
  /// re-runs its child once; a row mutated in place does not re-run it through the parent (its
  /// own registrar re-runs it if it read the field, and that run sees the row as it is now).
  ///
  /// - Complexity: O(*n*) in the elements, with hashing when reconciled; a child's later run
  ///   as in `forEach(_:id:name:body:)`.
  public func forEach<Data: RandomAccessCollection>(
    _ data: @autoclosure @escaping () -> Data,
    name: (Data.Element) -> String,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) where Data.Element: Identifiable & Equatable {
    declareEach(data, id: { $0.id }, name: name, input: renderInputMaker(for: Data.Element.self), body: body)
  }

  /// The one implementation behind the four overloads: evaluates `data` (recorded: this body
  /// depends on the collection) and declares each element's child, which finds its element
  /// again in `data` when it runs later.
  private func declareEach<Data: RandomAccessCollection, ID: Hashable>(
    _ data: @escaping () -> Data,
    id: @escaping (Data.Element) -> ID,
    name: (Data.Element) -> String,
    input: ((Data.Element) -> any RenderInput)?,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) {
    checkOpen("forEach")
    let elements = data()
    reserveDeclarations(elements.count)
    let source = ForEachSource(data: data, id: id, body: body)
    var offset = 0
    for element in elements {
      let elementID = id(element)
      // A class instance is not read again: its child keeps the instance and the shared source,
      // with no object of its own.
      let childBody: ChildBody =
        if source.refreshesElements {
          .element(ForEachChildBody(source: source, element: element, id: elementID, offset: offset))
        } else if source.runsInstances {
          .instance(unsafeBitCast(element, to: AnyObject.self), source)
        } else {
          .element(ForEachInstanceBody(source: source, element: element))
        }
      declare(name(element), key: AnyHashable(elementID), input: input?(element), body: childBody)
      offset += 1
    }
  }
}

/// What the children of one `forEach` call share: how to evaluate the collection again, how to
/// tell an element's id, and the body.
internal final class ForEachSource<Data: RandomAccessCollection, ID: Hashable>: InstanceRunner {
  /// How to evaluate the collection again; `nil` for class instances, which are not read again
  /// (see the notes on `forEach`). Not kept then: what it captures (a copy of the collection,
  /// say) would live as long as the children, and a copy kept alive makes the next in-place
  /// change of the collection copy its storage.
  let data: (() -> Data)?
  let id: (Data.Element) -> ID
  let body: (Data.Element, RenderContext) -> Void

  /// Whether elements (class instances not read again) are single references, which a child
  /// keeps as `ChildBody.instance` (a class-bound existential, a reference and a witness table,
  /// gets a `ForEachInstanceBody` instead).
  let runsInstances: Bool

  /// Whether a child's later run reads its element again. Asked once per `forEach` call, not per
  /// child.
  var refreshesElements: Bool { data != nil }

  init(
    data: @escaping () -> Data, id: @escaping (Data.Element) -> ID,
    body: @escaping (Data.Element, RenderContext) -> Void
  ) {
    let instances = Data.Element.self is AnyObject.Type
    self.data = instances ? nil : data
    self.id = id
    self.body = body
    self.runsInstances = instances && MemoryLayout<Data.Element>.size == MemoryLayout<AnyObject>.size
  }

  /// Runs the body with `element`, an element of `Data` kept as `ChildBody.instance`.
  override func run(_ element: AnyObject, _ context: RenderContext) {
    body(unsafeBitCast(element, to: Data.Element.self), context)
  }
}

/// Runs the body of a `forEach` child whose element is a class instance, kept by the child's node
/// as `ChildBody.instance`: `ForEachSource` without its generic parameters.
internal class InstanceRunner {
  func run(_ element: AnyObject, _ context: RenderContext) {}
}

/// The body of one `forEach` child: the shared source, and the child's element as last seen.
internal final class ForEachChildBody<Data: RandomAccessCollection, ID: Hashable>: ElementBody {
  private let source: ForEachSource<Data, ID>
  // Used on the tree's thread, by one run at a time: no dynamic exclusivity checks.
  @exclusivity(unchecked) private var element: Data.Element
  private let id: ID
  /// Where the declaring run found the element: where a later run looks first.
  private let offset: Int

  init(source: ForEachSource<Data, ID>, element: Data.Element, id: ID, offset: Int) {
    self.source = source
    self.element = element
    self.id = id
    self.offset = offset
    super.init(refreshes: source.refreshesElements)
  }

  /// Takes the element under this child's id from the collection as it is now; keeps the one it
  /// has if the id is gone (the parent, about to run, disposes this child then).
  ///
  /// - Complexity: O(1) if the element is still where it was declared, O(*n*) otherwise.
  override func refresh() {
    guard let data = source.data else { return }
    let elements = data()
    if offset < elements.count {
      let candidate = elements[elements.index(elements.startIndex, offsetBy: offset)]
      if source.id(candidate) == id {
        element = candidate
        return
      }
    }
    if let position = elements.firstIndex(where: { source.id($0) == id }) {
      element = elements[position]
    }
  }

  override func run(_ context: RenderContext) {
    source.body(element, context)
  }
}

/// The body of one `forEach` child whose element is a class instance, which is not read again
/// (see the notes on `forEach`): the shared source and the instance.
internal final class ForEachInstanceBody<Data: RandomAccessCollection, ID: Hashable>: ElementBody {
  private let source: ForEachSource<Data, ID>
  private let element: Data.Element

  init(source: ForEachSource<Data, ID>, element: Data.Element) {
    self.source = source
    self.element = element
    super.init(refreshes: false)
  }

  override func run(_ context: RenderContext) {
    source.body(element, context)
  }
}

/// A child body bound to an element that can be read again: `ForEachChildBody` without its
/// generic parameters, so that a node can hold any.
internal class ElementBody {
  /// Whether `refresh()` reads anything (not for class instances): a node skips it otherwise.
  final let refreshes: Bool

  init(refreshes: Bool) {
    self.refreshes = refreshes
  }

  /// Reads the element again from where the parent found it. Called before every run but the
  /// first, outside any tracking, if `refreshes`.
  func refresh() {}

  /// Runs the body with the element.
  func run(_ context: RenderContext) {}
}

/// What a child runs: a plain closure (`child`), or a body bound to an element (`forEach`).
internal enum ChildBody {
  case closure((RenderContext) -> Void)
  case element(ElementBody)
  /// A `forEach` child whose element is a class instance (never read again): the instance and
  /// the source that runs it. No object per child.
  case instance(AnyObject, InstanceRunner)

  /// The instance and runner of an `.instance` body, unretained (the body holds them).
  struct InstanceCall {
    let element: Unmanaged<AnyObject>
    let runner: Unmanaged<InstanceRunner>
  }

  /// The `.instance` case's instance and runner, unretained; `nil` for the other cases.
  var instanceCall: InstanceCall? {
    guard case .instance(let element, let runner) = self else { return nil }
    return InstanceCall(element: .passUnretained(element), runner: .passUnretained(runner))
  }
}
