import Synchronization
import _ObservantShims

/// The observer behind `withTracking`: linked to each field the scope reads as it reads it, it
/// fires once, on the first change, then unlinks itself everywhere.
///
/// "Exactly once" holds under concurrent and re-entrant writes: firing is decided by one
/// compare-and-exchange, so every later notification (another thread's write, or a write made by
/// `onChange` itself) finds the observer spent.
///
/// One word holds the observer's whole state: where it is in its life, and the dependencies it
/// adopted (one dependency, or the array of several, retained while stored), so that the
/// observer is a 48-byte heap block (every live `withTracking` scope keeps one).
internal final class OneShotObserver: Observer, @unchecked Sendable {
  /// The phase (bits 0-1), whether the address is an array's storage rather than a dependency
  /// (bit 2), whether a reader is looking at the dependencies (bit 3, see `withDependencies`), and
  /// the address of what holds the dependencies (adopted only; retained while stored).
  private let state = Atomic<UInt>(Phase.running.rawValue)
  /// Read once, by the one thread that spends the observer.
  @exclusivity(unchecked) private var onChange: (@Sendable () -> Void)?

  /// Where the observer is in its life: running its scope, holding the dependencies the scope
  /// adopted, or spent (fired or cancelled, possibly before the scope adopted its dependencies).
  /// `runningSawDeinit`: running, and an object the scope read went away meanwhile (the scope
  /// looks at its dependencies once it has adopted them).
  private enum Phase: UInt {
    case running = 0
    case runningSawDeinit = 1
    case adopted = 2
    case spent = 3
  }

  private static var phaseMask: UInt { 0b11 }
  private static var arrayBit: UInt { 0b100 }
  private static var readerBit: UInt { 0b1000 }
  private static var addressMask: UInt { ~0b1111 }

  init(onChange: @escaping @Sendable () -> Void) {
    self.onChange = onChange
    super.init()
  }

  deinit {
    // Adopted and never spent (nobody wrote, and the objects read outlive the observer: its
    // dependencies keep it alive while linked, so this happens only once they were unlinked by
    // their tables going away).
    let word = state.load(ordering: .acquiring)
    if Self.phase(of: word) == .adopted { _ = Self.takeDependencies(from: word) }
  }

  private static func phase(of word: UInt) -> Phase { Phase(rawValue: word & phaseMask).unsafelyUnwrapped }

  /// The state word of adopted `dependencies`, retaining what holds them.
  private static func adoptedWord(_ dependencies: __owned OneShotDependencies) -> UInt {
    if let first = dependencies.first {
      return UInt(bitPattern: Unmanaged.passRetained(first).toOpaque()) | Phase.adopted.rawValue
    }
    // The array's storage object (a `ContiguousArray` is one reference to it).
    let storage = unsafeBitCast(dependencies.rest, to: AnyObject.self)
    return UInt(bitPattern: Unmanaged.passRetained(storage).toOpaque()) | arrayBit | Phase.adopted.rawValue
  }

  /// The dependencies in an adopted state word, taking over the retain the word held.
  private static func takeDependencies(from word: UInt) -> OneShotDependencies {
    let address = UnsafeRawPointer(bitPattern: word & addressMask).unsafelyUnwrapped
    if word & arrayBit == 0 {
      return OneShotDependencies(first: Unmanaged<Dependency>.fromOpaque(address).takeRetainedValue(), rest: [])
    }
    let storage = Unmanaged<AnyObject>.fromOpaque(address).takeRetainedValue()
    return OneShotDependencies(first: nil, rest: unsafeBitCast(storage, to: ContiguousArray<Dependency>.self))
  }

  /// The dependencies in an adopted state word, retained anew (the word keeps its own retain).
  private static func copyDependencies(from word: UInt) -> OneShotDependencies {
    let address = UnsafeRawPointer(bitPattern: word & addressMask).unsafelyUnwrapped
    if word & arrayBit == 0 {
      return OneShotDependencies(first: Unmanaged<Dependency>.fromOpaque(address).takeUnretainedValue(), rest: [])
    }
    let storage = Unmanaged<AnyObject>.fromOpaque(address).takeUnretainedValue()
    return OneShotDependencies(first: nil, rest: unsafeBitCast(storage, to: ContiguousArray<Dependency>.self))
  }

  /// Whether the observer has fired or was cancelled.
  var isSpent: Bool { Self.phase(of: state.load(ordering: .acquiring)) == .spent }

  override func dependencyChanged(_ dependency: Dependency, _ change: FieldChange) {
    spend(callingOnChange: true)
  }

  func cancel() {
    spend(callingOnChange: false)
  }

  /// An object the scope read a field of went away after the scope was installed: what the scope
  /// read is gone, which is a change (as for Apple's `withObservationTracking`, and for
  /// `TrackedValues`), delivered like a change found after the fact (inside an in-place mutation,
  /// when it ends). The last copy of a value going away is not a change (the slots that held it
  /// changed, and told their readers); once every registrar the scope read is gone, it gives up.
  override func registrarDidDeinit() {
    var current = state.load(ordering: .acquiring)
    while Self.phase(of: current) == .running {
      // The scope is still running (the object was made and released inside `apply`): the scope
      // has not adopted its dependencies yet. Noted for `adopt`, which looks then.
      let (exchanged, original) = state.compareExchange(
        expected: current, desired: Phase.runningSawDeinit.rawValue, ordering: .acquiringAndReleasing)
      if exchanged { return }
      current = original
    }
    guard let dependencies = adoptedDependencies() else { return }
    var objectGone: Dependency?
    var anyAlive = false
    for dependency in dependencies {
      if !dependency.table.isDead {
        anyAlive = true
      } else if objectGone == nil && dependency.seen.load(ordering: .relaxed) == Stamp.none {
        objectGone = dependency
      }
    }
    if let objectGone {
      // Inside a transaction, once it has ended: the deinit may run inside the transaction's own
      // bookkeeping (the flush releasing the old values it kept), where `onChange`, which may
      // write, must not run.
      TransactionContext.runOutsideTransaction { Notifications.deliverReplacement([objectGone]) }
    } else if !anyAlive {
      cancel()
    }
  }

  /// The adopted dependencies, retained for the caller; `nil` unless adopted. A spender waits
  /// while the reader bit is set (a few instructions: the time to retain them), so that what the
  /// word holds is not released under the reader.
  private func adoptedDependencies() -> OneShotDependencies? {
    var current = state.load(ordering: .acquiring)
    var spins = 0
    while true {
      guard Self.phase(of: current) == .adopted else { return nil }
      if current & Self.readerBit != 0 {
        Self.waitForReader(&spins)
        current = state.load(ordering: .acquiring)
        continue
      }
      let (exchanged, original) = state.compareExchange(
        expected: current, desired: current | Self.readerBit, ordering: .acquiringAndReleasing)
      if exchanged { break }
      current = original
    }
    let dependencies = Self.copyDependencies(from: current)
    // Nobody changes the word while the reader bit is set: this restores it.
    state.store(current, ordering: .releasing)
    return dependencies
  }

  /// Waits a moment for a reader to clear the reader bit: spins at first (it holds the bit for
  /// the time of a retain), then yields the processor, in case the reader's thread was preempted.
  private static func waitForReader(_ spins: inout Int) {
    spins += 1
    if spins > 64 { observant_yield() }
  }

  /// Fires (or cancels) the observer, once: one compare-and-exchange decides the only spender.
  private func spend(callingOnChange: Bool) {
    var current = state.load(ordering: .acquiring)
    var spins = 0
    while Self.phase(of: current) != .spent {
      if current & Self.readerBit != 0 {
        Self.waitForReader(&spins)
        current = state.load(ordering: .acquiring)
        continue
      }
      let (exchanged, original) = state.compareExchange(
        expected: current, desired: Phase.spent.rawValue, ordering: .acquiringAndReleasing)
      if exchanged { break }
      current = original
    }
    guard Self.phase(of: current) != .spent else { return }
    let onChange = self.onChange.take()
    if Self.phase(of: current) == .adopted { Self.unlinkAndRelease(current) }
    if callingOnChange { onChange?() }
  }

  /// Unlinks the dependencies of an adopted state word and releases what holds them (the one
  /// dependency of a one-field scope without building an `OneShotDependencies`).
  private static func unlinkAndRelease(_ word: UInt) {
    guard word & arrayBit == 0 else { return takeDependencies(from: word).unlinkAll() }
    let dependency = Unmanaged<Dependency>.fromOpaque(
      UnsafeRawPointer(bitPattern: word & addressMask).unsafelyUnwrapped)
    dependency._withUnsafeGuaranteedRef { dependency in
      Unmanaged.passUnretained(dependency.table)._withUnsafeGuaranteedRef { $0.unlink(dependency) }
    }
    dependency.release()
  }

  /// Takes the dependencies the scope linked while it ran. If the observer fired meanwhile (on
  /// another thread, or by a write inside the scope), they are unlinked now.
  func adopt(_ dependencies: __owned OneShotDependencies) {
    if dependencies.isEmpty {
      // Nothing to hold (the scope threw before reading anything).
      return
    }
    install(Self.adoptedWord(dependencies))
  }

  /// Takes the dependencies `recorder` recorded in the scope (at least one), as `adopt(_:)`: the
  /// one dependency of a one-field scope with a single retain, the array of several as it is.
  /// Call `recorder.reset()` next.
  func adoptDependencies(of recorder: Recorder) {
    if recorder.cursor == 1 {
      let first = recorder.firstDependency
      install(UInt(bitPattern: first.retain().toOpaque()) | Phase.adopted.rawValue)
    } else {
      install(Self.adoptedWord(OneShotDependencies(first: nil, rest: recorder.handOverDependencies())))
    }
  }

  /// Publishes the adopted state word `adopted` (see `adopt(_:)`).
  private func install(_ adopted: UInt) {
    var expected = Phase.running.rawValue
    while true {
      let (exchanged, original) = state.compareExchange(
        expected: expected, desired: adopted, ordering: .acquiringAndReleasing)
      if exchanged { break }
      guard original == Phase.runningSawDeinit.rawValue else {
        // Spent while the scope ran: nobody else reads them (the spender saw no dependencies).
        Self.takeDependencies(from: adopted).unlinkAll()
        return
      }
      expected = original
    }
    // An object the scope read went away while it ran: that is a change too (or, if every
    // registrar the scope read is gone, the end of the observation).
    if expected == Phase.runningSawDeinit.rawValue { registrarDidDeinit() }
  }
}
