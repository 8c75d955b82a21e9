import _ObservantShims

/// In-place mutations of tracked fields open on this thread.
///
/// A `_modify` accessor of a tracked field holds Swift's exclusive access to the field (and to
/// everything containing it) while its caller mutates the yielded storage. Two things follow:
///
/// - Nobody may read the field during that time: observers that would run synchronously inside a
///   write (a `withTracking` `onChange`, a `ChangeObserver`) are deferred until the outermost
///   in-place mutation ends, so they never overlap the exclusive access ("Simultaneous accesses").
///   Reactions run later anyway, when the transaction ends.
/// - The runtime can tell which writes hit the storage being mutated. A frame remembers the value
///   being mutated (its registrar) and the stamp it would carry if every change went through its
///   accessors; each accessor write of that value moves the expected stamp along. When the frame
///   ends, a value whose stamp is not the expected one was replaced some other way (assigned from a
///   copy through an `inout`, `self = saved` in a mutating method), and its readers are reconciled.
///
/// Frames opened by an anchor (a class's `@Tracked` property, a store's root state) are *anchored*:
/// the storage is the live state, not a copy. Writes verified inside anchored frames are the ones a
/// transaction may treat as "set and set back".
///
/// The innermost frame's registrar, expected stamp and place (see `_WritePlace`) live in
/// thread-local slots, so an accessor write checks them with a few loads.
@usableFromInline
internal enum InPlaceFrames {
  /// One open frame: the summary it replaced in the thread-local slots, and its own registrar.
  struct Record {
    let savedRegistrar: UnsafeMutableRawPointer?
    let savedExpected: UInt64
    let registrar: UnsafeMutableRawPointer?
    let anchored: Bool
    /// Where the value being mutated is stored, when the frame knows it (a field's storage, a
    /// store's root, a class's property): the slot the writes made in the frame belong to.
    let address: UnsafeRawPointer?
    /// The place the frame replaced in the thread-local slot (see `observant_frame_place`).
    let savedPlace: UInt64
    /// Whether the frame it replaced as the innermost was anchored (see `observant_frame_anchored`).
    let savedAnchored: Bool
  }

  /// Whether an in-place mutation of a tracked field is open on this thread.
  @inline(__always)
  static var isOpen: Bool { observant_frame_depth() != 0 }

  /// Whether the innermost frame is of the value with this registrar and stamp (its accessors are
  /// mutating the storage that frame opened).
  @usableFromInline @inline(__always)
  static func isInnermost(_ registrar: TrackingRegistrar, stamp: UInt64) -> Bool {
    observant_frame_registrar() == Unmanaged.passUnretained(registrar).toOpaque() && observant_frame_expected() == stamp
  }

  /// Notes that the value with `registrar` changed from stamp `old` to `new`: if it is the
  /// innermost frame's value, the frame expects `new` from now on. Returns whether it was.
  @usableFromInline @inline(__always)
  @discardableResult
  static func noteChange(of registrar: TrackingRegistrar, from old: UInt64, to new: UInt64) -> Bool {
    guard isInnermost(registrar, stamp: old) else { return false }
    observant_frame_set_expected(new)
    return true
  }

  /// Whether the innermost frame's value carries `stamp`, the stamp its accessor writes led to: a
  /// value that does not was replaced some other way (see `end(stamp:sameIdentity:)`).
  @usableFromInline
  static func innermostExpects(_ stamp: UInt64) -> Bool { observant_frame_expected() == stamp }

  /// The place of the innermost frame's value (see `_WritePlace`), if that value is the one with
  /// `registrar` and carries `stamp` (its accessors are mutating the storage the frame opened);
  /// otherwise 0.
  @usableFromInline @inline(__always)
  static func innermostPlace(of registrar: TrackingRegistrar, stamp: UInt64) -> UInt64 {
    isInnermost(registrar, stamp: stamp) ? innermostFramePlace : 0
  }

  /// The innermost frame's place, whatever its value (0 when not known or not anchored).
  @usableFromInline @inline(__always)
  static var innermostFramePlace: UInt64 { observant_frame_place() }

  /// The place of the innermost frame if it is a container's (its value has no registrar) and
  /// anchored to live state; otherwise 0 (see `_WritePlace`).
  static var innermostContainerPlace: UInt64 { innermostIsContainer ? observant_frame_place() : 0 }

  /// Whether the innermost frame is anchored to live state (see the type's documentation). A
  /// thread-local slot, kept by `begin` and `removeInnermost` (0 when no frame is open).
  @usableFromInline
  static var innermostIsAnchored: Bool { observant_frame_anchored() != 0 }

  /// Whether the innermost frame is a container's (not a value with a registrar of its own).
  static var innermostIsContainer: Bool { isOpen && observant_frame_registrar() == nil }

  /// Opens a frame for the value with `registrar` and `stamp` (a `nil` registrar for a container
  /// that is not observable state itself: an identified array, an array, a dictionary).
  ///
  /// - Parameter anchored: whether the storage is live state (see the type's documentation).
  ///   - address: where the value is stored, if known (see `Record.address`).
  static func begin(
    _ registrar: TrackingRegistrar?, stamp: UInt64, anchored: Bool, address: UnsafeRawPointer? = nil,
    place: UInt64 = 0
  ) {
    begin(
      registrarAddress: registrar.map { Unmanaged.passUnretained($0).toOpaque() }, stamp: stamp, anchored: anchored,
      address: address, place: place)
  }

  /// `begin` with the registrar's address (`Unmanaged.passUnretained(registrar).toOpaque()`).
  static func begin(
    registrarAddress: UnsafeMutableRawPointer?, stamp: UInt64, anchored: Bool, address: UnsafeRawPointer? = nil,
    place: UInt64 = 0
  ) {
    let record = Record(
      savedRegistrar: observant_frame_registrar(), savedExpected: observant_frame_expected(),
      registrar: registrarAddress, anchored: anchored, address: address, savedPlace: observant_frame_place(),
      savedAnchored: observant_frame_anchored() != 0)
    TransactionContext.withCurrent { $0.frames.append(record) }
    observant_frame_set(registrarAddress, stamp)
    // Only live storage has a place that writes can be trusted in.
    observant_frame_set_place(anchored ? place : 0)
    observant_frame_set_anchored(anchored ? 1 : 0)
    observant_frame_set_depth(observant_frame_depth() + 1)
  }

  /// Opens a frame naming where the value with `registrar` is stored, for writes found by
  /// comparing two copies of it (`ContentDiff`): they are recorded as made there (see
  /// `WriteRecord.slot`). Closed by `endPlace()`, without verification (the writes it holds are
  /// not made through the value's accessors).
  static func beginPlace(of registrar: UnsafeMutableRawPointer, at address: UnsafeRawPointer, place: UInt64) {
    begin(
      registrarAddress: registrar, stamp: observant_frame_expected(), anchored: true, address: address, place: place)
  }

  /// Closes the frame `beginPlace(of:at:)` opened.
  static func endPlace() {
    TransactionContext.withCurrent { context in
      if removeInnermost(in: context).wasOutermost { context.runDeferredImmediateObservers() }
    }
  }

  /// Closes the innermost frame. Returns whether its value now carries the stamp its accessor
  /// writes led to (`stamp` is the value's stamp now; container frames always verify). A value with
  /// the same identity that does not (it was replaced some other way) makes the transaction's
  /// writes untrustworthy as "live". Runs the deferred synchronous observers once the outermost
  /// frame closes.
  ///
  /// - Parameter sameIdentity: the value still has the identity it had when the frame opened (a
  ///   value replaced by a new identity is the slot's business, not a replacement by a copy).
  @discardableResult
  static func end(stamp: UInt64, sameIdentity: Bool = true) -> Bool {
    TransactionContext.withCurrent { end(in: $0, stamp: stamp, sameIdentity: sameIdentity) }
  }

  @inline(__always)
  private static func end(in context: TransactionContext, stamp: UInt64, sameIdentity: Bool) -> Bool {
    if context.frames.isEmpty {
      observantFatalError("Observant: an in-place mutation frame ended that was never begun")
    }
    let (record, expected, wasOutermost) = removeInnermost(in: context)
    let verified = record.registrar == nil || expected == stamp
    if !verified && sameIdentity { context.noteUnverifiedReplacement() }
    if wasOutermost { context.runDeferredImmediateObservers() }
    return verified
  }

  /// Removes the innermost frame and puts the thread-local summary back to the frame around it.
  /// Returns the frame, the stamp it expected when removed, and whether it was the outermost one
  /// (the caller then runs the deferred synchronous observers).
  @inline(__always)
  private static func removeInnermost(
    in context: TransactionContext
  ) -> (record: Record, expected: UInt64, wasOutermost: Bool) {
    let record = context.frames.removeLast()
    let expected = observant_frame_expected()
    observant_frame_set(record.savedRegistrar, record.savedExpected)
    observant_frame_set_place(record.savedPlace)
    observant_frame_set_anchored(record.savedAnchored ? 1 : 0)
    let depth = observant_frame_depth() - 1
    observant_frame_set_depth(depth)
    return (record, expected, depth == 0)
  }
}

/// The open in-place frames of a thread, innermost last (`TransactionContext.frames`): a stack in
/// storage of its own, grown by doubling and never shrunk. An array would check its storage's
/// uniqueness and capacity through its header on every push and pop, and three frames open and
/// close on every row action.
internal struct InPlaceFrameStack {
  private var base: UnsafeMutablePointer<InPlaceFrames.Record>?
  private var capacity = 0
  /// How many frames are open.
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  /// The innermost frame, if any.
  var last: InPlaceFrames.Record? { count == 0 ? nil : base.unsafelyUnwrapped[count &- 1] }

  mutating func append(_ record: InPlaceFrames.Record) {
    if count == capacity { grow() }
    (base.unsafelyUnwrapped + count).initialize(to: record)
    count &+= 1
  }

  /// Removes and returns the innermost frame; there must be one.
  mutating func removeLast() -> InPlaceFrames.Record {
    if count == 0 { observantFatalError("Observant: an in-place mutation frame ended that was never begun") }
    count &-= 1
    return (base.unsafelyUnwrapped + count).move()
  }

  private mutating func grow() {
    let newCapacity = Swift.max(8, capacity * 2)
    let newBase = UnsafeMutablePointer<InPlaceFrames.Record>.allocate(capacity: newCapacity)
    if let base {
      newBase.moveInitialize(from: base, count: count)
      base.deallocate()
    }
    base = newBase
    capacity = newCapacity
  }

  /// Frees the storage (the owning context's deinit); the stack must be empty or its frames no
  /// longer needed.
  mutating func deallocate() {
    base?.deinitialize(count: count)
    base?.deallocate()
    base = nil
    capacity = 0
    count = 0
  }
}
