import Synchronization

/// How the runtime identifies a field within one registrar: by the property itself.
///
/// - A stored property of a class (`@Tracked`): its byte offset in the object (tag 1). The compiler
///   hands `@Tracked` key paths as arguments it would build on every access, so the wrapper never
///   uses them; the storage address is folded to a constant offset instead.
/// - A field of a value type (`ObservableState`): its name, which the accessors pass as `#function`
///   (tag 2). Names are interned: the same name from two modules (string literals inlined into
///   another module may be separate copies) is the same key.
/// - A field the runtime keeps for its own owners, such as a store's identity (tag 3).
///
/// The raw value 0 is "not resolved yet": a value-type read passes only its name, and the recorder
/// interns it the first time it meets the read.
@usableFromInline
internal struct FieldKey: Hashable, Sendable {
  @usableFromInline let rawValue: UInt

  @inlinable
  init(rawValue: UInt) { self.rawValue = rawValue }

  /// A `@Tracked` field: its storage offset.
  @inlinable
  init(storedPropertyOffset offset: Int) {
    rawValue = UInt(bitPattern: offset) << 2 | 1
  }

  /// A field of the runtime's own (a store's identity slot, a collection's ids, a derived value).
  @inlinable
  init(internalField number: Int) {
    rawValue = UInt(bitPattern: number) << 2 | 3
  }

  /// A value-type field whose name is interned on first use (see `FieldNames`).
  @inlinable
  static var unresolved: FieldKey { FieldKey(rawValue: 0) }

  @inlinable
  var isResolved: Bool { rawValue != 0 }

  /// The byte offset of a `@Tracked` field's storage, if this is one.
  var storedPropertyOffset: Int? {
    rawValue & 3 == 1 ? Int(bitPattern: rawValue >> 2) : nil
  }
}

/// Interned field names: `#function` inside an accessor is the property's name, one string literal
/// per accessor (and per module an accessor is inlined into). The key of a name is the same for
/// every literal with that text.
///
/// Lookups go through a lock-free cache keyed by the literal's address, so a name costs a string
/// comparison once per literal, not once per read.
internal enum FieldNames {
  private static var cacheSize: Int { 1024 }
  nonisolated(unsafe) private static let cacheAddresses = makeCache()
  nonisolated(unsafe) private static let cacheKeys = makeCache()
  private static let table = Mutex<(keys: [String: UInt], texts: [UInt: String])>(([:], [:]))

  private static func makeCache() -> UnsafeMutablePointer<Atomic<UInt>> {
    let cache = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: cacheSize)
    for index in 0..<cacheSize { (cache + index).initialize(to: Atomic(0)) }
    return cache
  }

  /// The key of the field called `name`.
  static func key(for name: StaticString) -> FieldKey {
    let address =
      name.hasPointerRepresentation ? UInt(bitPattern: name.utf8Start) : UInt(name.unicodeScalar.value) << 1 | 1
    let slot = Int(truncatingIfNeeded: (address >> 3) ^ (address >> 11)) & (cacheSize - 1)
    // The key word repeats the address's low bits, so a reader that catches two writers racing on
    // one slot notices the mismatch (as in `_TypeTraits`).
    let stored = cacheKeys[slot].load(ordering: .acquiring)
    if cacheAddresses[slot].load(ordering: .acquiring) == address, stored & 0xFFFF == address & 0xFFFF {
      return FieldKey(rawValue: stored >> 16)
    }
    let text = name.description
    let key = table.withLock { table -> UInt in
      if let existing = table.keys[text] { return existing }
      let made = UInt(table.keys.count + 1) << 2 | 2
      table.keys[text] = made
      table.texts[made] = text
      return made
    }
    cacheKeys[slot].store(key << 16 | address & 0xFFFF, ordering: .releasing)
    cacheAddresses[slot].store(address, ordering: .releasing)
    return FieldKey(rawValue: key)
  }

  /// The name interned under `key`, if it is a name's key (for printing).
  static func text(for key: FieldKey) -> String? {
    table.withLock { $0.texts[key.rawValue] }
  }
}
