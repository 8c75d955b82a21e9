import Observation

// The Apple side of the scenarios, in the two ways a SwiftUI app writes it with `@Observable`:
// value types inside one observable model (the plain way), or one observable class per row or
// child feature. The plain structs also hold the state of the whole-state and diffing strategies.

/// A row as a value.
struct RowValue: Identifiable, Equatable {
  let id: Int
  var count: Int
}

/// A counter as a value.
struct CounterValue: Equatable {
  var count: Int
}

enum ValueDestination: Equatable {
  case detail(CounterValue)
  case edit(CounterValue)
}

@Observable final class AppleCounterModel {
  var count: Int
  init(count: Int = 0) { self.count = count }
}

@Observable final class AppleRowModel: Identifiable {
  let id: Int
  var count: Int
  init(id: Int, count: Int = 0) {
    self.id = id
    self.count = count
  }
}

@Observable final class AppleValueListModel {
  var rows: [RowValue]
  init(rows: [RowValue]) { self.rows = rows }
}

@Observable final class AppleClassListModel {
  var rows: [AppleRowModel]
  init(rows: [AppleRowModel]) { self.rows = rows }
}

@Observable final class AppleValueParentModel {
  var child: CounterValue? = nil
}

@Observable final class AppleClassParentModel {
  var child: AppleCounterModel? = nil
}

@Observable final class AppleValueDestinationModel {
  var destination: ValueDestination? = nil
}

/// Payloads are objects; equal when the case and the object are the same (so that writing the same
/// destination back does not notify, as an app would write it).
enum ClassDestination: Equatable {
  case detail(AppleCounterModel)
  case edit(AppleCounterModel)

  static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case let (.detail(lhs), .detail(rhs)), let (.edit(lhs), .edit(rhs)): lhs === rhs
    default: false
    }
  }
}

@Observable final class AppleClassDestinationModel {
  var destination: ClassDestination? = nil
}

@Observable final class AppleValueSiblingsModel {
  var first: CounterValue
  var second: CounterValue
  init(first: Int, second: Int) {
    self.first = CounterValue(count: first)
    self.second = CounterValue(count: second)
  }
}

@Observable final class AppleClassSiblingsModel {
  var first: AppleCounterModel
  var second: AppleCounterModel
  init(first: Int, second: Int) {
    self.first = AppleCounterModel(count: first)
    self.second = AppleCounterModel(count: second)
  }
}

/// Finds rows by id in O(1) for the strategies whose model is a plain array (an app would keep an
/// index or use an identified array; a linear search would make the scaling section measure the
/// search). Rebuilt after structural changes.
struct RowIndex {
  private var positions: [Int: Int] = [:]
  private var isStale = true

  mutating func invalidate() { isStale = true }

  mutating func position<Row: Identifiable>(of id: Int, in rows: [Row]) -> Int? where Row.ID == Int {
    if isStale {
      positions = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.id, $0) })
      isStale = false
    }
    return positions[id]
  }
}
