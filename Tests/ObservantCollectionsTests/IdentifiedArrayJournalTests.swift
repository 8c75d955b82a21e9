import ObservantCollections
import Testing

@Suite("IdentifiedArray structural journal")
struct IdentifiedArrayJournalTests {
  private func models(_ ids: some Sequence<Int>) -> IdentifiedArrayOf<Model> {
    IdentifiedArray(uniqueElements: ids.map { Model($0) })
  }

  @Test("without recording, the journal cannot tell anything but 'no change'")
  func notRecording() {
    var array = models(1...3)
    let start = array.structuralVersion
    #expect(array.structuralChanges(since: start) == StructuralChanges())
    array.remove(id: 2)
    #expect(array.structuralChanges(since: start) == nil)
    #expect(!array.isRecordingStructuralChanges)
  }

  @Test("starting to record changes no version")
  func startingKeepsVersions() {
    var array = models(1...3)
    let (version, structure) = (array.version, array.structuralVersion)
    array.recordStructuralChanges()
    array.recordStructuralChanges()
    #expect(array.isRecordingStructuralChanges)
    #expect((array.version, array.structuralVersion) == (version, structure))
  }

  @Test("removals name the removed ids; insertions and moves name nothing")
  func removalsAndInsertions() {
    var array = models(1...6)
    array.recordStructuralChanges()
    let start = array.structuralVersion
    array.append(Model(7))
    array.move(fromOffsets: [0], toOffset: 3)
    array.remove(id: 2)
    array.remove(at: 0)
    array.removeAll { $0.id == 5 || $0.id == 6 }
    array[id: 7] = nil
    #expect(array.ids.elements == [1, 4])
    #expect(array.structuralChanges(since: start) == StructuralChanges(removed: [2, 3, 5, 6, 7]))
  }

  @Test("replacing an element by a new value names its id; mutating it in place or writing back a copy does not")
  func replacements() {
    var array = models(1...3)
    array.recordStructuralChanges()
    let start = array.structuralVersion
    array[id: 1]?.count += 1
    var copy = array[id: 2]!
    copy.count = 9
    array[id: 2] = copy
    #expect(array.structuralChanges(since: start) == StructuralChanges())
    array[id: 3] = Model(3)
    array[0] = Model(1)
    #expect(array.structuralChanges(since: start) == StructuralChanges(replaced: [3, 1]))
  }

  @Test("removeAll names every id")
  func removeAll() {
    var array = models(1...3)
    array.recordStructuralChanges()
    let start = array.structuralVersion
    array.removeAll()
    #expect(array.structuralChanges(since: start) == StructuralChanges(removed: [1, 2, 3]))
  }

  @Test("copies share the record; each follows its own lineage")
  func divergentCopies() {
    var original = models(1...4)
    original.recordStructuralChanges()
    let start = original.structuralVersion
    var copy = original
    original.remove(id: 1)
    copy.remove(id: 4)
    copy.remove(id: 3)
    #expect(original.structuralChanges(since: start) == StructuralChanges(removed: [1]))
    #expect(copy.structuralChanges(since: start) == StructuralChanges(removed: [4, 3]))
    // A version of the other lineage is not on this one's chain.
    #expect(original.structuralChanges(since: copy.structuralVersion) == nil)
  }

  @Test("changes older than the window answer nil, never a wrong list")
  func window() {
    var array = models(0..<1000)
    array.recordStructuralChanges()
    let start = array.structuralVersion
    for id in 0..<300 { array.remove(id: id) }
    #expect(array.structuralChanges(since: start) == nil)
    let recent = array.structuralVersion
    array.remove(id: 500)
    #expect(array.structuralChanges(since: recent) == StructuralChanges(removed: [500]))
  }

  @Test("a filtered copy keeps the record and names what it dropped")
  func filter() {
    var array = models(1...4)
    array.recordStructuralChanges()
    let start = array.structuralVersion
    let evens = array.filter { $0.id.isMultiple(of: 2) }
    #expect(evens.structuralChanges(since: start) == StructuralChanges(removed: [1, 3]))
  }
}

@Suite("IdentifiedArray ids version")
struct IdentifiedArrayIDsVersionTests {
  @Test("idsVersion changes when ids or their order change, not when an element is replaced or mutated")
  func idsVersion() {
    var array = IdentifiedArrayOf<Model>(uniqueElements: (1...4).map { Model($0) })
    var stamp = array.idsVersion
    array[id: 2]?.count += 1
    array[id: 3] = Model(3)  // replaced: structural, but the ids stay
    array[0] = Model(1)
    #expect(array.idsVersion == stamp)
    array.append(Model(5))
    #expect(array.idsVersion != stamp)
    stamp = array.idsVersion
    array.move(from: 0, to: 2)
    #expect(array.idsVersion != stamp)
    stamp = array.idsVersion
    array.remove(id: 4)
    #expect(array.idsVersion != stamp)
    stamp = array.idsVersion
    array.append(Model(2))  // present: nothing changes
    #expect(array.idsVersion == stamp)
  }
}
