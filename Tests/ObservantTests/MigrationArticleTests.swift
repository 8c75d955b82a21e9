import Observant
import Observation
import Synchronization
import Testing

// The code of the article "Migrating from @Observable" (MigratingFromObservable.md), verbatim
// (`ArticleCodeTests` checks it): Apple's side runs against the toolchain's Observation module, so
// that what the article says about it is checked too. Each side lives in its own namespace, since
// both declare a `Library` and a `Book`.

/// The model written with Apple's Observation.
enum WithObservation {
  @Observable
  final class Library {
    var title = "Reading list"
    var books: [Book] = []
    @ObservationIgnored var coverCache: [Int: String] = [:]
  }

  struct Book: Identifiable {
    let id: Int
    var title: String
    var isRead = false
  }
}

/// The same model written with Observant.
enum WithObservant {
  final class Library: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var title = "Reading list"
    @Tracked var books: IdentifiedArrayOf<Book> = []
    var coverCache: [Int: String] = [:]
  }

  // swift-format-ignore
  struct Book: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int

    private var _title: StateField<String>
    var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

    private var _isRead = StateField(false)
    var isRead: Bool { get { registrar.read(_isRead) } set { registrar.write(&_isRead, newValue) } }

    init(id: Int, title: String) {
      self.id = id
      _title = StateField(title)
    }
  }
}

/// Counts calls from `@Sendable` closures.
private final class Calls: Sendable {
  private let count = Atomic(0)
  func record() { count.add(1, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
}

extension WithObservation {
  @Suite("Article: Migrating from @Observable (Observation's side)")
  struct Article {
    @Test("reading one book in withObservationTracking depends on the whole array")
    func observingAChange() {
      let library = Library()
      library.books = [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")]
      withObservationTracking {
        print(library.books[0].isRead)
      } onChange: {
        print("the first book may have changed")
      }
      library.books[1].isRead = true  // fires: the closure read the whole array
    }

    @Test("the same, counted: changing the second book fires the first book's observation, once")
    func observingAChangeCounted() {
      let library = Library()
      library.books = [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")]
      let calls = Calls()
      withObservationTracking {
        _ = library.books[0].isRead
      } onChange: {
        calls.record()
      }
      library.books[1].isRead = true
      #expect(calls.value == 1)
      library.books[0].isRead = true
      #expect(calls.value == 1)  // one-shot
    }

    @Test("an inner withObservationTracking's reads count for the outer one too")
    func nestedScopesMerge() {
      let library = Library()
      withObservationTracking {
        withObservationTracking {
          _ = library.title
        } onChange: {
        }
        _ = library.books.count
      } onChange: {
        print("outer")
      }
      library.title = "Read later"  // prints "outer": the inner scope's read counted for the outer one

      let outer = Calls()
      withObservationTracking {
        withObservationTracking {
          _ = library.title
        } onChange: {
        }
        _ = library.books.count
      } onChange: {
        outer.record()
      }
      library.title = "Read later, again"
      #expect(outer.value == 1)
    }

    @Test("an @ObservationIgnored property is not observed")
    func ignored() {
      let library = Library()
      let calls = Calls()
      withObservationTracking {
        _ = library.coverCache
      } onChange: {
        calls.record()
      }
      library.coverCache[1] = "dune.png"
      #expect(calls.value == 0)
    }
  }
}

extension WithObservant {
  @Suite("Article: Migrating from @Observable (Observant's side)")
  struct Article {
    @Test("reading one book in withTracking depends on that book's field and the slot, not on other books")
    func observingAChange() {
      let library = Library()
      library.books = [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")]
      withTracking {
        print(library.books[id: 1]!.isRead)
      } onChange: {
        print("the first book changed")
      }
      library.books[id: 2]?.isRead = true  // does not fire: only book 1's isRead was read
      library.books[id: 1]?.isRead = true  // fires, once
    }

    @Test("the same, counted: another book's change does not fire; the first book's fires once")
    func observingAChangeCounted() {
      let library = Library()
      library.books = [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")]
      let calls = Calls()
      let (_, observation) = withCancellableTracking {
        library.books[id: 1]!.isRead
      } onChange: {
        calls.record()
      }
      #expect(observation.accesses.description == "[Library.books, Book.isRead]")
      library.books[id: 2]?.isRead = true
      #expect(calls.value == 0)
      library.books[id: 1]?.isRead = true
      #expect(calls.value == 1)
      library.books[id: 1]?.isRead = false
      #expect(calls.value == 1)

      let slot = Calls()
      withTracking {
        _ = library.books[id: 1]?.isRead
      } onChange: {
        slot.record()
      }
      library.books.append(Book(id: 3, title: "Ulysses"))  // the array itself changed
      #expect(slot.value == 1)
    }

    @Test("a reaction: one run per change of what it read, none for a book's field, one per transaction")
    func reaction() {
      let library = Library()
      library.books = [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")]
      let header = Reaction("Header") {
        print("\(library.title): \(library.books.count) books")
      }
      library.title = "To read"  // runs once
      library.books.append(Book(id: 3, title: "Ulysses"))  // runs once
      library.books[id: 3]?.isRead = true  // does not run: no book's field was read
      transaction {  // two writes, one run
        library.title = "Read"
        library.books.remove(id: 1)
      }
      header.cancel()  // never runs again

      #expect(header.runCount == 4)
      library.title = "After"
      #expect(header.runCount == 4)
    }

    @Test("the reaction, step by step")
    func reactionSteps() {
      let library = Library()
      library.books = [Book(id: 1, title: "Dune"), Book(id: 2, title: "Emma")]
      let header = Reaction("Header") { _ = (library.title, library.books.count) }
      library.title = "To read"
      #expect(header.runCount == 2)
      library.books.append(Book(id: 3, title: "Ulysses"))
      #expect(header.runCount == 3)
      library.books[id: 3]?.isRead = true
      #expect(header.runCount == 3)
      transaction {
        library.title = "Read"
        library.books.remove(id: 1)
      }
      #expect(header.runCount == 4)
      transaction {
        library.title = "Other"
        library.title = "Read"
      }
      #expect(header.runCount == 4)  // set and set back
    }

    @Test("an inner withTracking's reads are its own, unless propagated")
    func nestedScopesDoNotMerge() {
      let library = Library()
      withTracking {
        withTracking {
          _ = library.title
        } onChange: {
        }
        _ = library.books.count
      } onChange: {
        print("outer")
      }
      library.title = "Read later"  // prints nothing: the inner scope's read is the inner scope's

      let outer = Calls()
      withTracking {
        withTracking {
          _ = library.title
        } onChange: {
        }
        _ = library.books.count
      } onChange: {
        outer.record()
      }
      library.title = "Read later, again"
      #expect(outer.value == 0)

      let shared = Calls()
      withTracking {
        withTracking(propagatingToOuterScope: true) {
          _ = library.title
        } onChange: {
        }
        _ = library.books.count
      } onChange: {
        shared.record()
      }
      library.title = "Read at last"
      #expect(shared.value == 1)
    }

    @Test("a plain property is not observed")
    func untracked() {
      let library = Library()
      let (_, observation) = withCancellableTracking {
        _ = library.coverCache
      } onChange: {
      }
      #expect(observation.accesses.isEmpty)
    }
  }
}
