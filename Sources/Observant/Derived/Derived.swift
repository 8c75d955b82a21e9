/// A memoized value computed from tracked fields (and other derived values): a filtered list of
/// ids, a total, a formatted title.
///
/// ```swift
/// let total = Derived("total") { cart.items.reduce(0) { $0 + $1.price } }
/// let label = Reaction("Total") { print(total.value) }
/// cart.items[0].price += 0     // nothing recomputes: the write changed nothing
/// cart.items[0].price += 1     // `total` recomputes once, the label re-runs once
/// ```
///
/// - **Lazy.** Nothing is computed until `value` is read; after an input changes, the value is
///   recomputed once, and only when it is read again (by you, a reaction, or another derived value).
/// - **Cut off by equality.** A recomputed value equal to the previous one (`==` for `Equatable`
///   values) does not re-run the derived value's readers.
/// - **Glitch-free.** In a diamond (a -> {b, c} -> d) `d` computes once per transaction, from `b`
///   and `c` both up to date: a reader never sees a mix of old and new inputs.
/// - **Set back.** A recomputed value equal to the one its readers last read does not re-run
///   them, even if it took other values in between that were read outside any tracking scope
///   (midway through a transaction that then sets the inputs back, say).
/// - **Dynamic.** Its inputs are what its latest computation read: a branch no longer taken stops
///   triggering it.
/// - **Disposable.** Releasing it unlinks it from its inputs. While nobody reads it (no reaction,
///   tracking scope or derived value depends on it), it stops listening as soon as its inputs
///   change: writing them then costs what writing unobserved fields costs.
/// - **Values that hold state are read fresh.** A value that can hold observable state (a child
///   state, rows, a struct or enum with state inside) is recomputed at every read: its fields can
///   change in place (`state.child.count += 1`) while its inputs (`state.child`) keep their
///   identity, and a reader of `value.count` must read the new count. A recomputed value that is
///   the same replaces the cached copy without re-running the readers.
///
/// A derived value is read like a tracked field: inside reactions, render bodies, `withTracking`
/// and other derived values, reading `value` makes it a dependency. Reactions that read it re-run
/// only when its value really changed; a `withTracking` scope (which cannot wait for the check) is
/// told, once the transaction ends, whenever an input changed.
///
/// Read it from one isolation at a time, like the state it reads (the main actor for a store's
/// state); writes to its inputs may come from any thread.
public final class Derived<Value> {
  internal let core: DerivedCore<Value>

  /// A derived value whose readers re-run whenever it is recomputed, unless the new value is the
  /// same by Observant's write rules (identity for observable state, `===` for class references).
  ///
  /// - Parameters:
  ///   - name: the name access logs and run causes show (`Derived.name`).
  ///   - compute: the computation; what it reads is tracked.
  /// - Complexity: O(1); nothing is computed until `value` is read.
  public init(_ name: String = "Derived", _ compute: @escaping () -> Value) {
    core = DerivedCore(name: name, isEqual: { _isUnchanged($0, $1) }, compute: compute)
  }

  /// A derived value whose readers re-run only when a recomputed value differs (`!=`) from the
  /// previous one.
  ///
  /// - Parameters:
  ///   - name: the name access logs and run causes show (`Derived.name`).
  ///   - compute: the computation; what it reads is tracked.
  /// - Complexity: O(1); nothing is computed until `value` is read.
  public init(_ name: String = "Derived", _ compute: @escaping () -> Value) where Value: Equatable {
    core = DerivedCore(name: name, isEqual: ==, compute: compute)
  }

  /// A derived value that decides with `isEqual` whether a recomputed value is a change.
  ///
  /// - Parameters:
  ///   - name: the name access logs and run causes show (`Derived.name`).
  ///   - isEqual: `true` when the new value (second argument) may be treated as the old one
  ///     (first argument): the readers do not re-run, and the old value is kept (a value that can
  ///     hold observable state is replaced by the new copy, which carries its fields' current
  ///     content, still without re-running the readers).
  ///   - compute: the computation; what it reads is tracked.
  public init(
    _ name: String = "Derived", isEqual: @escaping (Value, Value) -> Bool, _ compute: @escaping () -> Value
  ) {
    core = DerivedCore(name: name, isEqual: isEqual, compute: compute)
  }

  deinit {
    core.dispose()
  }

  /// The value of the current inputs, computed if an input changed since the last computation.
  /// Inside a tracking scope, the read makes this derived value a dependency.
  ///
  /// - Complexity: O(1) when nothing changed; otherwise the computation, plus bringing the derived
  ///   values it read up to date.
  public var value: Value { core.read() }

  /// The name given at creation.
  public var name: String { core.name }

  /// How many times the value was computed (for tests and diagnostics).
  public var computationCount: Int { core.computationCount }

  /// How many observer entries are installed on this derived value: one per reader that depends
  /// on it (reactions, tracking scopes, other derived values).
  public var readerCount: Int { core.registrar.observerEntryCount }
}

extension Derived: CustomStringConvertible {
  public var description: String { "Derived(\(name), computations: \(computationCount))" }
}
