import Testing
import _ObservantShims

// The type-traits cache (`_TypeTraits.flags(of:)`) keeps the answers of types whose addresses hash
// to one slot side by side: two types used by one write must not evict each other on every call
// (a row action once cost three times as much for that, depending on the binary's layout).

@Suite("Type traits cache", .serialized)
struct TypeTraitsCacheTests {
  /// `count` addresses (never dereferenced, 8-aligned, far from any real metadata, from `start`)
  /// whose slot index is the same.
  private func collidingAddresses(_ count: Int, from start: UInt) -> [UInt] {
    var byIndex: [Int: [UInt]] = [:]
    var address = start
    while true {
      address += 8
      let index = Int(observant_type_traits_index(address))
      byIndex[index, default: []].append(address)
      if byIndex[index]!.count == count { return byIndex[index]! }
    }
  }

  @Test("two types whose addresses hash to one slot are both kept")
  func twoColliding() {
    let addresses = collidingAddresses(2, from: 0x7A5A_0000_0000)
    observant_type_traits_set(addresses[0], 0x101)
    observant_type_traits_set(addresses[1], 0x102)
    #expect(observant_type_traits_get(addresses[0]) == 0x101)
    #expect(observant_type_traits_get(addresses[1]) == 0x102)
    // Set again (a recomputation): the same slots, nothing evicted.
    observant_type_traits_set(addresses[0], 0x101)
    #expect(observant_type_traits_get(addresses[1]) == 0x102)
  }

  @Test("more colliding types than ways: the latest is kept, and most of the others")
  func fiveColliding() {
    let addresses = collidingAddresses(5, from: 0x7B5B_0000_0000)
    for round in 0..<3 {
      for (offset, address) in addresses.enumerated() {
        observant_type_traits_set(address, UInt32(0x200 + offset))
      }
      #expect(observant_type_traits_get(addresses[4]) == 0x204, "round \(round)")
      // Four ways, some of them possibly taken by real types: at least two of the five are kept.
      #expect(addresses.filter { observant_type_traits_get($0) != 0 }.count >= 2, "round \(round)")
    }
  }
}

@Suite("Inline value kinds cache", .serialized)
struct InlineKindCacheTests {
  @Test("types whose addresses hash to one slot each get a kind")
  func colliding() {
    var byIndex: [Int: [UInt]] = [:]
    var address: UInt = 0x7C5C_0000_0000
    var addresses: [UInt] = []
    while addresses.isEmpty {
      address += 8
      let index = Int(observant_inline_kind_index(address))
      byIndex[index, default: []].append(address)
      if byIndex[index]!.count == 2 { addresses = byIndex[index]! }
    }
    // Kinds are never dereferenced here: any non-null word stands for one.
    let kinds: [UnsafeMutableRawPointer] = [.init(bitPattern: 0x1110)!, .init(bitPattern: 0x2220)!]
    #expect(observant_inline_kind_install(addresses[0], kinds[0]) != 0)
    #expect(observant_inline_kind_install(addresses[1], kinds[1]) != 0)
    #expect(observant_inline_kind_get(addresses[0]) == kinds[0])
    #expect(observant_inline_kind_get(addresses[1]) == kinds[1])
    // A type's slot is taken once.
    #expect(observant_inline_kind_install(addresses[0], kinds[1]) == 0)
    #expect(observant_inline_kind_get(addresses[0]) == kinds[0])
  }
}
