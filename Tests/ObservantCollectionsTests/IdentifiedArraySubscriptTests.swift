@testable import ObservantCollections
import Testing

@Suite("IdentifiedArray subscripts")
struct IdentifiedArraySubscriptTests {
  @Test("subscript(id:) returns the element with the id, or nil", arguments: [5, 100])
  func keyedGet(size: Int) {
    let array = rows(0..<size)
    #expect(array[id: 3] == Row(3, "r3"))
    #expect(array[id: size] == nil)
  }

  @Test("setting subscript(id:) replaces the element in its position")
  func keyedSetReplaces() {
    var array = rows(0..<5)
    array[id: 2] = Row(2, "new")
    array._checkInvariants()
    #expect(array.idList == [0, 1, 2, 3, 4])
    #expect(array[2] == Row(2, "new"))
  }

  @Test("setting subscript(id:) to nil removes the element; an absent id changes nothing", arguments: [5, 100])
  func keyedSetNilRemoves(size: Int) {
    var array = rows(0..<size)
    array[id: 1] = nil
    array._checkInvariants()
    #expect(array.idList == Array(0..<size).filter { $0 != 1 })
    let version = array.version
    array[id: -1] = nil
    #expect(array.version == version)
    #expect(array.count == size - 1)
  }

  @Test("setting subscript(id:) for an absent id appends the element")
  func keyedSetAppends() {
    var array = rows(0..<3)
    array[id: 9] = Row(9, "nine")
    array._checkInvariants()
    #expect(array.idList == [0, 1, 2, 9])
  }

  @Test("setting subscript(id:) to an element with another id stops the program, naming both ids")
  func keyedSetWrongID() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = rows(0..<3)
      array[id: 1] = Row(5)
    }
    #expect(standardError(of: result).contains("IdentifiedArray[id: 1] cannot change an element's id from 1 to 5"))
  }

  @Test("adding an element with another id through subscript(id:) stops the program, naming both ids")
  func keyedAppendWrongID() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = rows(0..<3)
      array[id: 7] = Row(8)
    }
    #expect(standardError(of: result).contains("IdentifiedArray[id: 7] cannot change an element's id from 7 to 8"))
  }

  @Test("changing the id while mutating through subscript(id:) stops the program, naming both ids")
  func keyedModifyWrongID() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = rows(0..<3)
      array[id: 2]?.id = 6
    }
    #expect(standardError(of: result).contains("IdentifiedArray[id: 2] cannot change an element's id from 2 to 6"))
  }

  @Test("mutating through subscript(id:) changes only that element", arguments: [5, 100])
  func keyedModify(size: Int) {
    for id in [0, size / 2, size - 1] {
      var array = rows(0..<size)
      array[id: id]?.title = "edited"
      array._checkInvariants()
      #expect(array.idList == Array(0..<size))
      #expect(array.elements == (0..<size).map { Row($0, $0 == id ? "edited" : "r\($0)") })
    }
  }

  @Test("mutating through subscript(id:) happens in place: no copy of the storage or the element", arguments: [5, 100])
  func keyedModifyInPlace(size: Int) {
    var array = IdentifiedArrayOf<Model>(uniqueElements: (0..<size).map { Model($0, values: [$0]) })
    array[id: 1]?.values.reserveCapacity(16)
    let elementStorage = array._elementStorageIdentity
    let idStorage = array._idStorageIdentity
    let valuesStorage = array[1].values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }

    array[id: 1]?.count += 1
    array[id: 1]?.values.append(99)

    array._checkInvariants()
    #expect(array._elementStorageIdentity == elementStorage)
    #expect(array._idStorageIdentity == idStorage)
    // An element copied while it was yielded would have forced its inner array to copy on append.
    #expect(array[1].values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } == valuesStorage)
    #expect(array[1].count == 1)
    #expect(array[1].values == [1, 99])
    #expect(array.idList == Array(0..<size))
  }

  @Test("mutating through subscript(position:) happens in place: no copy of the storage or the element")
  func positionalModifyInPlace() {
    var array = IdentifiedArrayOf<Model>(uniqueElements: (0..<20).map { Model($0, values: [$0]) })
    array[3].values.reserveCapacity(16)
    let elementStorage = array._elementStorageIdentity
    let idStorage = array._idStorageIdentity
    let valuesStorage = array[3].values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }

    array[3].count += 1
    array[3].values.append(99)

    array._checkInvariants()
    #expect(array._elementStorageIdentity == elementStorage)
    #expect(array._idStorageIdentity == idStorage)
    #expect(array[3].values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } == valuesStorage)
    #expect(array[3].values == [3, 99])
  }

  @Test("mutating a copy through subscript(id:) leaves the original untouched")
  func keyedModifyCopyOnWrite() {
    let original = rows(0..<5)
    var copy = original
    copy[id: 2]?.title = "edited"
    #expect(original[id: 2]?.title == "r2")
    #expect(copy[id: 2]?.title == "edited")
    #expect(original._elementStorageIdentity != copy._elementStorageIdentity)
  }

  @Test(
    "setting the optional to nil inside a subscript(id:) mutation removes the element, keeping the order",
    arguments: [5, 100])
  func keyedModifyRemoves(size: Int) {
    for id in [0, size / 2, size - 1] {
      var array = rows(0..<size)
      mutate(&array[id: id]) { $0 = nil }
      array._checkInvariants()
      #expect(array.idList == Array(0..<size).filter { $0 != id })
    }
  }

  @Test("assigning a value inside a subscript(id:) mutation of an absent id appends it")
  func keyedModifyAppends() {
    var array = rows(0..<3)
    mutate(&array[id: 4]) { $0 = Row(4, "four") }
    mutate(&array[id: 5]) { _ in }
    array._checkInvariants()
    #expect(array.idList == [0, 1, 2, 4])
  }

  @Test("a subscript(id:) mutation abandoned by an error puts the element back in place")
  func keyedModifyThrows() {
    struct Abandoned: Error {}
    var array = models(0..<20)
    let elementStorage = array._elementStorageIdentity
    #expect(throws: Abandoned.self) {
      try mutate(&array[id: 4]) {
        $0?.count = 7
        throw Abandoned()
      }
    }
    array._checkInvariants()
    #expect(array.idList == Array(0..<20))
    #expect(array[4].count == 7)
    #expect(array._elementStorageIdentity == elementStorage)
  }

  @Test("subscript(position:) reads and replaces the element at an index")
  func positionalGetSet() {
    var array = rows(0..<3)
    #expect(array[1] == Row(1, "r1"))
    array[1] = Row(1, "new")
    array[2].title += "!"
    array._checkInvariants()
    #expect(array.elements == [Row(0, "r0"), Row(1, "new"), Row(2, "r2!")])
  }

  @Test("replacing an element with another id through subscript(position:) stops the program, naming both ids")
  func positionalSetWrongID() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = rows(0..<3)
      array[1] = Row(9)
    }
    #expect(standardError(of: result).contains("IdentifiedArray[1] cannot change an element's id from 1 to 9"))
  }

  @Test("changing the id while mutating through subscript(position:) stops the program, naming both ids")
  func positionalModifyWrongID() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = rows(0..<3)
      array[2].id = 4
    }
    #expect(standardError(of: result).contains("IdentifiedArray[2] cannot change an element's id from 2 to 4"))
  }

  // The standard library's own bounds check traps without a message in optimized builds; the
  // subscript checks first, so the message names the index and the bounds in every build.
  @Test("reading subscript(position:) past the end stops the program, naming the index and the bounds")
  func positionalGetOutOfBounds() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let array = rows(0..<3)
      _ = array[3]
    }
    #expect(standardError(of: result).contains("IdentifiedArray index 3 is out of bounds 0..<3"))
  }

  @Test("reading subscript(position:) at a negative index stops the program, naming the index and the bounds")
  func positionalGetNegative() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let array = rows(0..<2)
      _ = array[-1]
    }
    #expect(standardError(of: result).contains("IdentifiedArray index -1 is out of bounds 0..<2"))
  }

  @Test("assigning through subscript(position:) out of bounds stops the program, naming the index and the bounds")
  func positionalSetOutOfBounds() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = rows(0..<3)
      array[5] = Row(5)
    }
    #expect(standardError(of: result).contains("IdentifiedArray index 5 is out of bounds 0..<3"))
  }

  @Test("mutating through subscript(position:) out of bounds stops the program, naming the index and the bounds")
  func positionalModifyOutOfBounds() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = rows(0..<3)
      array[3].title += "!"
    }
    #expect(standardError(of: result).contains("IdentifiedArray index 3 is out of bounds 0..<3"))
  }

  @Test("subscript(position:) out of bounds on an empty array stops the program, naming the empty bounds")
  func positionalEmpty() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var array = IdentifiedArrayOf<Model>()
      mutate(&array[0]) { $0.count += 1 }
    }
    #expect(standardError(of: result).contains("IdentifiedArray index 0 is out of bounds 0..<0"))
    #expect(IdentifiedArrayOf<Row>._positionMessage(7, count: 2) == "IdentifiedArray index 7 is out of bounds 0..<2")
  }

  @Test("the id-change message names both ids as they would be debug-printed")
  func idChangeMessage() {
    #expect(
      IdentifiedArray<String, Row>._idChangeMessage(from: "a", to: "b", in: "IdentifiedArray[0]")
        == #"IdentifiedArray[0] cannot change an element's id from "a" to "b""#
    )
  }
}
