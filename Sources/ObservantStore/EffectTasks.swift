import Synchronization

/// The running tasks of a tree's `.run` effects, cancelled when the root's core goes away (from its
/// nonisolated `deinit`, hence a lock rather than main-actor isolation).
internal final class EffectTasks: Sendable {
  private let tasks = Mutex<[Int: Task<Void, Never>]>([:])
  private let nextID = Atomic<Int>(0)

  /// Keeps the task `start` returns until it completes (or is cancelled).
  @MainActor
  func start(_ start: () -> Task<Void, Never>) {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let task = start()
    tasks.withLock { $0[id] = task }
    Task { [weak self] in
      await task.value
      self?.finished(id)
    }
  }

  private func finished(_ id: Int) {
    _ = tasks.withLock { $0.removeValue(forKey: id) }
  }

  func cancelAll() {
    let running = tasks.withLock { tasks in
      defer { tasks.removeAll() }
      return Array(tasks.values)
    }
    running.forEach { $0.cancel() }
  }

  deinit { cancelAll() }
}
