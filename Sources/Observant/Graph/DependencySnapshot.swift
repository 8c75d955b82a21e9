import _ObservantShims

/// Dependencies copied out of a table so their observers can be called without holding its lock.
/// The common single-dependency case needs no array; several go into a buffer borrowed from the
/// thread's `DependencyBufferPool`, which `recycle()` returns, so steady-state notification
/// allocates nothing.
internal enum DependencySnapshot {
  case none
  case one(Dependency)
  case many(ContiguousArray<Dependency>)
  /// Nothing yet; room for `capacity` (a borrowed buffer) once a second dependency arrives.
  case expecting(capacity: Int)

  /// Prepares for up to `count` dependencies (a hint, before the first `append`).
  mutating func expect(_ count: Int) {
    if case .none = self, count > 1 { self = .expecting(capacity: count) }
  }

  mutating func append(_ dependency: Dependency) {
    switch self {
    case .none, .expecting:
      if case .expecting(let capacity) = self {
        var buffer = DependencyBufferPool.current.take(capacity: capacity)
        buffer.append(dependency)
        self = .many(buffer)
      } else {
        self = .one(dependency)
      }
    case .one(let first):
      var buffer = DependencyBufferPool.current.take(capacity: 2)
      buffer.append(first)
      buffer.append(dependency)
      self = .many(buffer)
    case .many(var all):
      self = .none
      all.append(dependency)
      self = .many(all)
    }
  }

  var isEmpty: Bool {
    switch self {
    case .none, .expecting: return true
    case .one, .many: return false
    }
  }

  func forEach(_ body: (Dependency) -> Void) {
    switch self {
    case .none, .expecting: break
    case .one(let dependency): body(dependency)
    case .many(let dependencies): dependencies.forEach(body)
    }
  }

  /// Returns a borrowed buffer to the thread's pool for reuse, leaving the snapshot empty.
  mutating func recycle() {
    guard case .many(var buffer) = self else { return }
    self = .none  // the buffer's only reference is now `buffer`: reused without a copy
    DependencyBufferPool.current.giveBack(&buffer)
  }
}

/// Emptied dependency buffers of one thread, for the snapshots of a field's readers
/// (`DependencySnapshot`): taken when a snapshot holds more than one dependency, given back when
/// it is recycled, so notifying several readers allocates nothing in the steady state.
///
/// Thread-confined (one pool per thread, in a thread-local slot), so dynamic exclusivity checks
/// buy nothing here.
internal final class DependencyBufferPool {
  @exclusivity(unchecked) private var spare: [ContiguousArray<Dependency>] = []

  /// This thread's pool, created on first use and released when the thread exits.
  static var current: DependencyBufferPool {
    if let existing = observant_buffer_pool_get() {
      return Unmanaged<DependencyBufferPool>.fromOpaque(existing).takeUnretainedValue()
    }
    let pool = DependencyBufferPool()
    observant_buffer_pool_install(Unmanaged.passRetained(pool).toOpaque(), releasePool)
    return pool
  }

  /// An empty dependency buffer with room for `capacity`, reused if one was given back.
  func take(capacity: Int) -> ContiguousArray<Dependency> {
    var buffer = spare.popLast() ?? []
    buffer.reserveCapacity(capacity)
    return buffer
  }

  /// Takes back a buffer for reuse (emptied, its capacity kept); a few are kept.
  func giveBack(_ buffer: inout ContiguousArray<Dependency>) {
    guard spare.count < 4, buffer.capacity <= 4_096 else { return }
    buffer.empty()
    spare.append(buffer)
  }
}

private func releasePool(_ pool: UnsafeMutableRawPointer) {
  Unmanaged<DependencyBufferPool>.fromOpaque(pool).release()
}
