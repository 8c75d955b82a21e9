/// The UIKit reuse pattern for the strategies other than Observant (which uses
/// `ObservantHarness.CellPool`): cells bound to one row at a time, each render a root of a
/// `SimulatedTree`; enqueueing unbinds (the render never runs again).
final class SimulatedCellPool {
  final class Cell {
    fileprivate var node: SimulatedNode?
    /// Renders since the cell was made, across bindings.
    fileprivate(set) var renderCount = 0
    fileprivate(set) var content = ""
  }

  let tree: SimulatedTree
  private var free: [Cell] = []

  init(tree: SimulatedTree) {
    self.tree = tree
  }

  /// Takes the most recently enqueued cell, or a new one, and binds it: `render` runs now and
  /// whenever the tree's policy re-runs it. `viewState` is what the diffing policy compares.
  func dequeue(viewState: (() -> AnyHashable)? = nil, render: @escaping () -> String) -> Cell {
    let cell = free.popLast() ?? Cell()
    cell.node = tree.mount("Cell", viewState: viewState) { [unowned cell] _ in
      cell.content = render()
      cell.renderCount += 1
    }
    return cell
  }

  /// `prepareForReuse`: unbinds the cell.
  func enqueue(_ cell: Cell) {
    guard let node = cell.node else { return }
    tree.unmount(node)
    cell.node = nil
    free.append(cell)
  }
}
