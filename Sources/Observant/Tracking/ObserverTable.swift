/// The observers of one registrar, grouped by field. Guarded by the registrar's mutex.
///
/// Lookups go by key-path object identity: an accessor's literal is usually one object, so the
/// common case is a pointer comparison (a linear scan while the object has few observed fields, a
/// hash of the pointer beyond that). Equal key paths that are distinct objects (literals in
/// different modules, or one literal inlined into several functions of an optimized build) are
/// resolved once with `==` and remembered as aliases; a key path with no observers is remembered
/// as a miss until a new field gets observers, so writes to unobserved fields of an observed
/// object do not compare key paths repeatedly.
///
/// Slots are never removed (an object has a bounded number of fields), which keeps slot indices
/// stable. Within a slot, observers are kept in an array for cheap snapshots and notification;
/// past a few entries a position index makes removal O(1).
internal struct ObserverTable {
  struct Slot {
    let key: FieldKey
    var observers: ContiguousArray<TrackingObserver> = []
    /// Position of each observer in `observers`, maintained once the slot is large.
    var positions: [ObjectIdentifier: Int] = [:]
    /// Extra installs of an observer already present (the same field reached through two
    /// distinct key path objects); removal consumes these first.
    var duplicates: [ObjectIdentifier: Int] = [:]

    static var indexedThreshold: Int { 16 }

    func position(of observer: TrackingObserver) -> Int? {
      if !positions.isEmpty { return positions[ObjectIdentifier(observer)] }
      return observers.firstIndex { $0 === observer }
    }

    /// Returns whether the observer was new to this slot.
    mutating func add(_ observer: TrackingObserver) {
      if position(of: observer) != nil {
        duplicates[ObjectIdentifier(observer), default: 0] += 1
        return
      }
      observers.append(observer)
      if !positions.isEmpty {
        positions[ObjectIdentifier(observer)] = observers.count - 1
      } else if observers.count > Self.indexedThreshold {
        for (position, observer) in observers.enumerated() { positions[ObjectIdentifier(observer)] = position }
      }
    }

    /// Returns whether an entry was removed.
    mutating func remove(_ observer: TrackingObserver) -> Bool {
      let id = ObjectIdentifier(observer)
      if let extra = duplicates[id] {
        duplicates[id] = extra > 1 ? extra - 1 : nil
        return true
      }
      guard let position = position(of: observer) else { return false }
      let last = observers.count - 1
      if position != last {
        observers.swapAt(position, last)
        if !positions.isEmpty { positions[ObjectIdentifier(observers[position])] = position }
      }
      observers.removeLast()
      if !positions.isEmpty {
        positions[id] = nil
        if observers.count <= Self.indexedThreshold / 2 { positions = [:] }
      }
      return true
    }
  }

  private(set) var slots: ContiguousArray<Slot> = []
  /// Key path object identity → slot, for aliases and once there are many slots.
  private var slotByIdentity: [UInt: Int] = [:]
  /// Alias key paths, held so their identities stay valid while mapped.
  private var aliasKeys: [FieldKey] = []
  /// Key path objects known to have no slot (held for the same reason).
  private var misses: [UInt: FieldKey] = [:]
  private(set) var observerCount = 0

  private static var scanThreshold: Int { 8 }
  private static var missCacheLimit: Int { 64 }

  /// The slot for `key`, resolving aliases.
  mutating func slotIndex(for key: FieldKey) -> Int? {
    let identity = key.identity
    if slots.count <= Self.scanThreshold {
      if let index = slots.firstIndex(where: { $0.key.isSameObject(as: key) }) { return index }
    }
    if let index = slotByIdentity[identity] { return index }
    if misses[identity] != nil { return nil }
    if let index = slots.firstIndex(where: { $0.key.isEqual(to: key) }) {
      slotByIdentity[identity] = index
      aliasKeys.append(key)
      return index
    }
    if misses.count >= Self.missCacheLimit { misses.removeAll(keepingCapacity: true) }
    misses[identity] = key
    return nil
  }

  mutating func add(_ observer: TrackingObserver, for key: FieldKey) {
    let index: Int
    if let existing = slotIndex(for: key) {
      index = existing
    } else {
      slots.append(Slot(key: key))
      index = slots.count - 1
      misses.removeAll(keepingCapacity: true)  // one of them may be an alias of the new slot
      if slots.count > Self.scanThreshold {
        if slots.count == Self.scanThreshold + 1 {
          for (position, slot) in slots.enumerated() { slotByIdentity[slot.key.identity] = position }
        } else {
          slotByIdentity[key.identity] = index
        }
      }
    }
    slots[index].add(observer)
    observerCount += 1
  }

  /// Removes one entry of `observer` under `key`; a missing entry is not an error (an observer that
  /// fired concurrently may already have removed itself).
  mutating func remove(_ observer: TrackingObserver, for key: FieldKey) {
    guard let index = slotIndex(for: key), slots[index].remove(observer) else { return }
    observerCount -= 1
  }

  /// The observers of `key` at this moment (sharing the slot's storage: no copy is made unless
  /// the slot changes while the snapshot is alive).
  ///
  /// Also returns the slot's own key: the one identity under which a transaction records writes
  /// of this field, whichever equal key path object the writer used.
  mutating func observers(of key: FieldKey) -> (observers: ObserverSnapshot, key: FieldKey) {
    guard let index = slotIndex(for: key) else { return (.none, key) }
    let observers = slots[index].observers
    switch observers.count {
    case 0: return (.none, key)
    case 1: return (.one(observers[0]), slots[index].key)
    default: return (.many(observers), slots[index].key)
    }
  }

  /// All observers, for notifications that concern every field.
  func allObservers() -> ContiguousArray<TrackingObserver> {
    var all = ContiguousArray<TrackingObserver>()
    for slot in slots { all.append(contentsOf: slot.observers) }
    return all
  }
}

/// Observers copied out of the table so they can be called without holding the lock. The common
/// single-observer case needs no array.
internal enum ObserverSnapshot {
  case none
  case one(TrackingObserver)
  case many(ContiguousArray<TrackingObserver>)

  var isEmpty: Bool {
    if case .none = self { return true }
    return false
  }

  func forEach(_ body: (TrackingObserver) -> Void) {
    switch self {
    case .none: break
    case .one(let observer): body(observer)
    case .many(let observers): observers.forEach(body)
    }
  }
}
