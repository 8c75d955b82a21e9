@testable import ObservantCollections
import Testing

/// Every operation that changes an array's structure, applied to `models(0 ..< 20)`.
enum StructuralOperation: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case append, appendContents, insert, updateOrAppendNewID, updateOrAppendFreshValue
  case keyedSetFreshValue, keyedSetNewID, keyedSetNil
  case keyedModifyFreshValue, keyedModifyNil, keyedModifyNewID
  case positionalSetFreshValue, positionalModifyFreshValue
  case removeID, removeAt, removeAll, removeAllWhere, removeAtOffsets
  case swapAt, sort, moveFromOffsets, moveFromTo, reverse

  var testDescription: String { rawValue }

  func apply(to array: inout IdentifiedArrayOf<Model>) {
    switch self {
    case .append: array.append(Model(100))
    case .appendContents: array.append(contentsOf: [Model(1), Model(100)])
    case .insert: array.insert(Model(100), at: 3)
    case .updateOrAppendNewID: array.updateOrAppend(Model(100))
    case .updateOrAppendFreshValue: array.updateOrAppend(Model(4))
    case .keyedSetFreshValue: array[id: 4] = Model(4)
    case .keyedSetNewID: array[id: 100] = Model(100)
    case .keyedSetNil: array[id: 4] = nil
    case .keyedModifyFreshValue: mutate(&array[id: 4]) { $0 = Model(4) }
    case .keyedModifyNil: mutate(&array[id: 4]) { $0 = nil }
    case .keyedModifyNewID: mutate(&array[id: 100]) { $0 = Model(100) }
    case .positionalSetFreshValue: array[4] = Model(4)
    case .positionalModifyFreshValue: mutate(&array[4]) { $0 = Model(4) }
    case .removeID: array.remove(id: 4)
    case .removeAt: array.remove(at: 4)
    case .removeAll: array.removeAll()
    case .removeAllWhere: array.removeAll { $0.id.isMultiple(of: 5) }
    case .removeAtOffsets: array.remove(atOffsets: [2, 7])
    case .swapAt: array.swapAt(2, 7)
    case .sort: array.sort { $0.id > $1.id }
    case .moveFromOffsets: array.move(fromOffsets: [2, 7], toOffset: 0)
    case .moveFromTo: array.move(from: 2, to: 7)
    case .reverse: array.reverse()
    }
  }
}

/// Operations that change nothing, applied to `models(0 ..< 20)`.
enum NoOpOperation: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case appendExistingID, appendContentsOfExistingIDs, insertExistingID
  case removeMissingID, keyedSetNilForMissingID, keyedModifyMissingIDLeftNil
  case removeAllWhereNothingMatches, removeAtNoOffsets, swapAtSameIndex
  case sortSorted, moveFromOffsetsToSamePlace, moveFromToSameIndex, reserveCapacity

  var testDescription: String { rawValue }

  func apply(to array: inout IdentifiedArrayOf<Model>) {
    switch self {
    case .appendExistingID: array.append(Model(3))
    case .appendContentsOfExistingIDs: array.append(contentsOf: [Model(3), Model(4)])
    case .insertExistingID: array.insert(Model(3), at: 0)
    case .removeMissingID: array.remove(id: 100)
    case .keyedSetNilForMissingID: array[id: 100] = nil
    case .keyedModifyMissingIDLeftNil: mutate(&array[id: 100]) { _ in }
    case .removeAllWhereNothingMatches: array.removeAll { $0.id > 100 }
    case .removeAtNoOffsets: array.remove(atOffsets: [])
    case .swapAtSameIndex: array.swapAt(3, 3)
    case .sortSorted: array.sort { $0.id < $1.id }
    case .moveFromOffsetsToSamePlace: array.move(fromOffsets: [3, 4], toOffset: 5)
    case .moveFromToSameIndex: array.move(from: 3, to: 3)
    case .reserveCapacity: array.reserveCapacity(100)
    }
  }
}

@Suite("IdentifiedArray version stamps")
struct IdentifiedArrayVersionTests {
  @Test("every structural operation changes structuralVersion and version", arguments: StructuralOperation.allCases)
  func structuralOperations(operation: StructuralOperation) {
    var array = models(0..<20)
    let original = array
    operation.apply(to: &array)
    array._checkInvariants()
    #expect(array.structuralVersion != original.structuralVersion)
    #expect(array.version != original.version)
    #expect(!array.hasSameStructure(as: original))
    #expect(!array.isIdentical(to: original))
  }

  @Test("operations that change nothing keep both stamps", arguments: NoOpOperation.allCases)
  func noOpOperations(operation: NoOpOperation) {
    var array = models(0..<20)
    let original = array
    operation.apply(to: &array)
    array._checkInvariants()
    #expect(array.idList == Array(0..<20))
    #expect(array.structuralVersion == original.structuralVersion)
    #expect(array.version == original.version)
  }

  @Test("removeAll() and reverse() on arrays too small to change keep both stamps")
  func trivialNoOps() {
    var empty = IdentifiedArrayOf<Model>()
    let emptyVersion = empty.version
    empty.removeAll()
    empty.reverse()
    #expect(empty.version == emptyVersion)
    var single = models([1])
    let singleVersion = single.version
    single.reverse()
    single.sort { $0.id < $1.id }
    #expect(single.version == singleVersion)
  }

  @Test("an element mutated in place changes version but not structuralVersion")
  func inPlaceMutation() {
    var array = models(0..<20)
    var previous = array
    array[id: 3]?.count += 1
    #expect(array.version != previous.version)
    #expect(array.structuralVersion == previous.structuralVersion)

    previous = array
    array[5].values.append(1)
    #expect(array.version != previous.version)
    #expect(array.structuralVersion == previous.structuralVersion)
    #expect(array[id: 3]?.count == 1)
    #expect(array[id: 5]?.values == [1])
  }

  @Test("writing back a modified copy with the same instance identity is not structural")
  func copyMutateAssign() {
    var array = models(0..<20)
    let original = array

    var model = array[id: 3]!
    model.count += 1
    array[id: 3] = model
    #expect(array.structuralVersion == original.structuralVersion)
    #expect(array.version != original.version)

    var atPosition = array[4]
    atPosition.count += 1
    array[4] = atPosition
    var updated = array[id: 5]!
    updated.count += 1
    array.updateOrAppend(updated)
    mutate(&array[id: 6]) { $0!.count += 1 }

    array._checkInvariants()
    #expect(array.structuralVersion == original.structuralVersion)
    #expect(array.elements.map(\.count) == (0..<20).map { (3...6).contains($0) ? 1 : 0 })
  }

  @Test("replacing an element by a fresh value with the same id is structural")
  func freshValueIsStructural() {
    var array = models(0..<20)
    let original = array
    array[id: 3] = Model(3, count: 0)
    #expect(array.structuralVersion != original.structuralVersion)
    #expect(array[id: 3]?.instanceIdentity != original[id: 3]?.instanceIdentity)
  }

  @Test("for elements that are not InstanceIdentifiable, every element write is structural")
  func plainElementsAreStructural() {
    var array = rows(0..<20)
    var previous = array
    array[id: 3]?.title = "edited"
    #expect(array.structuralVersion != previous.structuralVersion)

    previous = array
    array[4].title = "edited"
    #expect(array.structuralVersion != previous.structuralVersion)

    previous = array
    array[id: 5] = Row(5, "replaced")
    #expect(array.structuralVersion != previous.structuralVersion)
    #expect(array.version == array.structuralVersion)
  }

  @Test("copies share both stamps until one is mutated")
  func copiesShareStamps() {
    let array = models(0..<5)
    var copy = array
    #expect(copy.isIdentical(to: array))
    #expect(copy.hasSameStructure(as: array))
    copy[id: 1]?.count = 5
    #expect(!copy.isIdentical(to: array))
    #expect(copy.hasSameStructure(as: array))
  }

  @Test("stamps are fresh: two copies mutated the same way get different versions")
  func stampsAreFresh() {
    let array = models(0..<5)
    var first = array
    var second = array
    first[id: 1]?.count = 5
    second[id: 1]?.count = 5
    #expect(first.version != second.version)
    first.remove(id: 2)
    second.remove(id: 2)
    #expect(first.structuralVersion != second.structuralVersion)
    #expect(first == second)
  }

  @Test("stamps stay unique when copies are mutated on many threads at once")
  func stampsUniqueUnderContention() async {
    let array = models(0..<20)
    let stamps = await withTaskGroup(of: [UInt64].self) { group in
      for task in 0..<8 {
        group.addTask {
          var copy = array
          var seen: [UInt64] = []
          for step in 0..<2_000 {
            if step.isMultiple(of: 2) {
              copy[id: task]?.count += 1
            } else {
              copy.swapAt(0, 1)
            }
            seen.append(copy.version)
          }
          return seen
        }
      }
      return await group.reduce(into: []) { $0.append(contentsOf: $1) }
    }
    #expect(stamps.count == 16_000)
    #expect(Set(stamps).count == 16_000)
    #expect(!stamps.contains(array.version))
  }

  @Test("filter that drops an element gives the result a fresh structural stamp")
  func filterGetsFreshStamps() {
    let array = models(0..<5)
    let filtered = array.filter { $0.id != 2 }
    #expect(!filtered.hasSameStructure(as: array))
    #expect(filtered.idList == [0, 1, 3, 4])
  }

  @Test("arrays created empty share one stamp; arrays created with elements get a fresh one")
  func creationStamps() {
    #expect(IdentifiedArrayOf<Model>().isIdentical(to: IdentifiedArrayOf<Model>(uniqueElements: [])))
    #expect(IdentifiedArrayOf<Model>().hasSameStructure(as: []))
    let first = rows(0..<3)
    let second = rows(0..<3)
    #expect(!first.isIdentical(to: second))
    #expect(first.version == first.structuralVersion)
  }

  @Test("the instance-identity probe reads identities only from InstanceIdentifiable elements")
  func identityProbe() {
    let array = models(0..<3)
    #expect(array._instanceIdentity(at: 2) == array[2].instanceIdentity)
    #expect(rows(0..<3)._instanceIdentity(at: 2) == nil)
  }
}
