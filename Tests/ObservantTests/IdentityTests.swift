import Observant
import Testing

/// Enum state: identity by case, then by the payload's own rule.
enum Destination: IdentityComparable {
  case detail(Child)
  case edit(Child)
  case alert(String)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case let (.detail(lhs), .detail(rhs)), let (.edit(lhs), .edit(rhs)): Observant.isIdentityEqual(lhs, rhs)
    case let (.alert(lhs), .alert(rhs)): lhs == rhs
    default: false
    }
  }
}

final class Screen: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var destination: Destination? = nil
}

@Suite("Identity equality")
struct IdentityTests {
  @Test("ObservableState: identity-equal when the ids are equal, whatever the fields")
  func observableState() {
    let child = Child()
    var copy = child
    copy.count = 99
    #expect(isIdentityEqual(child, copy))
    #expect(!isIdentityEqual(child, Child()))
  }

  @Test("Optional<ObservableState>: both nil, or the same id")
  func optionalState() {
    let child = Child()
    #expect(isIdentityEqual(Child?.none, Child?.none))
    #expect(isIdentityEqual(Optional(child), Optional(child)))
    #expect(!isIdentityEqual(Optional(child), nil))
    #expect(!isIdentityEqual(Optional(child), Optional(Child())))
  }

  @Test("IdentifiedArray of ObservableState: same elements by id in the same order, in O(1)")
  func identifiedArray() {
    let rows: IdentifiedArrayOf<Row> = [Row(id: 1), Row(id: 2)]
    var mutated = rows
    mutated[id: 1]?.count += 1
    #expect(isIdentityEqual(rows, mutated))
    var appended = rows
    appended.append(Row(id: 3))
    #expect(!isIdentityEqual(rows, appended))
    var replaced = rows
    replaced[id: 1] = Row(id: 1)
    #expect(!isIdentityEqual(rows, replaced))
    var moved = rows
    moved.move(fromOffsets: [1], toOffset: 0)
    #expect(!isIdentityEqual(rows, moved))
  }

  @Test("a collection of ObservableState: same count and pairwise same ids")
  func collectionOfState() {
    let rows = [Row(id: 1), Row(id: 2)]
    var mutated = rows
    mutated[0].count += 1
    #expect(isIdentityEqual(rows, mutated))
    #expect(!isIdentityEqual(rows, Array(rows.reversed())))
    #expect(!isIdentityEqual(rows, [rows[0]]))
    #expect(isIdentityEqual(ContiguousArray(rows), ContiguousArray(mutated)))
    #expect(isIdentityEqual(rows[...], mutated[...]))
  }

  @Test("enum state: same case, payload by its own rule; Equatable payloads by ==")
  func enumState() {
    let child = Child()
    #expect(isIdentityEqual(Destination.detail(child), .detail(child)))
    #expect(!isIdentityEqual(Destination.detail(child), .edit(child)))  // same payload, another case
    #expect(!isIdentityEqual(Destination.detail(child), .detail(Child())))
    #expect(isIdentityEqual(Destination.alert("a"), .alert("a")))
    #expect(!isIdentityEqual(Destination.alert("a"), .alert("b")))
  }

  @Test("anything else is never identity-equal")
  func anythingElse() {
    #expect(!isIdentityEqual(1, 1))
    #expect(!isIdentityEqual("a", "a"))
    #expect(!isIdentityEqual([1], [1]))
  }

  @Test("generic code gets the same answers from the runtime fallback")
  func runtimeFallback() {
    func generic<T>(_ lhs: T, _ rhs: T) -> Bool { isIdentityEqual(lhs, rhs) }
    let child = Child()
    var copy = child
    copy.count = 1
    #expect(generic(child, copy))
    #expect(!generic(child, Child()))
    #expect(generic(Optional(child), Optional(copy)))
    #expect(!generic(Optional(child), nil))
    let rows: IdentifiedArrayOf<Row> = [Row(id: 1)]
    var mutated = rows
    mutated[id: 1]?.count = 5
    #expect(generic(rows, mutated))
    #expect(generic([child], [copy]))
    #expect(generic(Destination.detail(child), .detail(copy)))
    #expect(!generic(Destination.detail(child), .edit(child)))
    #expect(!generic(1, 1))
  }

  @Test("an enum slot notifies when the case changes, even to the same payload")
  func enumSlotNotifications() {
    let screen = Screen()
    let child = Child()
    screen.destination = .detail(child)
    let (caseChange, _) = observe { _ = screen.destination }
    screen.destination = .detail(child)
    #expect(caseChange.value == 0)
    screen.destination = .edit(child)
    #expect(caseChange.value == 1)

    let (alerts, _) = observe { _ = screen.destination }
    screen.destination = .alert("x")
    screen.destination = .alert("x")
    #expect(alerts.value == 1)
  }
}
