/// A value type whose fields can be observed one by one, without macros.
///
/// Store one `StateRegistrar`, keep each tracked field in private `StateField` storage, and expose
/// it through a computed property whose accessors go through the registrar:
///
/// ```swift
/// struct Counter: ObservableState {
///   var registrar = StateRegistrar<Self>()
///   private var _count = StateField(0)
///   var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }
/// }
/// ```
///
/// The accessors name no key path: the field is the property itself (its name, `#function`, is
/// passed along by default), so a getter cannot record another field's read.
///
/// Collection-typed fields add a `_modify` accessor, so that element mutation happens in place
/// without copying the collection's storage:
///
/// ```swift
///   private var _rows = StateField<IdentifiedArrayOf<Row>>([])
///   var rows: IdentifiedArrayOf<Row> {
///     get { registrar.read(_rows) } set { registrar.write(&_rows, newValue) }
///     _modify { yield &self[tracking: \._rows] }
///   }
/// ```
///
/// **Identity.** A value created with `init` gets a fresh `ObservableStateID`; copies share it and
/// share the observer table, so a reader of `count` hears writes through the copy it read. A slot
/// that holds child state notifies its own readers only when the child's identity changes; changes
/// of the child's fields reach their readers through the child's registrar, also when an edited
/// copy of the child is assigned back (see `IdentityComparable`).
public protocol ObservableState: IdentityComparable, InstanceIdentifiable {
  /// The registrar of this value. Declare it as `var registrar = StateRegistrar<Self>()`.
  var registrar: StateRegistrar<Self> { get set }
}

extension ObservableState {
  /// The identity of this value, shared by its copies.
  @inlinable
  public var observableStateID: ObservableStateID { registrar.id }

  /// The identity `IdentifiedArray` uses to tell element replacement from in-place mutation.
  @inlinable
  public var instanceIdentity: InstanceIdentity { registrar.id }

  /// The stamp of the value's last change: `IdentifiedArray` uses it to tell an element replaced by
  /// an edited copy from an element left as it was.
  @inlinable
  public var _instanceVersion: UInt64 { registrar.stamp }

  /// The tracking registrar this value's copies share: where a store keeps the identity slot of
  /// its readers (in the observer table the value's fields already use, rather than in one more
  /// per store).
  @inlinable
  package var _trackingRegistrar: TrackingRegistrar { registrar.tracking }
}
