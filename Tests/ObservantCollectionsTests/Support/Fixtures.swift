import ObservantCollections
import Synchronization
import Testing

/// A plain identifiable row: not `InstanceIdentifiable`, so every replacement is structural.
struct Row: Identifiable, Hashable, Codable, Sendable, CustomStringConvertible {
  var id: Int
  var title: String

  init(_ id: Int, _ title: String = "") {
    self.id = id
    self.title = title
  }

  var description: String { "Row(\(id), \(title))" }
}

/// An identifiable row whose copies share an instance identity, like Observant's `ObservableState`.
struct Model: Identifiable, InstanceIdentifiable, Equatable, Sendable {
  let id: Int
  var count: Int
  var values: [Int]
  let instanceIdentity: InstanceIdentity

  init(_ id: Int, count: Int = 0, values: [Int] = []) {
    self.id = id
    self.count = count
    self.values = values
    instanceIdentity = .make()
  }
}

/// Counts calls to `==` (per counter, so tests running in parallel do not interfere).
final class EqualityCounter: Sendable {
  private let calls = Atomic<Int>(0)

  var count: Int { calls.load(ordering: .relaxed) }

  func record() { calls.add(1, ordering: .relaxed) }
}

/// An element whose `==` reports to a counter.
struct Counted: Identifiable, Hashable, Sendable {
  let id: Int
  let counter: EqualityCounter

  static func == (lhs: Counted, rhs: Counted) -> Bool {
    lhs.counter.record()
    return lhs.id == rhs.id
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(id)
  }
}

/// Rows with the given ids, titled after them.
func rows(_ ids: some Sequence<Int>) -> IdentifiedArrayOf<Row> {
  IdentifiedArray(uniqueElements: ids.map { Row($0, "r\($0)") })
}

/// Models with the given ids.
func models(_ ids: some Sequence<Int>) -> IdentifiedArrayOf<Model> {
  IdentifiedArray(uniqueElements: ids.map { Model($0) })
}

extension IdentifiedArray {
  /// The ids, as an array, for exact comparisons.
  var idList: [ID] { ids.elements }
}

/// Calls `body` with `value` as an `inout` argument: drives a subscript's `_modify` accessor.
func mutate<Value>(_ value: inout Value, _ body: (inout Value) throws -> Void) rethrows {
  try body(&value)
}

/// The text an exit test's child process wrote to standard error.
func standardError(of result: ExitTest.Result?) -> String {
  String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}

/// A small deterministic random number generator (SplitMix64), so randomized tests repeat exactly.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Set sizes on both sides of the linear-scan limit (16), so both look-up strategies are tested.
let setSizes = [0, 1, 5, 16, 17, 100, 1000]
