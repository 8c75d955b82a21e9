import ObservantCollections
import Testing

@Suite("InstanceIdentity")
struct InstanceIdentityTests {
  @Test("make() returns a new, non-zero identity every time")
  func makeIsUnique() {
    let identities = (0..<10_000).map { _ in InstanceIdentity.make() }
    #expect(Set(identities).count == 10_000)
    #expect(!identities.contains(InstanceIdentity(rawValue: 0)))
  }

  @Test("make() stays unique when called from many threads at once")
  func makeIsUniqueUnderContention() async {
    let batches = await withTaskGroup(of: [InstanceIdentity].self) { group in
      for _ in 0..<8 {
        group.addTask { (0..<5_000).map { _ in InstanceIdentity.make() } }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    let all = batches.flatMap { $0 }
    #expect(all.count == 40_000)
    #expect(Set(all).count == 40_000)
  }

  @Test("copies share an identity; a new value with an equal id gets a new one")
  func copiesShareIdentity() {
    let original = Model(1)
    var copy = original
    copy.count += 1
    #expect(copy.instanceIdentity == original.instanceIdentity)
    #expect(Model(1).instanceIdentity != original.instanceIdentity)
  }

  @Test("an identity round-trips through its raw value and describes itself")
  func rawValueAndDescription() {
    let identity = InstanceIdentity(rawValue: 42)
    #expect(identity.rawValue == 42)
    #expect(InstanceIdentity(rawValue: identity.rawValue) == identity)
    #expect(identity.description == "InstanceIdentity(42)")
  }
}
