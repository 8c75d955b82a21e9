import Observant
import ObservantHarness
import ObservantStore
import ObservantTestSupport
import Testing

// The Observant side of the article "Migrating from TCA's @ObservableState"
// (MigratingFromObservableState.md), verbatim (`ArticleCodeTests` checks it); the TCA side is not
// compiled (this package depends on nothing). The tests check what the article says the port does.

enum Message {
  // swift-format-ignore
  struct State: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int

    private var _subject: StateField<String>
    var subject: String { get { registrar.read(_subject) } set { registrar.write(&_subject, newValue) } }

    private var _isRead = StateField(false)
    var isRead: Bool { get { registrar.read(_isRead) } set { registrar.write(&_isRead, newValue) } }

    init(id: Int, subject: String) {
      self.id = id
      _subject = StateField(subject)
    }
  }

  enum Action: Sendable {
    case toggleRead
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .toggleRead:
      state.isRead.toggle()
      return .none
    }
  }
}

struct InboxClient: Sendable {
  var fetch: @Sendable () async -> [Message.State]
}

enum Inbox {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _messages = StateField<IdentifiedArrayOf<Message.State>>([])
    var messages: IdentifiedArrayOf<Message.State> {
      get { registrar.read(_messages) } set { registrar.write(&_messages, newValue) }
      _modify { yield &self[tracking: \._messages] }
    }

    private var _detail = StateField<Message.State?>(nil)
    var detail: Message.State? {
      get { registrar.read(_detail) } set { registrar.write(&_detail, newValue) }
      _modify { yield &self[tracking: \._detail] }
    }

    private var _isLoading = StateField(false)
    var isLoading: Bool { get { registrar.read(_isLoading) } set { registrar.write(&_isLoading, newValue) } }
  }

  enum Action: Sendable {
    case message(id: Int, action: Message.Action)
    case detail(Message.Action)
    case refresh
    case loaded([Message.State])
    case open(id: Int)
    case dismissDetail
  }

  static func reducer(client: InboxClient) -> (inout State, Action) -> Effect<Action> {
    { state, action in
      switch action {
      case .message(let id, let action):
        guard state.messages[id: id] != nil else { return .none }
        return Message.reduce(&state.messages[id: id]!, action).map { Action.message(id: id, action: $0) }
      case .detail(let action):
        guard state.detail != nil else { return .none }
        return Message.reduce(&state.detail!, action).map(Action.detail)
      case .refresh:
        state.isLoading = true
        return .run { send in
          await send(.loaded(await client.fetch()))
        }
      case .loaded(let messages):
        state.isLoading = false
        state.messages = IdentifiedArray(uniqueElements: messages)
        return .none
      case .open(let id):
        state.detail = state.messages[id: id]
        return .none
      case .dismissDetail:
        state.detail = nil
        return .none
      }
    }
  }
}

@MainActor
@Suite("Article: Migrating from TCA's @ObservableState")
struct TCAMigrationArticle {
  static let client = InboxClient(fetch: {
    [
      Message.State(id: 1, subject: "Welcome"), Message.State(id: 2, subject: "Invoice"),
      Message.State(id: 3, subject: "Lunch?"),
    ]
  })

  /// Sends `.refresh` and waits for the `.run` effect to send `.loaded` back.
  static func loadedStore() async -> Store<Inbox.State, Inbox.Action> {
    let store = Store(initialState: Inbox.State(), reducer: Inbox.reducer(client: client))
    store.send(.refresh)
    _ = await waitUntil { !store.isLoading }
    return store
  }

  @Test("the store: refresh runs the client in an effect, and loaded messages land in state")
  func refresh() async {
    let store = Store(initialState: Inbox.State(), reducer: Inbox.reducer(client: Self.client))
    store.send(.refresh)
    #expect(store.isLoading)
    _ = await waitUntil { !store.isLoading }
    #expect(!store.isLoading)
    #expect(store.messages.map(\.subject) == ["Welcome", "Invoice", "Lunch?"])
  }

  @Test("scoping: rows and the optional detail, as the article shows")
  func scoping() async {
    let client = Self.client
    let store = Store(initialState: Inbox.State(), reducer: Inbox.reducer(client: client))
    let rows = store.scope(state: \.messages, action: Inbox.Action.message)  // a StoreCollection
    let detail = store.scope(state: \.detail, action: Inbox.Action.detail)  // nil: nothing is open

    #expect(rows.isEmpty)
    #expect(detail == nil)
  }

  @Test("a list rendered from row stores: marking one message read re-runs that row only")
  func rendering() async {
    let store = await Self.loadedStore()
    let tree = RenderTree("Inbox") { inbox in
      let rows = store.scope(state: \.messages, action: Inbox.Action.message)
      inbox.text(store.isLoading ? "loading" : "\(rows.count) messages")
      inbox.forEach(rows, name: { "Message[\($0.id)]" }) { message, row in
        row.text("\(message.isRead ? " " : "•") \(message.subject)")
      }
    }
    #expect(tree.step { store.send(.message(id: 2, action: .toggleRead)) }.runs == ["Message[2]"])
    #expect(tree.output(of: "Message[2]") == "  Invoice")
    #expect(tree.step { store.send(.open(id: 1)) }.runs == [])  // nobody here reads the detail
  }

  @Test("the detail: present while open; dismissing invalidates its store, and a late send is dropped")
  func detail() async {
    let store = await Self.loadedStore()
    store.send(.open(id: 3))
    let detail = store.scope(state: \.detail, action: Inbox.Action.detail)!
    detail.send(.toggleRead)
    #expect(detail.isRead)
    #expect(store.messages[id: 3]?.isRead == false)  // the detail is a copy, as in TCA
    store.send(.dismissDetail)
    #expect(!detail.isValid)
    detail.send(.toggleRead)
    #expect(store.diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(store.scope(state: \.detail, action: Inbox.Action.detail) == nil)
  }

  @Test("adding and removing messages re-runs the list, not the remaining rows")
  func reload() async {
    let store = await Self.loadedStore()
    let rows = store.scope(state: \.messages, action: Inbox.Action.message)
    let second = rows[1]
    let secondRow = Reaction { _ = second.subject }
    let list = Reaction { _ = store.scope(state: \.messages, action: Inbox.Action.message).count }
    store.send(.loaded([Message.State(id: 1, subject: "Welcome")]))
    #expect(!second.isValid)
    #expect(secondRow.runCount == 1)
    #expect(list.runCount == 2)
  }
}
