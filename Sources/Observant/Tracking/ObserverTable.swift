/// The observers of one registrar, grouped by field. Guarded by the registrar's mutex.
///
/// Objects have few observed fields, so slots live in a small array searched by key-path object
/// identity first. Two equal key paths can be distinct objects (literals in different modules), so
/// a miss falls back to `==` and remembers the alias; that costs a comparison per slot only when an
/// observed object is written through a key path object it has not seen before.
internal struct ObserverTable {
  struct Slot {
    var key: FieldKey
    var aliases: [FieldKey] = []
    var observers: ContiguousArray<TrackingObserver> = []

    func matches(identity key: FieldKey) -> Bool {
      key.isSameObject(as: self.key) || aliases.contains { $0.isSameObject(as: key) }
    }
  }

  private(set) var slots: ContiguousArray<Slot> = []
  private(set) var observerCount = 0

  /// The slot for `key`, resolving aliases.
  mutating func slotIndex(for key: FieldKey) -> Int? {
    if let index = slots.firstIndex(where: { $0.matches(identity: key) }) { return index }
    guard let index = slots.firstIndex(where: { $0.key.isEqual(to: key) }) else { return nil }
    slots[index].aliases.append(key)
    return index
  }

  mutating func add(_ observer: TrackingObserver, for key: FieldKey) {
    if let index = slotIndex(for: key) {
      slots[index].observers.append(observer)
    } else {
      slots.append(Slot(key: key, observers: [observer]))
    }
    observerCount += 1
  }

  /// Removes one entry of `observer` under `key`; a missing entry is not an error (an observer that
  /// fired concurrently may already have removed itself).
  mutating func remove(_ observer: TrackingObserver, for key: FieldKey) {
    guard let index = slotIndex(for: key),
      let position = slots[index].observers.lastIndex(where: { $0 === observer })
    else { return }
    slots[index].observers.remove(at: position)
    observerCount -= 1
    if slots[index].observers.isEmpty { slots.remove(at: index) }
  }

  /// The observers of `key` at this moment.
  mutating func observers(of key: FieldKey) -> ObserverSnapshot {
    guard let index = slotIndex(for: key) else { return .none }
    let observers = slots[index].observers
    return observers.count == 1 ? .one(observers[0]) : .many(observers)
  }

  /// All observers, for notifications that concern every field (e.g. an object replaced as a whole).
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

  var hasDeferred: Bool {
    switch self {
    case .none: return false
    case .one(let observer): return observer.isDeferred
    case .many(let observers): return observers.contains { $0.isDeferred }
    }
  }

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
