import Observant

// One mistake per model; every other accessor is right.

// swift-format-ignore
struct SilentGetter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { _count.value } set { registrar.write(&_count, newValue) } }
}

// swift-format-ignore
struct SilentSetter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { _count.value = newValue } }
}

// swift-format-ignore
struct GetterReadsOtherStorage: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_total) } set { registrar.write(&_count, newValue) } }
  private var _total = StateField(0)
  var total: Int { get { registrar.read(_total) } set { registrar.write(&_total, newValue) } }
}

// swift-format-ignore
struct SetterWritesOtherStorage: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_total, newValue) } }
  private var _total = StateField(0)
  var total: Int { get { registrar.read(_total) } set { registrar.write(&_total, newValue) } }
}

// swift-format-ignore
struct ModifyYieldsOtherStorage: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _tags = StateField<[String]>([])
  var tags: [String] {
    get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
    _modify { yield &self[tracking: \._labels] }
  }
  private var _labels = StateField<[String]>([])
  var labels: [String] {
    get { registrar.read(_labels) } set { registrar.write(&_labels, newValue) }
    _modify { yield &self[tracking: \._labels] }
  }
}

// swift-format-ignore
struct ModifyBypassesRegistrar: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _tags = StateField<[String]>([])
  var tags: [String] {
    get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
    _modify { yield &_tags.value }
  }
}

// swift-format-ignore
struct CollectionWithoutModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _tags = StateField<[String]>([])
  var tags: [String] { get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) } }
}

// swift-format-ignore
struct ChildWithoutModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _child = StateField(Child())
  var child: Child { get { registrar.read(_child) } set { registrar.write(&_child, newValue) } }
}

// swift-format-ignore
struct UntrackedProperty: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  var note = ""
}
