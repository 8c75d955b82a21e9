@testable import ObservantCollections
import Testing

@Suite("OrderedSet basics")
struct OrderedSetTests {
  @Test(
    "integer elements of any pattern are found, inserted and removed (Int is hashed by its own mixer)",
    arguments: [
      ("sequential", (0..<3_000).map { $0 }),
      ("negative", (0..<3_000).map { -$0 - 1 }),
      ("multiples of 2^32", (0..<3_000).map { $0 << 32 }),
      ("multiples of 2^40", (0..<3_000).map { $0 << 40 }),
      ("high bit", (0..<3_000).map { Int.min | $0 }),
      ("multiples of 1024", (0..<3_000).map { $0 * 1024 }),
    ])
  func integerPatterns(_ name: String, _ values: [Int]) {
    var set = OrderedSet(values)
    set._checkInvariants()
    #expect(set.count == values.count, "\(name)")
    #expect(values.enumerated().allSatisfy { set.firstIndex(of: $1) == $0 }, "\(name)")
    #expect(!set.contains(7 << 50 | 3), "\(name)")
    let removed = values.filter { $0 % 3 == 0 }
    for value in removed { _ = set.remove(value) }
    set._checkInvariants()
    #expect(values.allSatisfy { set.contains($0) == (($0 % 3) != 0) }, "\(name)")
    #expect(set.append(removed[0]).inserted, "\(name)")
    #expect(set.firstIndex(of: removed[0]) == set.count - 1, "\(name)")
    set._checkInvariants()
  }

  @Test("an empty set has no elements")
  func empty() {
    let set = OrderedSet<Int>()
    set._checkInvariants()
    #expect(set.isEmpty)
    #expect(set.count == 0)
    #expect(set.elements == [])
    #expect(!set.contains(1))
    #expect(set.firstIndex(of: 1) == nil)
  }

  @Test("init(_:) keeps the first of each duplicate, in order")
  func initDropsDuplicates() {
    let set = OrderedSet([3, 1, 3, 2, 1])
    set._checkInvariants()
    #expect(set.elements == [3, 1, 2])
  }

  @Test("init(uncheckedUniqueElements:) keeps the elements as given", arguments: setSizes)
  func initUnchecked(size: Int) {
    let set = OrderedSet(uncheckedUniqueElements: (0..<size).reversed())
    set._checkInvariants()
    #expect(set.elements == Array((0..<size).reversed()))
  }

  @Test("the invariant check stops the program on duplicates, with or without a hash index")
  func invariantsCatchDuplicates() async {
    let small = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      OrderedSet(uncheckedUniqueElements: [1, 2, 1])._checkInvariants()
    }
    #expect(standardError(of: small).contains("OrderedSet holds a duplicate: 1 at offset 2"))
    let large = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      OrderedSet(uncheckedUniqueElements: Array(0..<30) + [5])._checkInvariants()
    }
    #expect(standardError(of: large).contains("OrderedSet index maps 5"))
  }

  @Test("contains and firstIndex(of:) find every member and no other value", arguments: setSizes)
  func lookups(size: Int) {
    let set = OrderedSet((0..<size).map { $0 * 7 })
    set._checkInvariants()
    for offset in 0..<size {
      #expect(set.contains(offset * 7))
      #expect(set.firstIndex(of: offset * 7) == offset)
      #expect(set.lastIndex(of: offset * 7) == offset)
    }
    #expect(!set.contains(-1))
    #expect(set.firstIndex(of: 3) == nil)
  }

  @Test("generic contains(_:) on a large set hashes instead of comparing every element")
  func genericContainsHashes() {
    let counter = EqualityCounter()
    let set = OrderedSet((0..<1000).map { Counted(id: $0, counter: counter) })
    func genericContains<C: Collection>(_ collection: C, _ element: C.Element) -> Bool where C.Element: Equatable {
      collection.contains(element)
    }
    func genericFirstIndex<C: Collection>(_ collection: C, _ element: C.Element) -> C.Index?
    where C.Element: Equatable {
      collection.firstIndex(of: element)
    }
    let before = counter.count
    #expect(genericContains(set, Counted(id: 999, counter: counter)))
    #expect(genericFirstIndex(set, Counted(id: 998, counter: counter)) == 998)
    #expect(counter.count - before <= 4)
  }

  @Test("append adds a new element at the end and reports its index", arguments: [0, 5, 16, 100])
  func appendNew(size: Int) {
    var set = OrderedSet(0..<size)
    let result = set.append(-1)
    set._checkInvariants()
    #expect(result == (true, size))
    #expect(set.elements == Array(0..<size) + [-1])
  }

  @Test("appending a member changes nothing and reports the member's index", arguments: [5, 100])
  func appendExisting(size: Int) {
    var set = OrderedSet(0..<size)
    let result = set.append(3)
    set._checkInvariants()
    #expect(result == (false, 3))
    #expect(set.elements == Array(0..<size))
  }

  @Test("append(contentsOf:) adds the new elements in order and skips members")
  func appendContents() {
    var set: OrderedSet = [1, 2]
    set.append(contentsOf: [2, 3, 1, 4, 3])
    set._checkInvariants()
    #expect(set.elements == [1, 2, 3, 4])
  }

  @Test("insert(_:at:) places a new element and shifts later ones", arguments: [5, 16, 100])
  func insertNew(size: Int) {
    for position in [0, 2, size] {
      var set = OrderedSet(0..<size)
      let result = set.insert(-1, at: position)
      set._checkInvariants()
      var expected = Array(0..<size)
      expected.insert(-1, at: position)
      #expect(result == (true, position))
      #expect(set.elements == expected)
    }
  }

  @Test("inserting a member changes nothing and reports where it is")
  func insertExisting() {
    var set: OrderedSet = ["a", "b", "c"]
    let result = set.insert("c", at: 0)
    set._checkInvariants()
    #expect(result == (false, 2))
    #expect(set.elements == ["a", "b", "c"])
  }

  @Test("remove(_:) removes a member and returns it; removing another value returns nil", arguments: [5, 17, 100])
  func removeMember(size: Int) {
    for removed in [0, size / 2, size - 1] {
      var set = OrderedSet(0..<size)
      #expect(set.remove(removed) == removed)
      #expect(set.remove(-5) == nil)
      set._checkInvariants()
      #expect(set.elements == Array(0..<size).filter { $0 != removed })
    }
  }

  @Test("remove(at:) removes and returns the element at the index", arguments: [5, 17, 100])
  func removeAt(size: Int) {
    for position in [0, size / 2, size - 1] {
      var set = OrderedSet((0..<size).map { $0 * 2 })
      #expect(set.remove(at: position) == position * 2)
      set._checkInvariants()
      var expected = (0..<size).map { $0 * 2 }
      expected.remove(at: position)
      #expect(set.elements == expected)
    }
  }

  @Test("removeAll empties the set, with or without keeping capacity", arguments: [false, true])
  func removeAll(keepingCapacity: Bool) {
    var set = OrderedSet(0..<100)
    set.removeAll(keepingCapacity: keepingCapacity)
    set._checkInvariants()
    #expect(set.isEmpty)
    #expect(!set.contains(5))
    set.append(contentsOf: 0..<30)
    set._checkInvariants()
    #expect(set.elements == Array(0..<30))
  }

  @Test("removeAll(where:) removes matching elements and keeps the order of the rest", arguments: [10, 100])
  func removeAllWhere(size: Int) {
    var set = OrderedSet(0..<size)
    set.removeAll { $0 % 3 == 0 }
    set._checkInvariants()
    #expect(set.elements == Array(0..<size).filter { $0 % 3 != 0 })
  }

  @Test("remove(atOffsets:) removes each listed offset once")
  func removeAtOffsets() {
    var set: OrderedSet = ["a", "b", "c", "d", "e"]
    set.remove(atOffsets: [3, 0, 3])
    set._checkInvariants()
    #expect(set.elements == ["b", "c", "e"])
  }

  @Test("reserveCapacity keeps the elements and look-ups", arguments: [0, 10, 40])
  func reserveCapacity(size: Int) {
    var set = OrderedSet(0..<size)
    set.reserveCapacity(500)
    set._checkInvariants()
    #expect(set.elements == Array(0..<size))
    set.append(contentsOf: size..<400)
    set._checkInvariants()
    #expect(set.firstIndex(of: 399) == 399)
  }

  @Test("elements returns the members in order, sharing storage")
  func elementsSharesStorage() {
    let set = OrderedSet(0..<50)
    let elements = set.elements
    #expect(elements == Array(0..<50))
    #expect(elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } == set._storageIdentity)
  }

  @Test("the set is a random-access collection with Int indices from zero")
  func collection() {
    let set: OrderedSet = [10, 20, 30]
    #expect(set.startIndex == 0)
    #expect(set.endIndex == 3)
    #expect(set.indices == 0..<3)
    #expect(set[1] == 20)
    #expect(set.index(after: 1) == 2)
    #expect(set.index(before: 1) == 0)
    #expect(Array(set.reversed()) == [30, 20, 10])
    #expect(set.map { $0 / 10 } == [1, 2, 3])
    #expect(Array(set[1...]) == [20, 30])
    #expect(set.withContiguousStorageIfAvailable { Array($0) } == [10, 20, 30])
  }
}

@Suite("OrderedSet reordering")
struct OrderedSetReorderingTests {
  @Test("swapAt exchanges two elements and keeps look-ups right", arguments: [5, 100])
  func swapAt(size: Int) {
    var set = OrderedSet(0..<size)
    set.swapAt(1, size - 1)
    set.swapAt(2, 2)
    set._checkInvariants()
    var expected = Array(0..<size)
    expected.swapAt(1, size - 1)
    #expect(set.elements == expected)
    #expect(set.firstIndex(of: size - 1) == 1)
  }

  @Test("sort(by:) and sort() order the elements and keep look-ups right", arguments: [5, 100])
  func sort(size: Int) {
    var set = OrderedSet((0..<size).reversed())
    set.sort()
    set._checkInvariants()
    #expect(set.elements == Array(0..<size))
    set.sort(by: >)
    set._checkInvariants()
    #expect(set.elements == Array((0..<size).reversed()))
  }

  @Test("move(fromOffsets:toOffset:) follows SwiftUI's onMove semantics")
  func moveFromOffsets() {
    var set: OrderedSet = ["a", "b", "c", "d", "e"]
    set.move(fromOffsets: [1, 3], toOffset: 5)
    set._checkInvariants()
    #expect(set.elements == ["a", "c", "e", "b", "d"])
    set.move(fromOffsets: [4], toOffset: 0)
    set._checkInvariants()
    #expect(set.elements == ["d", "a", "c", "e", "b"])
    set.move(fromOffsets: [1, 2], toOffset: 3)
    set._checkInvariants()
    #expect(set.elements == ["d", "a", "c", "e", "b"])
  }

  @Test("move(from:to:) puts the element at the destination index", arguments: [5, 100])
  func moveFromTo(size: Int) {
    for (source, destination) in [(0, 3), (3, 0), (1, size - 1), (size - 1, 1), (2, 2)] {
      var set = OrderedSet(0..<size)
      set.move(from: source, to: destination)
      set._checkInvariants()
      var expected = Array(0..<size)
      expected.insert(expected.remove(at: source), at: destination)
      #expect(set.elements == expected)
    }
  }

  @Test("reverse() reverses the order and keeps look-ups right", arguments: [0, 1, 5, 100])
  func reverse(size: Int) {
    var set = OrderedSet(0..<size)
    set.reverse()
    set._checkInvariants()
    #expect(set.elements == Array((0..<size).reversed()))
  }

  @Test("a long random sequence of operations matches an array model", arguments: [1, 2, 3])
  func randomOperations(seed: UInt64) {
    var random = SplitMix64(state: seed)
    var set = OrderedSet<Int>()
    var model: [Int] = []
    for step in 0..<3_000 {
      let value = Int.random(in: 0..<200, using: &random)
      switch Int.random(in: 0..<10, using: &random) {
      case 0...3:
        let result = set.append(value)
        if let offset = model.firstIndex(of: value) {
          #expect(result == (false, offset))
        } else {
          model.append(value)
          #expect(result == (true, model.count - 1))
        }
      case 4:
        let position = Int.random(in: 0...model.count, using: &random)
        if !model.contains(value) { model.insert(value, at: position) }
        set.insert(value, at: position)
      case 5, 6:
        #expect(set.remove(value) == model.firstIndex(of: value).map { model.remove(at: $0) })
      case 7 where !model.isEmpty:
        let (i, j) = (Int.random(in: model.indices, using: &random), Int.random(in: model.indices, using: &random))
        model.swapAt(i, j)
        set.swapAt(i, j)
      case 8 where !model.isEmpty:
        let (source, destination) = (
          Int.random(in: model.indices, using: &random), Int.random(in: model.indices, using: &random)
        )
        model.insert(model.remove(at: source), at: destination)
        set.move(from: source, to: destination)
      default:
        if step % 50 == 0 {
          model.reverse()
          set.reverse()
        }
      }
      #expect(set.elements == model)
      #expect(set.firstIndex(of: value) == model.firstIndex(of: value))
    }
    set._checkInvariants()
  }
}

@Suite("OrderedSet conformances")
struct OrderedSetConformanceTests {
  @Test("sets with the same elements in the same order are equal; order matters")
  func equality() {
    #expect(OrderedSet([1, 2, 3]) == OrderedSet([1, 2, 3, 2]))
    #expect(OrderedSet([1, 2, 3]) != OrderedSet([3, 2, 1]))
    #expect(OrderedSet([1, 2]) != OrderedSet([1, 2, 3]))
  }

  @Test("sets sharing storage compare equal without comparing any element")
  func equalityFastPath() {
    let counter = EqualityCounter()
    let set = OrderedSet((0..<100).map { Counted(id: $0, counter: counter) })
    let copy = set
    let before = counter.count
    #expect(copy == set)
    #expect(counter.count == before)
  }

  @Test("equal sets hash equally")
  func hashing() {
    #expect(OrderedSet([1, 2, 3]).hashValue == OrderedSet([1, 2, 3]).hashValue)
    #expect(Set([OrderedSet([1, 2]), OrderedSet([1, 2]), OrderedSet([2, 1])]).count == 2)
  }

  @Test("descriptions look like an array's, the debug one with the type")
  func descriptions() {
    let set: OrderedSet = ["a", "b"]
    #expect(set.description == #"["a", "b"]"#)
    #expect(set.debugDescription == #"OrderedSet<String>(["a", "b"])"#)
    #expect(OrderedSet<Int>().description == "[]")
    #expect(OrderedSet([1, 2]).debugDescription == "OrderedSet<Int>([1, 2])")
    let mirror = Mirror(reflecting: set)
    #expect(mirror.displayStyle == .set)
    #expect(mirror.children.map { $0.value as? String } == ["a", "b"])
  }

  @Test("an array literal builds the set in order")
  func arrayLiteral() {
    let set: OrderedSet = [3, 1, 2]
    set._checkInvariants()
    #expect(set.elements == [3, 1, 2])
  }

  @Test("a duplicate in an array literal stops the program, naming it")
  func arrayLiteralDuplicate() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let set: OrderedSet = [1, 2, 1]
      _ = set
    }
    #expect(standardError(of: result).contains("Duplicate element 1 in an OrderedSet array literal"))
    #expect(_orderedSetDuplicateLiteralElementMessage("x") == #"Duplicate element "x" in an OrderedSet array literal"#)
  }

  // The standard library's own bounds check traps without a message in optimized builds.
  @Test("subscript(position:) out of bounds stops the program, naming the index and the bounds")
  func positionOutOfBounds() async {
    let past = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let set: OrderedSet = [10, 20, 30]
      _ = set[3]
    }
    #expect(standardError(of: past).contains("OrderedSet index 3 is out of bounds 0..<3"))
    let negative = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let set: OrderedSet = ["a"]
      _ = set[-2]
    }
    #expect(standardError(of: negative).contains("OrderedSet index -2 is out of bounds 0..<1"))
    #expect(OrderedSet<Int>._positionMessage(4, count: 0) == "OrderedSet index 4 is out of bounds 0..<0")
  }

  @Test("a set is Sendable when its elements are")
  func sendable() async {
    let set: OrderedSet = [1, 2, 3]
    let count = await Task.detached { set.count }.value
    #expect(count == 3)
  }
}
