@testable import ObservantCollections
import Foundation
import Testing

@Suite("IdentifiedArray conformances")
struct IdentifiedArrayConformanceTests {
  @Test("arrays with equal ids and elements in the same order are equal")
  func equality() {
    #expect(rows(0..<5) == rows(0..<5))
    #expect(rows(0..<5) != rows((0..<5).reversed()))
    #expect(rows(0..<5) != rows(0..<4))
    var edited = rows(0..<5)
    edited[id: 2]?.title = "x"
    #expect(edited != rows(0..<5))
  }

  @Test("unmutated copies compare equal without comparing any element")
  func equalityFastPath() {
    let counter = EqualityCounter()
    let array = IdentifiedArrayOf<Counted>(uniqueElements: (0..<100).map { Counted(id: $0, counter: counter) })
    let copy = array
    #expect(copy.isIdentical(to: array))
    #expect(copy == array)
    #expect(counter.count == 0)
  }

  @Test("arrays sharing element storage compare equal without comparing any element")
  func equalityStorageFastPath() {
    let counter = EqualityCounter()
    let array = IdentifiedArrayOf<Counted>(uniqueElements: (0..<100).map { Counted(id: $0, counter: counter) })
    let rebuilt = IdentifiedArrayOf<Counted>(uncheckedUniqueElements: array.elements)
    #expect(!rebuilt.isIdentical(to: array))
    #expect(rebuilt == array)
    #expect(counter.count == 0)
  }

  @Test("arrays built separately compare their elements")
  func equalitySlowPath() {
    let counter = EqualityCounter()
    let first = IdentifiedArrayOf<Counted>(uniqueElements: (0..<10).map { Counted(id: $0, counter: counter) })
    let second = IdentifiedArrayOf<Counted>(uniqueElements: (0..<10).map { Counted(id: $0, counter: counter) })
    #expect(first == second)
    #expect(counter.count == 10)
  }

  @Test("equal arrays hash equally")
  func hashing() {
    #expect(rows(0..<5).hashValue == rows(0..<5).hashValue)
    #expect(Set([rows(0..<3), rows(0..<3), rows([2, 1, 0])]).count == 2)
  }

  @Test("descriptions look like an array's, the debug one with the type")
  func descriptions() {
    let array: IdentifiedArrayOf<Row> = [Row(1, "a"), Row(2, "b")]
    #expect(array.description == "[Row(1, a), Row(2, b)]")
    #expect(array.debugDescription == "IdentifiedArray<Int, Row>([Row(1, a), Row(2, b)])")
    #expect(IdentifiedArrayOf<Row>().description == "[]")
    let strings = IdentifiedArray(uniqueElements: ["x", "y"], id: \.self)
    #expect(strings.description == #"["x", "y"]"#)
    #expect(strings.debugDescription == #"IdentifiedArray<String, String>(["x", "y"])"#)
  }

  @Test("the mirror shows the elements as a collection")
  func mirror() {
    let mirror = Mirror(reflecting: rows(0..<3))
    #expect(mirror.displayStyle == .collection)
    #expect(mirror.children.compactMap { ($0.value as? Row)?.id } == [0, 1, 2])
  }

  @Test("an array is Sendable when its ids and elements are")
  func sendable() async {
    let array = rows(0..<3)
    let ids = await Task.detached { array.idList }.value
    #expect(ids == [0, 1, 2])
  }
}

@Suite("Codable")
struct CodableTests {
  @Test("an identified array encodes like an array and decodes back")
  func identifiedArrayRoundTrip() throws {
    let array = rows(0..<3)
    let data = try JSONEncoder().encode(array)
    #expect(try JSONDecoder().decode([Row].self, from: data) == array.elements)
    let decoded = try JSONDecoder().decode(IdentifiedArrayOf<Row>.self, from: data)
    decoded._checkInvariants()
    #expect(decoded == array)
    #expect(!decoded.isIdentical(to: array))
    #expect(try JSONDecoder().decode(IdentifiedArrayOf<Row>.self, from: Data("[]".utf8)).isEmpty)
  }

  @Test("decoding an identified array with a duplicate id throws an error naming the id and where it is")
  func identifiedArrayDuplicate() throws {
    let data = try JSONEncoder().encode([Row(1, "a"), Row(2, "b"), Row(1, "c")])
    let error = try #require(throws: DecodingError.self) {
      try JSONDecoder().decode(IdentifiedArrayOf<Row>.self, from: data)
    }
    guard case let .dataCorrupted(context) = error else {
      Issue.record("Expected dataCorrupted, got \(error)")
      return
    }
    #expect(context.debugDescription == "Duplicate id 1 at offset 2 of an IdentifiedArray (first at offset 0)")
    #expect(context.codingPath.map(\.intValue) == [2])
  }

  @Test("an ordered set encodes like an array and decodes back")
  func orderedSetRoundTrip() throws {
    let set: OrderedSet = ["b", "a", "c"]
    let data = try JSONEncoder().encode(set)
    #expect(String(decoding: data, as: UTF8.self) == #"["b","a","c"]"#)
    let decoded = try JSONDecoder().decode(OrderedSet<String>.self, from: data)
    decoded._checkInvariants()
    #expect(decoded == set)
  }

  @Test("decoding an ordered set with a duplicate throws an error naming the duplicate and where it is")
  func orderedSetDuplicate() throws {
    let error = try #require(throws: DecodingError.self) {
      try JSONDecoder().decode(OrderedSet<String>.self, from: Data(#"["a","b","b"]"#.utf8))
    }
    guard case let .dataCorrupted(context) = error else {
      Issue.record("Expected dataCorrupted, got \(error)")
      return
    }
    #expect(context.debugDescription == #"Duplicate element "b" at offset 2 of an OrderedSet"#)
    #expect(context.codingPath.map(\.intValue) == [2])
  }
}
