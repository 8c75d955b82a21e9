/// The dependencies of a one-shot scope: the first one inline, so that a scope that read one field
/// keeps no array.
internal struct OneShotDependencies: Sequence {
  let first: Dependency?
  let rest: ContiguousArray<Dependency>

  var isEmpty: Bool { first == nil }

  func makeIterator() -> Iterator { Iterator(first: first, rest: rest.makeIterator()) }

  struct Iterator: IteratorProtocol {
    fileprivate var first: Dependency?
    fileprivate var rest: IndexingIterator<ContiguousArray<Dependency>>

    mutating func next() -> Dependency? {
      if let first {
        self.first = nil
        return first
      }
      return rest.next()
    }
  }
}

extension Recorder {
  /// The dependencies recorded so far, for a one-shot observer to keep: the first, and the others
  /// in a new array of exactly their number (none for a scope that read one field). The recorder
  /// keeps its own storage, for reuse by `reset()`.
  func takeDependencies() -> OneShotDependencies {
    switch cursor {
    case 0: return OneShotDependencies(first: nil, rest: [])
    case 1: return OneShotDependencies(first: dependencies[0], rest: [])
    default:
      // Copied in one go (initializing from a slice copies element by element through value
      // witnesses, appending checks uniqueness and capacity each time).
      let count = cursor - 1
      let rest = ContiguousArray<Dependency>(unsafeUninitializedCapacity: count) { buffer, initialized in
        dependencies.withUnsafeBufferPointer { source in
          _ = buffer.initialize(fromContentsOf: source[1...count])
        }
        initialized = count
      }
      return OneShotDependencies(first: dependencies[0], rest: rest)
    }
  }
}
