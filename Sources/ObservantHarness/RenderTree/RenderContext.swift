import Observant

/// What a body receives while it runs: the node's name, a way to emit its visible output, and
/// the declarations of its children.
///
/// A context is valid only during the run it was handed to; using it afterwards (from a closure
/// that escaped the body) is a programming error and stops the program with a message.
///
/// ```swift
/// RenderTree("Screen") { screen in
///   screen.text("Inbox")
///   screen.child("Header", input: model.title) { header in
///     header.text(model.title)
///   }
///   screen.forEach(model.messages, name: { "Message[\($0.id)]" }) { message, row in
///     row.text(message.subject)
///   }
/// }
/// ```
///
/// **Keys.** A child's key defaults to its name; `forEach` keys each child by its element's id.
/// All keys declared by one run share one space: two `forEach` over the same ids in one body
/// collide (put each in its own child, like sections). A key declared twice in one run keeps
/// the first declaration and reports a `RenderDiagnostic` (see `RenderTree.diagnostics`).
public final class RenderContext {
  // A context is used on its tree's thread, by one run at a time: no dynamic exclusivity checks.

  /// The name of the node whose body is running.
  @exclusivity(unchecked) public private(set) var name: String
  // Unmanaged: used only while the context is open, during a run of the node (checked first); a
  // closed context kept for reuse never touches the node it last had. (Held `unowned(unsafe)`,
  // each use still took a reference of its own.)
  @exclusivity(unchecked) private var node: Unmanaged<RenderNode>
  @exclusivity(unchecked) private var declarations: [ChildDeclaration] = []
  @exclusivity(unchecked) private var isOpen = true

  internal init(node: RenderNode) {
    self.name = node.name
    self.node = .passUnretained(node)
  }

  /// Opens a closed context for a run of `node` (a context nothing else references: see
  /// `RenderTree.makeContext(for:)`).
  internal func reopen(for node: RenderNode) {
    self.name = node.name
    self.node = .passUnretained(node)
    isOpen = true
  }

  /// Emits the node's visible output, for assertions through `RenderTree.output(of:)`. The last
  /// text a run emits is the node's output until its next run (a run that emits none leaves
  /// `nil`).
  ///
  /// ```swift
  /// row.text("\(row.title): \(row.count)")
  /// ```
  public func text(_ string: String) {
    checkOpen("text")
    node._withUnsafeGuaranteedRef { $0.emit(string) }
  }

  /// Declares a child that receives `input` from this body.
  ///
  /// When this body runs again and declares the same key, the child is kept: it does not re-run
  /// if `input` is unchanged, and is invalidated (re-run once, after this body, in the same
  /// flush) if it changed. Unchanged means `==`, except for values with an identity rule
  /// (`ObservableState`, optionals and identified arrays of it, `IdentityComparable` enums),
  /// which are unchanged exactly when identity-equal, as tracked fields decide it: their field
  /// changes reach the child through their own registrar, and a new value under the same key
  /// re-runs the child even if it is `==` to the old one.
  ///
  /// A new key creates the child: its body runs right after this body returns, in declaration
  /// order. A key declared last time but not now disposes the child and its subtree: their
  /// subscriptions are cancelled and they never run again. Either way the child's future runs
  /// use the latest `body`.
  ///
  /// ```swift
  /// screen.child("Badge", input: model.unreadCount) { badge in
  ///   badge.text("\(model.unreadCount)")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: the child's name in the log and in `RenderTree` queries.
  ///   - key: the child's identity among its siblings; defaults to `name`.
  ///   - input: what this body passes to the child; a change re-runs the child.
  ///   - body: the child's body.
  /// - Complexity: O(1) here; reconciliation after the body returns is O(1) per child, with
  ///   hashing.
  public func child<Input: Equatable>(
    _ name: String, key: AnyHashable? = nil, input: Input,
    body: @escaping (RenderContext) -> Void
  ) {
    checkOpen("child")
    declare(name, key: key ?? AnyHashable(name), input: renderInputMaker(for: Input.self)(input), body: .closure(body))
  }

  /// Declares a child without an input: this body never re-runs it. The child re-runs only when
  /// something it read changes; it is kept while its key is declared, and disposed when not.
  ///
  /// ```swift
  /// screen.child("Header") { header in
  ///   header.text(model.title)   // re-runs when the title changes, not when the screen does
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: the child's name in the log and in `RenderTree` queries.
  ///   - key: the child's identity among its siblings; defaults to `name`.
  ///   - body: the child's body; its future runs use the latest one declared.
  public func child(_ name: String, key: AnyHashable? = nil, body: @escaping (RenderContext) -> Void) {
    checkOpen("child")
    declare(name, key: key ?? AnyHashable(name), input: nil, body: .closure(body))
  }

  // MARK: Internals

  internal func declare(_ name: String, key: AnyHashable, input: (any RenderInput)?, body: ChildBody) {
    declarations.append(ChildDeclaration(name: name, key: ChildKey(key), input: input, body: body))
  }

  internal func reserveDeclarations(_ count: Int) {
    declarations.reserveCapacity(declarations.count + count)
  }

  /// Ends the run: the context refuses further use, and hands over what the body declared.
  internal func close() -> [ChildDeclaration] {
    isOpen = false
    defer { declarations = [] }
    return declarations
  }

  @inline(__always)
  internal func checkOpen(_ operation: StaticString) {
    if !isOpen { closedContextUsed(operation) }
  }

  private func closedContextUsed(_ operation: StaticString) -> Never {
    observantFatalError(
      "RenderContext.\(operation) of \"\(name)\" was called after its body returned; a context is valid only while its body runs"
    )
  }
}
