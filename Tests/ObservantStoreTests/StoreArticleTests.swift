import Observant
import ObservantHarness
import ObservantStore
import ObservantTestSupport
import Testing

// The code of the article "Store and stale stores" (Sources/ObservantStore/ObservantStore.docc),
// verbatim: `ArticleCodeTests` fails when one of its `swift` blocks is missing here. The
// assertions after each block check what the article says, with exact counts.

enum Song {
  // swift-format-ignore
  struct State: ObservableState, Identifiable {
    var registrar = StateRegistrar<Self>()
    let id: Int

    private var _title = StateField("")
    var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

    private var _plays = StateField(0)
    var plays: Int { get { registrar.read(_plays) } set { registrar.write(&_plays, newValue) } }

    init(id: Int, title: String) {
      self.id = id
      _title = StateField(title)
    }
  }

  enum Action: Sendable {
    case play
    case rename(String)
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .play: state.plays += 1
    case .rename(let title): state.title = title
    }
    return .none
  }
}

enum Player {
  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _isPlaying = StateField(false)
    var isPlaying: Bool { get { registrar.read(_isPlaying) } set { registrar.write(&_isPlaying, newValue) } }
  }

  enum Action: Sendable { case toggle }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    state.isPlaying.toggle()
    return .none
  }
}

enum Playlist {
  /// What the playlist presents: an editor over a draft of one song, or a confirmation.
  enum Destination: IdentityComparable {
    case editor(Song.State)
    case confirmRemoval(id: Int)

    static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case let (.editor(lhs), .editor(rhs)): Observant.isIdentityEqual(lhs, rhs)
      case let (.confirmRemoval(lhs), .confirmRemoval(rhs)): lhs == rhs
      default: false
      }
    }

    /// The editor's draft, or `nil`: the path a store scopes through.
    var editor: Song.State? {
      if case .editor(let draft) = self { draft } else { nil }
    }
  }

  // swift-format-ignore
  struct State: ObservableState {
    var registrar = StateRegistrar<Self>()

    private var _player = StateField(Player.State())
    var player: Player.State {
      get { registrar.read(_player) } set { registrar.write(&_player, newValue) }
      _modify { yield &self[tracking: \._player] }
    }

    private var _songs: StateField<IdentifiedArrayOf<Song.State>>
    var songs: IdentifiedArrayOf<Song.State> {
      get { registrar.read(_songs) } set { registrar.write(&_songs, newValue) }
      _modify { yield &self[tracking: \._songs] }
    }

    private var _destination = StateField<Destination?>(nil)
    var destination: Destination? {
      get { registrar.read(_destination) } set { registrar.write(&_destination, newValue) }
    }

    init(songs: IdentifiedArrayOf<Song.State>) {
      _songs = StateField(songs)
    }
  }
}

extension Playlist {
  enum Action: Sendable {
    case player(Player.Action)
    case song(id: Int, action: Song.Action)
    case add(id: Int, title: String)
    case remove(id: Int)
    case playAll
    case edit(id: Int)
    case editor(Song.Action)
    case save
    case cancel
  }

  static func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .player(let action):
      return Player.reduce(&state.player, action).map(Action.player)
    case .song(let id, let action):
      guard state.songs[id: id] != nil else { return .none }
      return Song.reduce(&state.songs[id: id]!, action).map { Action.song(id: id, action: $0) }
    case .add(let id, let title):
      state.songs.append(Song.State(id: id, title: title))
    case .remove(let id):
      state.songs.remove(id: id)
    case .playAll:
      return .merge(state.songs.ids.map { .send(.song(id: $0, action: .play)) })
    case .edit(let id):
      guard let song = state.songs[id: id] else { return .none }
      state.destination = .editor(song)  // a copy of the row: the draft
    case .editor(let action):
      guard case .editor(var draft) = state.destination else { return .none }
      let effect = Song.reduce(&draft, action)
      state.destination = .editor(draft)
      return effect.map(Action.editor)
    case .save:
      guard case .editor(let draft) = state.destination else { return .none }
      state.songs[id: draft.id] = draft
      state.destination = nil
    case .cancel:
      state.destination = nil
    }
    return .none
  }
}

@MainActor
@Suite("Article: Store and stale stores")
struct StoreArticle {
  /// What the examples print (this `print` shadows the standard library's; see `PrintedLines`).
  let printed = PrintedLines()
  func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }

  static func makeStore() -> Store<Playlist.State, Playlist.Action> {
    Store(
      initialState: Playlist.State(songs: [Song.State(id: 1, title: "Intro"), Song.State(id: 2, title: "B-side")]),
      reducer: Playlist.reduce,
      diagnostics: StoreDiagnostics(printing: false))
  }

  @Test("the module page: a row's reaction runs for its row's action, not for another row's")
  func modulePage() {
    let store = Store(
      initialState: Playlist.State(songs: [Song.State(id: 1, title: "Intro"), Song.State(id: 2, title: "B-side")]),
      reducer: Playlist.reduce)
    let songs = store.scope(state: \.songs, action: Playlist.Action.song)
    let row = Reaction("Song 2") { print("\(songs[1].title): \(songs[1].plays)") }
    store.send(.song(id: 2, action: .play))  // prints "B-side: 1"
    store.send(.song(id: 1, action: .play))  // song 2's reaction does not run

    #expect(printed.take() == ["B-side: 0", "B-side: 1"])
    #expect(row.runCount == 2)
    #expect(songs[1].plays == 1)
    #expect(songs[0].plays == 1)
  }

  @Test("scoping: the render log of the playlist, one body per change")
  func scoping() {
    let store = Self.makeStore()
    let tree = RenderTree("Playlist") { screen in
      let player = store.scope(state: \.player, action: Playlist.Action.player)
      screen.child("Player") { $0.text(player.isPlaying ? "pause" : "play") }
      let songs = store.scope(state: \.songs, action: Playlist.Action.song)
      screen.text("\(songs.count) songs")
      screen.forEach(songs, name: { "Song[\($0.id)]" }) { song, row in
        row.text("\(song.title): \(song.plays)")
      }
    }
    tree.step("play 2") { store.send(.song(id: 2, action: .play)) }
    tree.step("toggle player") { store.send(.player(.toggle)) }
    tree.step("add 3") { store.send(.add(id: 3, title: "Outro")) }
    tree.step("remove 1") { store.send(.remove(id: 1)) }
    print(tree.log)
    // initial: Playlist.body x1, Player.body x1, Song[1].body x1, Song[2].body x1
    // play 2: Song[2].body x1
    // toggle player: Player.body x1
    // add 3: Playlist.body x1, Song[3].body x1
    // remove 1: Playlist.body x1

    #expect(
      tree.log.description == """
        initial: Playlist.body x1, Player.body x1, Song[1].body x1, Song[2].body x1
        play 2: Song[2].body x1
        toggle player: Player.body x1
        add 3: Playlist.body x1, Song[3].body x1
        remove 1: Playlist.body x1
        """)
    #expect(tree.output(of: "Song[2]") == "B-side: 1")
    #expect(tree.output(of: "Player") == "pause")
  }

  @Test("scopes are cached by key path and id; a scoped store keeps its root alive")
  func cachedScopes() {
    let store = Self.makeStore()
    let player = store.scope(state: \.player, action: Playlist.Action.player)
    #expect(store.scope(state: \.player, action: Playlist.Action.player) === player)
    let songs = store.scope(state: \.songs, action: Playlist.Action.song)
    #expect(songs[1].id == 2)
    #expect(songs.store(id: 2) === songs[1])
    #expect(store.scope(state: \.songs, action: Playlist.Action.song)[1] === songs[1])
    let alone = Self.makeStore().scope(state: \.player, action: Playlist.Action.player)
    alone.send(.toggle)
    #expect(alone.isPlaying)
  }

  @Test("a StoreCollection creates the stores of the rows accessed: 3 rows of 10 shown, 3 stores")
  func lazyRows() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: Playlist.State(
        songs: IdentifiedArray(uniqueElements: (1...10).map { Song.State(id: $0, title: "\($0)") })),
      reducer: Playlist.reduce, diagnostics: diagnostics)
    let songs = store.scope(state: \.songs, action: Playlist.Action.song)
    #expect(songs.prefix(3).map(\.title) == ["1", "2", "3"])
    #expect(diagnostics.storesCreated == 1 + 3)
  }

  @Test("one re-run per send: playAll and one play per song, three actions, one run of the reader")
  func oneRerunPerSend() {
    let store = Self.makeStore()
    let total = Reaction("Total") {
      print(store.songs.reduce(0) { $0 + $1.plays })
    }
    store.send(.playAll)  // playAll and one play per song: three actions, one run of "Total"

    #expect(printed.take() == ["0", "2"])
    #expect(total.runCount == 2)
    #expect(store.diagnostics.commits == 3)
    #expect(store.songs.map(\.plays) == [1, 1])
  }

  @Test("stale stores: a removed row's store is invalid, shows its last state, drops and reports sends")
  func staleStores() {
    let store = Self.makeStore()
    let songs = store.scope(state: \.songs, action: Playlist.Action.song)
    let second = songs[1]  // song 2's store, as a cell would hold it
    store.send(.remove(id: 2))
    print(second.isValid)  // false
    print(second.title)  // "B-side": what it showed last
    second.send(.play)  // dropped: nothing changes, nothing crashes
    print(store.diagnostics.count(of: .actionSentToInvalidStore))  // 1

    #expect(printed.take() == ["false", "B-side", "1"])
    #expect(!second.isValid)
    #expect(second.title == "B-side")
    #expect(store.diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(
      store.diagnostics.all.map(\.message).first?.contains(
        "dropped action play sent to invalid store root.songs[id: 2]") == true)
  }

  @Test("a reader of a removed row's store does not re-run; the same id later gets a new store")
  func staleReaderAndNewStore() {
    let store = Self.makeStore()
    let songs = store.scope(state: \.songs, action: Playlist.Action.song)
    let second = songs[1]
    let cell = Reaction("Cell") { _ = (second.title, second.plays) }
    store.send(.remove(id: 2))
    store.send(.add(id: 2, title: "B-side (remix)"))
    #expect(cell.runCount == 1)
    #expect(!second.isValid)
    #expect(!songs[1].isValid)  // the old snapshot's position: an invalid store showing the removed row
    #expect(songs[1].title == "B-side")
    let fresh = store.scope(state: \.songs, action: Playlist.Action.song).store(id: 2)!
    #expect(fresh !== second)
    #expect(fresh.isValid)
    #expect(fresh.title == "B-side (remix)")
  }

  @Test("the editor: an enum case scoped through its payload; saving updates the row and invalidates the editor")
  func editor() {
    let store = Self.makeStore()
    let first = store.scope(state: \.songs, action: Playlist.Action.song)[0]
    let row = Reaction("Song 1") { _ = first.title }
    #expect(store.scope(state: \.destination?.editor, action: Playlist.Action.editor) == nil)

    store.send(.edit(id: 1))
    let editor = store.scope(state: \.destination?.editor, action: Playlist.Action.editor)!
    editor.send(.rename("Intro (live)"))  // the draft changes; song 1 still shows "Intro"
    store.send(.save)  // song 1 shows "Intro (live)"; the editor's store is invalid

    #expect(first.title == "Intro (live)")
    #expect(!editor.isValid)
    #expect(row.runCount == 3)
    #expect(store.scope(state: \.destination?.editor, action: Playlist.Action.editor) == nil)
  }

  @Test(
    "the editor, step by step: the row re-runs once for the draft's first change, still showing the row, and once at the save"
  )
  func editorSteps() {
    let store = Self.makeStore()
    let first = store.scope(state: \.songs, action: Playlist.Action.song)[0]
    var shown: [String] = []
    let row = Reaction("Song 1") { shown.append(first.title) }
    store.send(.edit(id: 1))
    let editor = store.scope(state: \.destination?.editor, action: Playlist.Action.editor)!
    let field = Reaction("Editor") { _ = editor.title }
    editor.send(.rename("Intro (live)"))
    #expect(first.title == "Intro")
    #expect(editor.title == "Intro (live)")
    #expect((row.runCount, field.runCount) == (2, 2))
    editor.send(.rename("Intro (acoustic)"))
    #expect((row.runCount, field.runCount) == (2, 3))
    store.send(.save)
    #expect((row.runCount, field.runCount) == (3, 3))
    #expect(shown == ["Intro", "Intro", "Intro (acoustic)"])
    editor.send(.rename("late"))
    #expect(store.diagnostics.count(of: .actionSentToInvalidStore) == 1)
    #expect(first.title == "Intro (acoustic)")
  }

  @Test("diagnostics: stores created, stores examined per commit, commits")
  func diagnostics() {
    let diagnostics = StoreDiagnostics(printing: false)
    let store = Store(
      initialState: Playlist.State(songs: [Song.State(id: 1, title: "Intro"), Song.State(id: 2, title: "B-side")]),
      reducer: Playlist.reduce,
      diagnostics: diagnostics)
    let songs = store.scope(state: \.songs, action: Playlist.Action.song)
    print(songs.map(\.title))  // ["Intro", "B-side"]
    print(diagnostics.storesCreated)  // 3: the root and two song stores
    store.send(.song(id: 1, action: .play))
    print(diagnostics.storesExaminedInLastCommit)  // 0: a row mutated in place examines no store
    store.send(.add(id: 3, title: "Outro"))
    print(diagnostics.storesExaminedInLastCommit)  // 1: the songs' collection scope
    print(diagnostics.commits)  // 2

    #expect(printed.take() == [#"["Intro", "B-side"]"#, "3", "0", "1", "2"])
    #expect(songs.map(\.title) == ["Intro", "B-side"])
    #expect(diagnostics.storesCreated == 3)
    #expect(diagnostics.commits == 2)
    store.send(.song(id: 1, action: .play))
    #expect(diagnostics.storesExaminedInLastCommit == 0)
    store.send(.add(id: 4, title: "Coda"))
    #expect(diagnostics.storesExaminedInLastCommit == 1)
    store.send(.remove(id: 1))
    #expect((1...2).contains(diagnostics.storesExaminedInLastCommit))
  }

  @Test("cells: a stale cell does not re-render, a late tap is dropped, a reused cell shows its new row")
  func cells() {
    let store = Self.makeStore()
    let songs = store.scope(state: \.songs, action: Playlist.Action.song)
    let pool = CellPool("SongCell")
    func bind(_ song: Store<Song.State, Song.Action>) -> Cell {
      pool.dequeue(for: song.id) { "\(song.title): \(song.plays)" }
    }
    let cells = songs.map(bind)
    store.send(.remove(id: 2))  // song 2 is deleted while its cell still holds its store
    songs[1].send(.play)  // a late tap on that cell: dropped and reported
    store.send(.song(id: 1, action: .play))
    print(cells.map(\.content))  // ["Intro: 1", "B-side: 0"]: the stale cell did not re-render
    pool.enqueue(cells[1])  // prepareForReuse
    store.send(.add(id: 3, title: "Outro"))
    let reused = bind(store.scope(state: \.songs, action: Playlist.Action.song)[1])
    print(reused === cells[1], reused.content)  // true Outro: 0

    #expect(printed.take() == [#"["Intro: 1", "B-side: 0"]"#, "true Outro: 0"])
    #expect(cells.map(\.content) == ["Intro: 1", "Outro: 0"])
    #expect(cells[1].history == ["B-side: 0", "Outro: 0"])
    #expect(reused === cells[1])
    #expect(reused.content == "Outro: 0")
    #expect(store.diagnostics.count(of: .actionSentToInvalidStore) == 1)
  }
}
