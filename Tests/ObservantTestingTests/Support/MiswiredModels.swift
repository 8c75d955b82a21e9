// swift-format-ignore-file
// (Observable types declared the way the README and the articles show them: two lines a field.)
import Observant

// One mistake per model; every other accessor is right.

struct SilentGetter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { _count.value } set { registrar.write(&_count, newValue) } }
}

struct SilentSetter: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { _count.value = newValue } }
}

struct GetterReadsOtherStorage: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_total) } set { registrar.write(&_count, newValue) } }
  private var _total = StateField(0)
  var total: Int { get { registrar.read(_total) } set { registrar.write(&_total, newValue) } }
}

struct SetterWritesOtherStorage: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_total, newValue) } }
  private var _total = StateField(0)
  var total: Int { get { registrar.read(_total) } set { registrar.write(&_total, newValue) } }
}

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

struct ModifyBypassesRegistrar: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _tags = StateField<[String]>([])
  var tags: [String] {
    get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) }
    _modify { yield &_tags.value }
  }
}

struct CollectionWithoutModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _tags = StateField<[String]>([])
  var tags: [String] { get { registrar.read(_tags) } set { registrar.write(&_tags, newValue) } }
}

struct ChildWithoutModify: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _child = StateField(Child())
  var child: Child { get { registrar.read(_child) } set { registrar.write(&_child, newValue) } }
}

struct UntrackedProperty: ObservableState {
  var registrar = StateRegistrar<Self>()
  private var _count = StateField(0)
  var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
  var note = ""
}
