import Synchronization

/// Cached answers to "does this type conform to …?" for the protocols change detection asks
/// about.
///
/// In specialized code a cast to a protocol the type conforms to folds away at compile time, but
/// the compiler can never prove that a type does *not* conform (a conformance could be added
/// elsewhere), so `Int.self as? any IdentityComparable.Type` stays a runtime conformance lookup:
/// several hundred instructions on every observed write of an `Int`. This table answers it in a
/// few: one relaxed load of a word that holds the type's metadata address and its flags.
///
/// Direct-mapped, lock-free: a slot holds `address | flags | computed`; a collision simply
/// recomputes and overwrites. Metadata addresses are at least 8-byte aligned, which leaves the
/// low three bits for the flags.
@usableFromInline
internal enum _TypeTraits {
  @usableFromInline static var computed: UInt { 1 }
  @usableFromInline static var identityComparable: UInt { 2 }
  @usableFromInline static var equatable: UInt { 4 }
  @usableFromInline static var inPlaceIdentity: UInt { 2 }

  private static var slotCount: Int { 512 }

  nonisolated(unsafe) private static let comparisonSlots = makeSlots()
  nonisolated(unsafe) private static let modificationSlots = makeSlots()

  private static func makeSlots() -> UnsafeMutablePointer<Atomic<UInt>> {
    let slots = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: slotCount)
    for index in 0..<slotCount { (slots + index).initialize(to: Atomic(0)) }
    return slots
  }

  /// `identityComparable` and `equatable` flags of `Value`.
  @usableFromInline
  static func comparison<Value>(of _: Value.Type) -> UInt {
    lookup(Value.self, in: comparisonSlots) {
      (Value.self is any IdentityComparable.Type ? identityComparable : 0)
        | (_EquatableProbe<Value>.self is any _EquatableProbing.Type ? equatable : 0)
    }
  }

  /// `inPlaceIdentity` flag of `Value`: an O(1) identity token exists for in-place mutation.
  @usableFromInline
  static func modification<Value>(of _: Value.Type) -> UInt {
    lookup(Value.self, in: modificationSlots) {
      Value.self is any ObservableState.Type || Value.self is any _InPlaceIdentity.Type ? inPlaceIdentity : 0
    }
  }

  private static func lookup<Value>(
    _: Value.Type, in slots: UnsafeMutablePointer<Atomic<UInt>>, compute: () -> UInt
  ) -> UInt {
    let address = UInt(bitPattern: ObjectIdentifier(Value.self))
    let slot = Int(truncatingIfNeeded: (address >> 3) ^ (address >> 12)) & (slotCount - 1)
    let stored = slots[slot].load(ordering: .relaxed)
    if stored & ~7 == address { return stored & 7 }
    let flags = compute() | computed
    slots[slot].store(address | flags, ordering: .relaxed)
    return flags
  }
}
