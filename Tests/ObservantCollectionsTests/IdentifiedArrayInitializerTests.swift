@testable import ObservantCollections
import Testing

@Suite("IdentifiedArray initializers")
struct IdentifiedArrayInitializerTests {
  @Test("init(uniqueElements:) keeps the elements in order", arguments: [0, 5, 100])
  func uniqueElements(size: Int) {
    let array = rows(0..<size)
    array._checkInvariants()
    #expect(array.idList == Array(0..<size))
    #expect(array.elements.map(\.title) == (0..<size).map { "r\($0)" })
  }

  @Test("init(uniqueElements:) stops the program on a duplicate id, naming it")
  func uniqueElementsDuplicate() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = IdentifiedArrayOf<Row>(uniqueElements: [Row(1), Row(2), Row(1)])
    }
    #expect(standardError(of: result).contains("Duplicate id 1 in IdentifiedArray(uniqueElements:)"))
  }

  @Test("an array literal stops the program on a duplicate id, naming it")
  func arrayLiteralDuplicate() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let array: IdentifiedArrayOf<Row> = [Row(7), Row(8), Row(7)]
      _ = array
    }
    #expect(standardError(of: result).contains("Duplicate id 7 in IdentifiedArray array literal"))
  }

  @Test("the duplicate-id message names the id as it would be debug-printed")
  func duplicateMessage() {
    #expect(
      IdentifiedArray<String, Row>._duplicateIDMessage("a", in: "IdentifiedArray(uniqueElements:)")
        == #"Duplicate id "a" in IdentifiedArray(uniqueElements:)"#
    )
  }

  @Test("an array literal builds the array in order")
  func arrayLiteral() {
    let array: IdentifiedArrayOf<Row> = [Row(3, "c"), Row(1, "a")]
    array._checkInvariants()
    #expect(array.idList == [3, 1])
  }

  @Test("init(keepingFirstOf:) keeps the first element of each id and never stops the program")
  func keepingFirst() {
    let array = IdentifiedArrayOf<Row>(keepingFirstOf: [Row(1, "first"), Row(2, "b"), Row(1, "second")])
    array._checkInvariants()
    #expect(array.elements == [Row(1, "first"), Row(2, "b")])
  }

  @Test("init(_:uniquingIDsWith:) merges duplicates into the first element's position")
  func merging() {
    let array = IdentifiedArrayOf<Row>([Row(1, "a"), Row(2, "b"), Row(1, "c"), Row(1, "d")]) { old, new in
      Row(old.id, old.title + new.title)
    }
    array._checkInvariants()
    #expect(array.elements == [Row(1, "acd"), Row(2, "b")])
  }

  @Test("init(_:uniquingIDsWith:) passes on the error the merge throws")
  func mergingThrows() {
    struct MergeRefused: Error {}
    #expect(throws: MergeRefused.self) {
      _ = try IdentifiedArrayOf<Row>([Row(1), Row(1)]) { _, _ in throw MergeRefused() }
    }
  }

  @Test("init(_:uniquingIDsWith:) stops the program if the merge changes the id, naming both ids")
  func mergingChangesID() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = IdentifiedArrayOf<Row>([Row(1), Row(1)]) { _, _ in Row(2) }
    }
    #expect(
      standardError(of: result).contains(
        "IdentifiedArray(_:id:uniquingIDsWith:) merged elements with id 1 into an element with id 2"
      )
    )
  }

  @Test("the invariant check stops the program when unchecked elements repeat an id")
  func invariantsCatchDuplicates() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      IdentifiedArrayOf<Row>(uncheckedUniqueElements: (0..<40).map { Row($0 % 30) })._checkInvariants()
    }
    #expect(standardError(of: result).contains("OrderedSet index maps"))
  }

  @Test("init(uncheckedUniqueElements:) keeps the elements as given")
  func unchecked() {
    let array = IdentifiedArrayOf<Row>(uncheckedUniqueElements: [Row(2), Row(1)])
    array._checkInvariants()
    #expect(array.idList == [2, 1])
  }

  @Test("a custom id extractor identifies elements by any property")
  func customID() {
    var byTitle = IdentifiedArray<String, Row>(id: \.title)
    byTitle.append(Row(1, "x"))
    byTitle.append(Row(2, "y"))
    byTitle.append(Row(3, "x"))
    byTitle._checkInvariants()
    #expect(byTitle.idList == ["x", "y"])
    #expect(byTitle[id: "y"] == Row(2, "y"))

    let merged = IdentifiedArray([Row(1, "x"), Row(2, "x")], id: \.title) { old, _ in old }
    #expect(merged.elements == [Row(1, "x")])
    let kept = IdentifiedArray(keepingFirstOf: [Row(1, "x"), Row(2, "x")], id: \.title)
    #expect(kept.elements == [Row(1, "x")])
    let unique = IdentifiedArray(uniqueElements: [Row(1, "x"), Row(1, "y")], id: \.title)
    #expect(unique.idList == ["x", "y"])
  }

  @Test("an empty array has no elements and no ids")
  func empty() {
    let array = IdentifiedArrayOf<Row>()
    array._checkInvariants()
    #expect(array.isEmpty)
    #expect(array.ids.isEmpty)
    #expect(array[id: 1] == nil)
  }

  @Test("the array is a random-access collection with Int indices from zero")
  func collection() {
    let array = rows([10, 20, 30])
    #expect(array.startIndex == 0)
    #expect(array.endIndex == 3)
    #expect(array.indices == 0..<3)
    #expect(array.count == 3)
    #expect(array.index(after: 0) == 1)
    #expect(array.index(before: 2) == 1)
    #expect(array.map(\.id) == [10, 20, 30])
    #expect(array.first(where: { $0.id > 15 })?.id == 20)
    #expect(array[1...].map(\.id) == [20, 30])
    #expect(array.index(id: 30) == 2)
    #expect(array.index(id: 40) == nil)
    #expect(array.withContiguousStorageIfAvailable { $0.count } == 3)
  }

  @Test("elements and ids share the array's storage")
  func elementsShareStorage() {
    let array = rows(0..<50)
    #expect(
      array.elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } == array._elementStorageIdentity)
    #expect(array.ids._storageIdentity == array._idStorageIdentity)
  }
}
