import Dispatch
import Synchronization
import Testing

@testable import Observant

// The cache of field names by literal address (`FieldNames`): a wrong key for an address is a
// missed update (a write announced under one key, read under another), so the cache must never
// pair one literal's address with another literal's key, also while threads overwrite one slot.

@Suite("Field name cache")
struct FieldNameCacheTests {
  /// Addresses that share a cache slot and their low 21 bits (the earlier cache checked only the
  /// low 16 bits of an address against the key it read).
  private static let colliding: [UInt] = (0..<4).map { 0x5500_0000_0000 + UInt($0) << 21 | 0x1234 }

  @Test("literals whose addresses share a cache slot get their own keys, also while threads race on the slot")
  func collidingLiteralsUnderContention() {
    let texts = Self.colliding.indices.map { "fieldNameCacheTest\($0)" }
    let expected = zip(Self.colliding, texts).map { FieldNames.key(address: $0, text: $1) }
    #expect(Set(expected).count == texts.count)
    for (key, text) in zip(expected, texts) { #expect(FieldNames.text(for: key) == text) }

    let wrong = Atomic<Int>(0)
    let threads = 4
    let iterations = 100_000
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      var mismatches = 0
      for iteration in 0..<iterations {
        // Even threads read one literal over and over (cache hits, while the slot holds it); odd
        // threads keep storing the other literals' entries into the same slot (misses), so that
        // hits race with the stores of writers. (The earlier two-word cache failed this about
        // once in a million calls on two cores: a reader between a writer's two stores.)
        let which = thread.isMultiple(of: 2) ? 0 : 1 + iteration % (Self.colliding.count - 1)
        if FieldNames.key(address: Self.colliding[which], text: texts[which]) != expected[which] { mismatches += 1 }
      }
      wrong.add(mismatches, ordering: .relaxed)
    }
    #expect(wrong.load(ordering: .relaxed) == 0)
  }

  @Test("an address the cache cannot hold is looked up every time, with the same key")
  func uncachedAddress() {
    let address: UInt = 1 << 60 | 0x40
    let first = FieldNames.key(address: address, text: "fieldNameCacheTestUncached")
    let second = FieldNames.key(address: address, text: "fieldNameCacheTestUncached")
    #expect(first == second)
    #expect(FieldNames.text(for: first) == "fieldNameCacheTestUncached")
  }

  @Test("the same name from two literals is one key")
  func sameNameTwoLiterals() {
    let one = FieldNames.key(address: 0x5600_0000_0100, text: "fieldNameCacheTestShared")
    let other = FieldNames.key(address: 0x5600_0000_0900, text: "fieldNameCacheTestShared")
    #expect(one == other)
  }
}
