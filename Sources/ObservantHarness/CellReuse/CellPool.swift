import Observant

/// A simulated `UITableView` reuse queue: cells bound to per-row sources, unbound when they
/// scroll away, and reused for other rows.
///
/// ```swift
/// let pool = CellPool("Cell")
/// let cell = pool.dequeue(for: 2) { "Row 2: \(model.row(2)?.count ?? 0)" }
/// // swipe-delete row 2:
/// pool.enqueue(cell)                                  // prepareForReuse: unbinds
/// let reused = pool.dequeue(for: 4) { "Row 4: \(model.row(4)?.count ?? 0)" }
/// reused === cell                                     // true
/// ```
///
/// A cell renders under the pool's tracking (inside a `Reaction` by default): at once when bound,
/// and again whenever what its latest render read changes. Enqueueing cancels that subscription
/// before the cell can be bound again, so an update to a row whose cell was reused never reaches
/// the new row's cell.
///
/// With ``AppleObservationTracking``, renders made dirty by a change run when a step of that
/// tracking ends (`tracking.step { ... }`, or a step of a tree that shares it).
///
/// Single-threaded, like a table view: use a pool and its cells on one thread. A pool belongs to
/// the isolation it was created in: one created on the main actor re-renders its cells only on
/// the main actor, also when another thread writes what they read (see ``RenderTree``).
public final class CellPool {
  /// The prefix of the cells' names.
  public let name: String
  /// Every cell this pool has made, in the order it made them (`cells[n].number == n`).
  public private(set) var cells: [Cell] = []
  /// What decides when cells re-render: ``ReactionTracking`` unless the initializer was given
  /// another.
  public let tracking: any RenderTracking
  /// The actor the pool was created on (`nil` outside any actor): its renders run only there.
  internal let isolation: (any Actor)?
  /// Free cells; the most recently enqueued is reused first.
  private var freeCells: [Cell] = []

  /// Creates an empty pool.
  ///
  /// - Parameters:
  ///   - name: a prefix for the cells' names, for diagnostics.
  ///   - tracking: how renders learn what they read and when they re-run: Observant reactions
  ///     by default, or ``AppleObservationTracking`` (share one with a ``RenderTree`` to step
  ///     both as one UI).
  ///   - isolation: the actor the renders belong to: the caller's (`#isolation`).
  public init(
    _ name: String = "Cell", tracking: any RenderTracking = ReactionTracking(),
    isolation: isolated (any Actor)? = #isolation
  ) {
    self.name = name
    self.tracking = tracking
    self.isolation = isolation
  }

  deinit {
    // The pool is the table view: when it goes, its cells stop observing.
    for cell in cells { cell.unbind() }
  }

  /// Takes a free cell (the one most recently returned with `enqueue`) or makes a new one, and
  /// binds it to `id`: `render` runs at once under the pool's tracking and again whenever what
  /// it read changes; each result becomes the cell's `content` and is appended to its `history`.
  ///
  /// ```swift
  /// let cell = pool.dequeue(for: row.id) { "\(model.row(row.id)?.title ?? "")" }
  /// ```
  ///
  /// - Complexity: O(1), plus the first render.
  public func dequeue(for id: AnyHashable, render: @escaping () -> String) -> Cell {
    let cell = freeCells.popLast() ?? makeCell()
    cell.bind(to: id, render: render)
    return cell
  }

  /// `prepareForReuse`: cancels the cell's observation (unbinds it) and returns it to the free
  /// list. The cell keeps showing its last content until it is bound again. Enqueueing a cell
  /// that is already free does nothing; enqueueing another pool's cell is a programming error.
  /// A cell's own render may enqueue it (a table reloading from inside a cell's update): that
  /// render's result still shows, unless the render also bound the cell to another row, which the
  /// cell then shows.
  ///
  /// - Complexity: O(1).
  public func enqueue(_ cell: Cell) {
    observantPrecondition(
      cell.poolIdentity == ObjectIdentifier(self),
      "CellPool(\"\(name)\").enqueue: \(cell) belongs to another pool")
    guard cell.isBound else { return }
    cell.unbind()
    freeCells.append(cell)
  }

  private func makeCell() -> Cell {
    let cell = Cell(
      number: cells.count, poolName: name, poolIdentity: ObjectIdentifier(self), tracking: tracking,
      isolation: isolation)
    cells.append(cell)
    return cell
  }
}
