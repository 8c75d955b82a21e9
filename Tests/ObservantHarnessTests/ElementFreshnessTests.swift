import Observant
import ObservantHarness
import Testing

/// A `forEach` child re-run by its own reads, without its parent, must show its element as it is
/// now, not the copy its parent handed it: value-type elements are copies, and an in-place write
/// changes the collection's element, not the child's copy (they share only the registrar).
@Suite("forEach children see their current element")
struct ElementFreshnessTests {
  private func inboxTree(_ inbox: Inbox) -> RenderTree {
    RenderTree("Inbox") { screen in
      screen.forEach(inbox.messages, name: { "Message[\($0.id)]" }) { message, row in
        row.text(message.title)
      }
    }
  }

  @Test("an in-place rename re-runs only the message's child (no input overload), which shows the new title")
  func noInputInPlaceEdit() {
    let inbox = Inbox(ids: 1...3)
    let tree = inboxTree(inbox)
    #expect(tree.output(of: "Message[1]") == "r1")

    let step = tree.step("rename 1") { inbox.messages[id: 1]?.title = "edited" }
    #expect(step.runs == ["Message[1]"])
    #expect(tree.output(of: "Message[1]") == "edited")

    // Again: every later run reads the element as it is then.
    #expect(tree.step { inbox.messages[id: 1]?.title = "again" }.runs == ["Message[1]"])
    #expect(tree.output(of: "Message[1]") == "again")
    #expect(tree.runCount(of: "Inbox") == 1)
    #expect(tree.runCount(of: "Message[2]") == 1)
    // Reading the element again did not make the child depend on the collection.
    #expect(tree.step { inbox.messages.append(Message(id: 4, title: "r4")) }.runs == ["Inbox", "Message[4]"])
  }

  @Test("the explicit-id overload without input also shows the element as it is now")
  func explicitIDInPlaceEdit() {
    let inbox = Inbox(ids: 1...2)
    let tree = RenderTree("Inbox") { screen in
      screen.forEach(inbox.messages, id: \.id, name: { "Message[\($0.id)]" }) { message, row in
        row.text(message.title)
      }
    }
    #expect(tree.step { inbox.messages[id: 2]?.title = "edited" }.runs == ["Message[2]"])
    #expect(tree.output(of: "Message[2]") == "edited")
  }

  @Test("an in-place edit re-runs only the row's child (Equatable overload), which shows the new value")
  func equatableInPlaceEdit() {
    let model = ListModel(rowIDs: 1...3)
    let tree = RenderTree("List") { list in
      list.forEach(model.state.rows, name: { "Row[\($0.id)]" }) { row, context in
        context.text("Row \(row.id): \(row.count)")
      }
    }
    let step = tree.step("bump 2") { model.state.rows[id: 2]!.count += 1 }
    #expect(step.runs == ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "Row 2: 1")
    #expect(tree.step { model.state.rows[id: 2]!.count += 5 }.runs == ["Row[2]"])
    #expect(tree.output(of: "Row[2]") == "Row 2: 6")
    #expect(tree.runCount(of: "List") == 1)
  }

  @Test("a row moved and then edited in one step re-runs the list and that row once, showing the new value")
  func moveThenEdit() {
    let model = ListModel(rowIDs: 1...4)
    let tree = RenderTree("List") { list in
      list.forEach(model.state.rows, name: { "Row[\($0.id)]" }) { row, context in
        context.text("Row \(row.id): \(row.count)")
      }
    }
    let step = tree.step {
      model.state.rows.move(from: 0, to: 3)
      model.state.rows[id: 1]!.count = 9
    }
    #expect(step.runs == ["List", "Row[1]"])
    #expect(tree.output(of: "Row[1]") == "Row 1: 9")
  }

  // The collection here is not tracked: moving rows re-runs nobody, so the child's position is
  // out of date when its own read re-runs it, and it finds its element by id.
  @Test("a child whose collection changed shape without its parent re-running finds its element by id")
  func untrackedCollectionMoved() {
    final class Plain {
      var messages = IdentifiedArrayOf<Message>(uniqueElements: (1...4).map { Message(id: $0, title: "r\($0)") })
    }
    let plain = Plain()
    let tree = RenderTree("Inbox") { screen in
      screen.forEach(plain.messages, name: { "Message[\($0.id)]" }) { message, row in
        row.text(message.title)
      }
    }
    #expect(tree.step { plain.messages.move(from: 0, to: 3) }.runs.isEmpty)
    #expect(tree.step { plain.messages[id: 1]?.title = "moved" }.runs == ["Message[1]"])
    #expect(tree.output(of: "Message[1]") == "moved")
    #expect(tree.step { plain.messages[id: 4]?.title = "four" }.runs == ["Message[4]"])
    #expect(tree.output(of: "Message[4]") == "four")
  }

  // A new value has a new registrar: the child's reads of the old value will never hear of it.
  // The array reports the replacement (the list re-runs), and the element's identity changed,
  // so the list re-runs the child although it passes no input.
  @Test("a message replaced by a new value with the same id re-runs its child once (no input overload)")
  func noInputReplaced() {
    let inbox = Inbox(ids: 1...3)
    let tree = inboxTree(inbox)
    var old = inbox.messages[id: 2]!

    let step = tree.step("replace 2") { inbox.messages[id: 2] = Message(id: 2, title: "new") }
    #expect(step.runs == ["Inbox", "Message[2]"])
    #expect(tree.output(of: "Message[2]") == "new")

    // The child now follows the new value, and only it.
    #expect(tree.step { inbox.messages[id: 2]?.title = "newer" }.runs == ["Message[2]"])
    #expect(tree.output(of: "Message[2]") == "newer")
    #expect(tree.step { old.title = "old" }.runs.isEmpty)
  }

  @Test("a parent re-run that declares the same messages again re-runs no child")
  func sameMessagesDeclaredAgain() {
    let inbox = Inbox(ids: 1...3)
    let panel = Panel()
    let tree = RenderTree("Inbox") { screen in
      screen.text(panel.title)
      screen.forEach(inbox.messages, name: { "Message[\($0.id)]" }) { message, row in
        row.text(message.title)
      }
    }
    #expect(tree.step { panel.title = "Outbox" }.runs == ["Inbox"])
    #expect(tree.step { inbox.messages.move(from: 2, to: 0) }.runs == ["Inbox"])
    #expect(tree.step { inbox.messages.append(Message(id: 4, title: "r4")) }.runs == ["Inbox", "Message[4]"])
  }

  // A class instance is the element itself: its reads are current, so a child's later run does
  // not evaluate the collection again (what the store's row stores rely on: a `StoreCollection`
  // evaluated per row run would look the row up through the store each time).
  @Test("class-instance elements are not read again: a child re-run by its own reads leaves the collection alone")
  func classElementsNotReadAgain() {
    final class Item: Trackable, Identifiable, @unchecked Sendable {
      let trackingRegistrar = TrackingRegistrar()
      let id: Int
      @Tracked var title: String
      init(id: Int, title: String) {
        self.id = id
        self.title = title
      }
    }
    final class Items: @unchecked Sendable {
      var evaluations = 0
      let items = (1...3).map { Item(id: $0, title: "i\($0)") }
      var current: [Item] {
        evaluations += 1
        return items
      }
    }
    let source = Items()
    let tree = RenderTree("List") { list in
      list.forEach(source.current, name: { "Item[\($0.id)]" }) { item, row in
        row.text(item.title)
      }
    }
    #expect(source.evaluations == 1)
    #expect(tree.step { source.items[1].title = "edited" }.runs == ["Item[2]"])
    #expect(tree.output(of: "Item[2]") == "edited")
    #expect(source.evaluations == 1)
  }
}
