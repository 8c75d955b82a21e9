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
///
/// Each cache slot is one atomic word holding a whole entry, the literal's address and its key, so
/// a reader sees an entry exactly as one writer stored it (two words, however checked against each
/// other, can pair one writer's key with another writer's address: a wrong key, a missed update).
/// An address fits with the key because the slot already says part of it: the word keeps the
/// address's bits 0-2 and 11-47 (the slot is computed from bits 3-20, so within one slot these
/// determine the rest) beside a key of up to 24 bits. An address or a key that does not fit is
/// not cached, only looked up under the lock.
internal enum FieldNames {
  private static var cacheSize: Int { 1024 }
  nonisolated(unsafe) private static let cache: UnsafeMutablePointer<Atomic<UInt64>> = {
    let cache = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: cacheSize)
    for index in 0..<cacheSize { (cache + index).initialize(to: Atomic(0)) }
    return cache
  }()
  private static let table = Mutex<(keys: [String: UInt], texts: [UInt: String])>(([:], [:]))

  /// The bits of a cache entry that hold the address (the key is above them).
  private static var addressBits: UInt64 { 40 }

  /// The key of the field called `name`.
  static func key(for name: StaticString) -> FieldKey {
    key(address: name._literalWord, text: name.description)
  }

  /// The key of the name `text`, whose literal is at `address` (the cache's key).
  static func key(address: UInt, text: @autoclosure () -> String) -> FieldKey {
    let slot = Int(truncatingIfNeeded: (address >> 3) ^ (address >> 11)) & (cacheSize - 1)
    let entryAddress = compressed(address)
    let entry = cache[slot].load(ordering: .acquiring)
    if let entryAddress, entry & (1 << addressBits - 1) == entryAddress, entry >> addressBits != 0 {
      return FieldKey(rawValue: UInt(entry >> addressBits))
    }
    let text = text()
    let key = table.withLock { table -> UInt in
      if let existing = table.keys[text] { return existing }
      let made = UInt(table.keys.count + 1) << 2 | 2
      table.keys[text] = made
      table.texts[made] = text
      return made
    }
    if let entryAddress, UInt64(key) >> (64 - addressBits) == 0 {
      cache[slot].store(UInt64(key) << addressBits | entryAddress, ordering: .releasing)
    }
    return FieldKey(rawValue: key)
  }

  /// The address's bits 0-2 and 11-47 (see the type's documentation), or `nil` if the address has
  /// bits above 47.
  private static func compressed(_ address: UInt) -> UInt64? {
    let address = UInt64(address)
    guard address >> 48 == 0 else { return nil }
    return (address >> 11) << 3 | address & 7
  }

  /// The name interned under `key`, if it is a name's key (for printing).
  static func text(for key: FieldKey) -> String? {
    table.withLock { $0.texts[key.rawValue] }
  }
}

extension StaticString {
  /// What tells a field name's literal from another: its address, or for a literal of one scalar
  /// (which has no storage) the scalar, shifted and odd. The interning cache's key, and what the
  /// recorder compares for a field not resolved yet.
  @inlinable @inline(__always)
  var _literalWord: UInt {
    hasPointerRepresentation ? UInt(bitPattern: utf8Start) : UInt(unicodeScalar.value) << 1 | 1
  }
}
