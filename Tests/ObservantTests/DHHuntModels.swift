// swift-format-ignore-file
import Observant

// MARK: - README / docs models

final class DHProfile: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var name = "Ada"
  @Tracked var followers = 0
  @Tracked var isOnline = false
  @Tracked var tags: [String] = []
  @TrackedWeak var manager: DHProfile?
  var cache: [String: Int] = [:]
}

struct DHTodo: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int

  private var _title = StateField("")
  var title: String { get { registrar.read(_title) } set { registrar.write(&_title, newValue) } }

  private var _isDone = StateField(false)
  var isDone: Bool { get { registrar.read(_isDone) } set { registrar.write(&_isDone, newValue) } }

  init(id: Int, title: String) {
    self.id = id
    _title = StateField(title)
  }
}

final class DHTodoList: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var todos: IdentifiedArrayOf<DHTodo> = []
}

final class DHEditor: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var todos: IdentifiedArrayOf<DHTodo> = [DHTodo(id: 1, title: "Milk"), DHTodo(id: 2, title: "Eggs")]
  @Tracked var draft: DHTodo?
}

struct DHSettingsInit: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _volume: StateField<Int>
  var volume: Int = 3 {
    @storageRestrictions(initializes: _volume) init { _volume = StateField(newValue) }
    get { registrar.read(_volume) } set { registrar.write(&_volume, newValue) }
  }
}

struct DHPoint: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _x: StateField<Int>
  var x: Int {
    @storageRestrictions(initializes: _x) init { _x = StateField(newValue) }
    get { registrar.read(_x) } set { registrar.write(&_x, newValue) }
  }

  private var _y: StateField<Int>
  var y: Int = 0 {
    @storageRestrictions(initializes: _y) init { _y = StateField(newValue) }
    get { registrar.read(_y) } set { registrar.write(&_y, newValue) }
  }
}

final class DHDocument: Trackable {
  struct Storage { var title = "" }

  let trackingRegistrar = TrackingRegistrar()
  private var storage = Storage()

  var title: String {
    get { trackAccess(); return storage.title }
    set { trackMutation { storage.title = newValue } }
  }
}

struct DHSettings: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _volume = StateField(5)
  var volume: Int { get { registrar.read(_volume) } set { registrar.write(&_volume, newValue) } }

  private var _tags = StateField<[String]>([])
  var tags: [String] {
    get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
    _modify { yield &self[tracking: \._tags] }
  }
}

struct DHAlert: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _message = StateField("")
  var message: String { get { registrar.read(_message) } set { registrar.write(&_message, newValue) } }
}

enum DHDestination: IdentityComparable {
  case none
  case settings(DHSettings)
  case message(String)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.none, .none): true
    case let (.settings(lhs), .settings(rhs)): Observant.isIdentityEqual(lhs, rhs)
    case let (.message(lhs), .message(rhs)): lhs == rhs
    default: false
    }
  }
}

struct DHAccount: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _settings = StateField(DHSettings())
  var settings: DHSettings {
    get { registrar.read(_settings) } set { registrar.write(&_settings, newValue) }
    _modify { yield &self[tracking: \._settings] }
  }

  private var _alert: StateField<DHAlert?> = nil
  var alert: DHAlert? {
    get { registrar.read(_alert) } set { registrar.write(&_alert, newValue) }
    _modify { yield &self[tracking: \._alert] }
  }

  private var _destination = StateField(DHDestination.none)
  var destination: DHDestination {
    get { registrar.read(_destination) } set { registrar.write(&_destination, newValue) }
  }
}

final class DHAccountHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var account = DHAccount()
}

final class DHRowObj: Trackable, Identifiable {
  let trackingRegistrar = TrackingRegistrar()
  let id: Int
  @Tracked var count = 0
  init(id: Int) { self.id = id }
}

// MARK: - Declaration edge cases

final class DHClamp: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  var log: [String] = []
  @Tracked var level = 0 {
    willSet { log.append("willSet \(level)->\(newValue)") }
    didSet {
      log.append("didSet \(oldValue)->\(level)")
      if level > 10 { level = 10 }
    }
  }
}

class DHBase: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a = 0
}

class DHSub: DHBase {
  @Tracked var b = 0
  @Tracked var c = ""
}

final class DHSubSub: DHSub {
  var didSetCount = 0
  override var a: Int { didSet { didSetCount += 1 } }
  @Tracked var d = 0.5
}

final class DHPrivateSet: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked private(set) var value = 0
  func bump() { value += 1 }
}

struct DHBox<T>: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _value: StateField<T>
  var value: T { get { registrar.read(_value) } set { registrar.write(&_value, newValue) } }
  init(_ value: T) { _value = StateField(value) }
}

final class DHGenericHolder<T>: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var item: T
  init(_ item: T) { self.item = item }
}

struct DHName: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _first = StateField("Ada")
  var first: String { get { registrar.read(_first) } set { registrar.write(&_first, newValue) } }
  private var _last = StateField("Lovelace")
  var last: String { get { registrar.read(_last) } set { registrar.write(&_last, newValue) } }
  var full: String { "\(first) \(last)" }
}

final class DHNameHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var name = DHName()
  @Tracked var first = "Ada"
  @Tracked var last = "Lovelace"
  var full: String { "\(first) \(last)" }
}

final class DHTodoHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var todo: DHTodo
  init(_ todo: DHTodo) { self.todo = todo }
}

final class DHPlainRef {}

final class DHEqualRef: Equatable {
  var tag: Int
  init(_ tag: Int) { self.tag = tag }
  static func == (lhs: DHEqualRef, rhs: DHEqualRef) -> Bool { true }
}

final class DHEqualTrackable: Trackable, Equatable, Hashable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var count = 0
  static func == (lhs: DHEqualTrackable, rhs: DHEqualTrackable) -> Bool { true }
  func hash(into hasher: inout Hasher) {}
}

protocol DHDelegate: AnyObject {}
final class DHDelegateImpl: DHDelegate {}

protocol DHShape { var area: Double { get } }
struct DHSquare: DHShape, Equatable { var side: Double; var area: Double { side * side } }

struct DHLoose: Equatable {
  var a: Int
  var ignored: Int
  static func == (lhs: DHLoose, rhs: DHLoose) -> Bool { lhs.a == rhs.a }
}

struct DHNonEq { var a: Int }

struct DHBig: Equatable {
  var a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0
  var b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0
  var c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0, c6 = 0, c7 = 0
  var d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, last: UInt64 = 0
}

final class DHValues: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var plainRef = DHPlainRef()
  @Tracked var optRef: DHPlainRef? = nil
  @Tracked var equalRef = DHEqualRef(0)
  @Tracked var eqTrackable = DHEqualTrackable()
  @Tracked var eqTrackableOpt: DHEqualTrackable? = nil
  @Tracked var eqTrackables: [DHEqualTrackable] = []
  @Tracked var eqTrackableDict: [String: DHEqualTrackable] = [:]
  @Tracked var eqTrackableSet: Set<DHEqualTrackable> = []
  @Tracked var delegate: any DHDelegate = DHDelegateImpl()
  @Tracked var optDelegate: (any DHDelegate)? = nil
  @Tracked var anyObject: AnyObject = DHPlainRef()
  @Tracked var shape: any DHShape = DHSquare(side: 1)
  @Tracked var hashable: AnyHashable = AnyHashable(1)
  @Tracked var any: Any = 1
  @Tracked var loose = DHLoose(a: 1, ignored: 0)
  @Tracked var nonEq = DHNonEq(a: 1)
  @Tracked var double = 0.0
  @Tracked var float: Float = 0
  @Tracked var big = DHBig()
  @Tracked var u64: UInt64 = 0
  @Tracked var int = 0
  @Tracked var optInt: Int? = nil
  @Tracked var string = ""
  @Tracked var bigArray: [Int] = []
}

struct DHValueState: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _double = StateField(0.0)
  var double: Double { get { registrar.read(_double) } set { registrar.write(&_double, newValue) } }
  private var _loose = StateField(DHLoose(a: 1, ignored: 0))
  var loose: DHLoose { get { registrar.read(_loose) } set { registrar.write(&_loose, newValue) } }
  private var _nonEq = StateField(DHNonEq(a: 1))
  var nonEq: DHNonEq { get { registrar.read(_nonEq) } set { registrar.write(&_nonEq, newValue) } }
  private var _ref = StateField(DHPlainRef())
  var ref: DHPlainRef { get { registrar.read(_ref) } set { registrar.write(&_ref, newValue) } }
  private var _eqTrackable = StateField(DHEqualTrackable())
  var eqTrackable: DHEqualTrackable { get { registrar.read(_eqTrackable) } set { registrar.write(&_eqTrackable, newValue) } }
  private var _delegate = StateField<any DHDelegate>(DHDelegateImpl())
  var delegate: any DHDelegate { get { registrar.read(_delegate) } set { registrar.write(&_delegate, newValue) } }
  private var _big = StateField(DHBig())
  var big: DHBig { get { registrar.read(_big) } set { registrar.write(&_big, newValue) } }
}

final class DHValueStateHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = DHValueState()
}

struct DHRowS: ObservableState, Identifiable {
  var registrar = StateRegistrar<Self>()
  let id: Int
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  init(id: Int) { self.id = id }
}

struct DHContainers: ObservableState {
  var registrar = StateRegistrar<Self>()

  private var _array = StateField<[DHRowS]>([])
  var array: [DHRowS] {
    get { registrar.read(_array) } set { registrar.write(&_array, newValue) }
    _modify { yield &self[tracking: \._array] }
  }

  private var _dict = StateField<[Int: DHRowS]>([:])
  var dict: [Int: DHRowS] {
    get { registrar.read(_dict) } set { registrar.write(&_dict, newValue) }
    _modify { yield &self[tracking: \._dict] }
  }

  private var _optRow: StateField<DHRowS?> = nil
  var optRow: DHRowS? {
    get { registrar.read(_optRow) } set { registrar.write(&_optRow, newValue) }
    _modify { yield &self[tracking: \._optRow] }
  }

  private var _box = StateField(DHBox(DHRowS(id: 99)))
  var box: DHBox<DHRowS> {
    get { registrar.read(_box) } set { registrar.write(&_box, newValue) }
    _modify { yield &self[tracking: \._box] }
  }
}

final class DHContainersHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var state = DHContainers()
  @Tracked var rows: [DHRowS] = []
  @Tracked var rowDict: [String: DHRowS] = [:]
}

enum DHPayloadEnum: IdentityComparable {
  case empty
  case row(DHRowS)

  static func isIdentityEqual(_ lhs: Self, _ rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.empty, .empty): true
    case let (.row(l), .row(r)): Observant.isIdentityEqual(l, r)
    default: false
    }
  }
}

final class DHEnumHolder: Trackable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var dest = DHPayloadEnum.empty
}
