@testable import ObservantCollections
import Testing

@Suite("IdentifiedArray insertions")
struct IdentifiedArrayInsertionTests {
  @Test("append adds an element with a new id at the end and reports its index", arguments: [0, 5, 100])
  func appendNew(size: Int) {
    var array = rows(0..<size)
    let result = array.append(Row(-1))
    array._checkInvariants()
    #expect(result == (true, size))
    #expect(array.idList == Array(0..<size) + [-1])
  }

  @Test("appending an element whose id is present changes nothing and reports where it is")
  func appendExisting() {
    var array = rows(0..<5)
    let version = array.version
    let result = array.append(Row(3, "other"))
    array._checkInvariants()
    #expect(result == (false, 3))
    #expect(array[id: 3] == Row(3, "r3"))
    #expect(array.version == version)
  }

  @Test("append(contentsOf:) appends new ids in order and skips present or repeated ones")
  func appendContents() {
    var array = rows(0..<3)
    array.append(contentsOf: [Row(2, "x"), Row(5), Row(4), Row(5, "y")])
    array._checkInvariants()
    #expect(array.idList == [0, 1, 2, 5, 4])
    #expect(array[id: 2]?.title == "r2")
    #expect(array[id: 5]?.title == "")
  }

  @Test("insert(_:at:) places an element with a new id and shifts later ones", arguments: [5, 100])
  func insertNew(size: Int) {
    for position in [0, 2, size] {
      var array = rows(0..<size)
      let result = array.insert(Row(-1), at: position)
      array._checkInvariants()
      var expected = Array(0..<size)
      expected.insert(-1, at: position)
      #expect(result == (true, position))
      #expect(array.idList == expected)
    }
  }

  @Test("inserting an element whose id is present changes nothing and reports where it is")
  func insertExisting() {
    var array = rows(0..<5)
    let result = array.insert(Row(4, "other"), at: 0)
    array._checkInvariants()
    #expect(result == (false, 4))
    #expect(array.idList == [0, 1, 2, 3, 4])
    #expect(array[id: 4]?.title == "r4")
  }

  @Test("updateOrAppend replaces the element with the same id in place and returns the old one")
  func updateExisting() {
    var array = rows(0..<5)
    let replaced = array.updateOrAppend(Row(2, "new"))
    array._checkInvariants()
    #expect(replaced == Row(2, "r2"))
    #expect(array.idList == [0, 1, 2, 3, 4])
    #expect(array[2] == Row(2, "new"))
  }

  @Test("updateOrAppend appends an element with a new id and returns nil")
  func updateAppends() {
    var array = rows(0..<2)
    #expect(array.updateOrAppend(Row(7)) == nil)
    array._checkInvariants()
    #expect(array.idList == [0, 1, 7])
  }
}

@Suite("IdentifiedArray removals")
struct IdentifiedArrayRemovalTests {
  @Test("remove(id:) removes and returns the element; an absent id returns nil", arguments: [5, 100])
  func removeID(size: Int) {
    for id in [0, size / 2, size - 1] {
      var array = rows(0..<size)
      #expect(array.remove(id: id) == Row(id, "r\(id)"))
      #expect(array.remove(id: -1) == nil)
      array._checkInvariants()
      #expect(array.idList == Array(0..<size).filter { $0 != id })
    }
  }

  @Test("remove(at:) removes and returns the element at the index", arguments: [5, 100])
  func removeAt(size: Int) {
    for position in [0, size / 2, size - 1] {
      var array = rows(0..<size)
      #expect(array.remove(at: position).id == position)
      array._checkInvariants()
      #expect(array.idList == Array(0..<size).filter { $0 != position })
    }
  }

  @Test("removeAll() empties the array, with or without keeping capacity", arguments: [false, true])
  func removeAll(keepingCapacity: Bool) {
    var array = rows(0..<50)
    array.removeAll(keepingCapacity: keepingCapacity)
    array._checkInvariants()
    #expect(array.isEmpty)
    #expect(array[id: 3] == nil)
    array.append(Row(3))
    array._checkInvariants()
    #expect(array.idList == [3])
  }

  @Test("removeAll(where:) removes matching elements and keeps the order of the rest", arguments: [10, 100])
  func removeAllWhere(size: Int) {
    var array = rows(0..<size)
    array.removeAll { $0.id % 3 == 0 }
    array._checkInvariants()
    #expect(array.idList == Array(0..<size).filter { $0 % 3 != 0 })
  }

  @Test("remove(atOffsets:) removes each listed offset once")
  func removeAtOffsets() {
    var array = rows(0..<6)
    array.remove(atOffsets: [5, 0, 2, 2])
    array._checkInvariants()
    #expect(array.idList == [1, 3, 4])
  }

  @Test("filter returns the matching elements in order, with the same id extractor")
  func filter() {
    let array = IdentifiedArray(uniqueElements: [Row(1, "a"), Row(2, "b"), Row(3, "c")], id: \.title)
    var filtered = array.filter { $0.id != 2 }
    filtered._checkInvariants()
    #expect(filtered.idList == ["a", "c"])
    filtered.append(Row(4, "a"))
    #expect(filtered.count == 2)
    #expect(array.count == 3)
  }

  @Test("filter that keeps every element returns an unmutated copy")
  func filterKeepsAll() {
    let array = rows(0..<5)
    let filtered = array.filter { _ in true }
    #expect(filtered.isIdentical(to: array))
    #expect(filtered._elementStorageIdentity == array._elementStorageIdentity)
  }
}

@Suite("IdentifiedArray reordering")
struct IdentifiedArrayReorderingTests {
  @Test("swapAt exchanges two elements and their ids", arguments: [5, 100])
  func swapAt(size: Int) {
    var array = rows(0..<size)
    array.swapAt(0, size - 1)
    array._checkInvariants()
    var expected = Array(0..<size)
    expected.swapAt(0, size - 1)
    #expect(array.idList == expected)
    #expect(array.index(id: 0) == size - 1)
  }

  @Test("sort(by:) orders elements and ids together", arguments: [5, 100])
  func sortBy(size: Int) {
    var array = rows(0..<size)
    array.sort { $0.id > $1.id }
    array._checkInvariants()
    #expect(array.idList == Array((0..<size).reversed()))
    #expect(array.index(id: 0) == size - 1)
  }

  @Test("sort() orders comparable elements")
  func sortComparable() {
    struct Score: Identifiable, Comparable {
      let id: String
      let points: Int
      static func < (lhs: Score, rhs: Score) -> Bool { lhs.points < rhs.points }
    }
    var array = IdentifiedArrayOf<Score>(uniqueElements: [
      Score(id: "b", points: 2), Score(id: "a", points: 3), Score(id: "c", points: 1),
    ])
    array.sort()
    array._checkInvariants()
    #expect(array.idList == ["c", "b", "a"])
  }

  @Test("a sort abandoned by an error leaves ids and elements consistent")
  func sortThrows() {
    struct Stop: Error {}
    var array = rows((0..<100).map { $0 * 37 % 100 })
    var comparisons = 0
    let version = array.version
    #expect(throws: Stop.self) {
      try array.sort { lhs, rhs in
        comparisons += 1
        if comparisons > 150 { throw Stop() }
        return lhs.id < rhs.id
      }
    }
    array._checkInvariants()
    #expect(Set(array.idList) == Set(0..<100))
    #expect(array.version != version)
  }

  @Test("move(fromOffsets:toOffset:) follows SwiftUI's onMove semantics")
  func moveFromOffsets() {
    var array = IdentifiedArray(uniqueElements: ["a", "b", "c", "d", "e"].map { Row(0, $0) }, id: \.title)
    array.move(fromOffsets: [1, 3], toOffset: 5)
    array._checkInvariants()
    #expect(array.idList == ["a", "c", "e", "b", "d"])
    array.move(fromOffsets: [4], toOffset: 0)
    array._checkInvariants()
    #expect(array.idList == ["d", "a", "c", "e", "b"])
  }

  @Test("move(from:to:) puts the element at the destination index", arguments: [5, 100])
  func moveFromTo(size: Int) {
    for (source, destination) in [(0, 3), (3, 0), (1, size - 1), (size - 1, 1)] {
      var array = rows(0..<size)
      array.move(from: source, to: destination)
      array._checkInvariants()
      var expected = Array(0..<size)
      expected.insert(expected.remove(at: source), at: destination)
      #expect(array.idList == expected)
    }
  }

  @Test("reverse() reverses elements and ids", arguments: [0, 1, 5, 100])
  func reverse(size: Int) {
    var array = rows(0..<size)
    array.reverse()
    array._checkInvariants()
    #expect(array.idList == Array((0..<size).reversed()))
  }
}
