import Observant

/// A reusable cell of a `CellPool`, bound to one row at a time.
///
/// Its `content` is the result of the latest render of the row it is bound to; `renderCount`
/// and `history` span every binding, so a test can tell that a reused cell shows the new row and
/// that the old row never reached it:
///
/// ```swift
/// cell.history       // ["Row 2: 0", "Row 4: 0", "Row 4: 1"]
/// ```
public final class Cell: CustomStringConvertible {
  /// The cell's number in its pool: 0, 1, 2... in the order the pool made them.
  public let number: Int
  /// The id of the row the cell is bound to, or `nil` while it waits in the free list.
  public private(set) var boundID: AnyHashable?
  /// The result of the latest render ("" before the first).
  public private(set) var content = ""
  /// Renders since the cell was made, across bindings.
  public private(set) var renderCount = 0
  /// Every content the cell rendered, in order, across bindings.
  public private(set) var history: [String] = []

  internal let poolIdentity: ObjectIdentifier
  private let poolName: String
  private let tracking: any RenderTracking
  private let isolation: (any Actor)?
  /// The current binding (a tracking need not keep it alive) and its subscription.
  private var binding: CellBinding?
  private var subscription: (any RenderSubscription)?

  internal init(
    number: Int, poolName: String, poolIdentity: ObjectIdentifier, tracking: any RenderTracking,
    isolation: (any Actor)?
  ) {
    self.number = number
    self.poolName = poolName
    self.poolIdentity = poolIdentity
    self.tracking = tracking
    self.isolation = isolation
  }

  /// Whether the cell is bound to a row (not in the free list).
  public var isBound: Bool { boundID != nil }

  /// `"Cell#1 [4]: Row 4: 1 (3 renders)"`, with `free` instead of the id while unbound.
  public var description: String {
    let binding = boundID.map { "[\(String(describing: $0.base))]" } ?? "free"
    return "\(poolName)#\(number) \(binding): \(content) (\(renderCount) renders)"
  }

  internal func bind(to id: AnyHashable, render: @escaping () -> String) {
    observantPrecondition(!isBound, "\(poolName)#\(number) is already bound; enqueue it before binding it again")
    boundID = id
    // Not owned by a body that may be running now (a simulated table's body, say): the cell
    // observes until it is enqueued, whoever dequeued it.
    let binding = CellBinding(name: "\(poolName)#\(number)[\(String(describing: id.base))]", cell: self, render: render)
    self.binding = binding
    subscription = tracking.track(binding, isolation: isolation)
  }

  /// Stops observing for good: the render never runs again.
  internal func unbind() {
    subscription?.cancel()
    subscription = nil
    binding = nil
    boundID = nil
  }

  /// Whether a render of `binding` may show: it is the cell's binding, or the cell was enqueued
  /// during that render (and is bound to nothing). A render whose cell was bound to another row
  /// meanwhile (a table reloading from inside a cell's update) shows nothing: the cell shows its
  /// new row.
  fileprivate func shows(_ binding: CellBinding) -> Bool {
    self.binding == nil || self.binding === binding
  }

  fileprivate func show(_ rendered: String) {
    content = rendered
    renderCount += 1
    history.append(rendered)
  }
}

/// One binding of a cell to a row, as the pool's tracking runs it: the render, recorded.
private final class CellBinding: RenderBody {
  let name: String
  private unowned let cell: Cell
  private let render: () -> String

  init(name: String, cell: Cell, render: @escaping () -> String) {
    self.name = name
    self.cell = cell
    self.render = render
  }

  func run() {
    let rendered = render()
    if cell.shows(self) { cell.show(rendered) }
  }

  func finishRun() {}
}
