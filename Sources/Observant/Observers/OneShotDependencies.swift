/// The dependencies of a one-shot scope: a scope that read one field keeps it inline (no array);
/// a scope that read more keeps the array its recorder filled (`first` is then `nil`).
internal struct OneShotDependencies: Sequence {
  let first: Dependency?
  let rest: ContiguousArray<Dependency>

  var isEmpty: Bool { first == nil && rest.isEmpty }

  /// Unlinks every dependency (`Sequence.unlinkAll()`, without an iterator's copies for the one
  /// dependency of a one-field scope).
  func unlinkAll() {
    if let first {
      // Through unretained references: these dependencies (kept by `self`) keep the dependency
      // and its table alive, and the caller keeps `self`.
      Unmanaged.passUnretained(first)._withUnsafeGuaranteedRef { first in
        Unmanaged.passUnretained(first.table)._withUnsafeGuaranteedRef { $0.unlink(first) }
      }
    } else if !rest.isEmpty {
      rest.unlinkAll()
    }
  }

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
  /// The dependencies recorded so far, for a one-shot observer to keep: the one dependency inline,
  /// or (for a scope that read more) the recorder's own array, handed over whole, so that no
  /// dependency is retained for the copy and released again by `reset()`. The recorder then
  /// reserves storage of the same size for the next scope (one allocation, as a copy would take).
  func takeDependencies() -> OneShotDependencies {
    switch cursor {
    case 0: return OneShotDependencies(first: nil, rest: [])
    case 1: return OneShotDependencies(first: dependencies[0], rest: [])
    default: return OneShotDependencies(first: nil, rest: handOverDependencies())
    }
  }
}
