// swift-format-ignore-file
import Observant
import ObservantObservationBridge
import Observation
import Synchronization
import Testing

@MainActor
@Suite("H2LifetimeMinimal")
struct H2LifetimeMinimalTests {
  /// A `@Tracked var single: H2Item?` holds the only reference to an item an Apple scope
  /// read (bridge on); `holder.single = nil` (its own transaction). Apple's onChange, reading the
  /// holder, found the item there (value 1), not nil.
  /// Docs (SwiftUI and UIKit, "After the change, once per transaction"): "the bridge reports it
  /// when the writing transaction ends, once, after the value changed (a `store.send` is one
  /// transaction)"; ObservationBridge: "When an observed object ... goes away, Apple's observers
  /// of its fields hear one last change".
  @Test("Apple's onChange for an object set to nil sees the holder after the write", arguments: [false, true])
  func appleScopeObjectSetToNil(withOneShotScope: Bool) {
    ObservationBridge.withBridgeForTesting {
      let holder = H2Holder()
      holder.single = H2Item(1)
      weak let item = holder.single
      let seen = Mutex<[Int]>([])
      withObservationTracking {
        _ = item?.value
      } onChange: {
        let value = withoutTracking { holder.single?.value ?? -1 }
        seen.withLock { $0.append(value) }
      }
      if withOneShotScope {
        withTracking { _ = item?.value } onChange: {}
      }
      holder.single = nil
      #expect(item == nil)
      #expect(seen.withLock { $0 } == [-1])
    }
  }

  /// The same with Observant's own one-shot scope, the write inside a transaction: onChange
  /// runs once the object is being released (a weak reference to it is already nil), and reading
  /// the holder there handed out the item (value 1, an object in the middle of its deinit), not
  /// nil: a generic assignment destroyed the old value before storing the new one. The setters now
  /// store first.
  /// Docs (withTracking): "An object whose field `apply` read going away ... is a change too ...
  /// `onChange` runs once, on the thread that released the object".
  @Test("withTracking's onChange for an object set to nil inside a transaction sees it gone")
  func oneShotObjectSetToNilInTransaction() {
    let holder = H2Holder()
    holder.single = H2Item(1)
    weak let item = holder.single
    let seen = Mutex<[Int]>([])
    let aliveAtFire = Mutex<[Bool]>([])
    withTracking {
      _ = item?.value
    } onChange: {
      aliveAtFire.withLock { $0.append(item != nil) }
      let value = withoutTracking { holder.single?.value ?? -1 }
      seen.withLock { $0.append(value) }
    }
    transaction {
      holder.single = nil
      holder.other += 1
    }
    #expect(item == nil)
    #expect(aliveAtFire.withLock { $0 } == [false], "onChange ran while the object was still alive")
    #expect(seen.withLock { $0 } == [-1])
  }

  /// A sibling: the last reference to the object is the old value a transaction's write record
  /// keeps (the holder's field has a reader, and the write may be set back), released when the
  /// transaction ends; the one-shot scope's `onChange` then writes a tracked field. It must run
  /// outside the transaction's bookkeeping (a write from inside it would enter the write records
  /// while they are being emptied), and see the object gone.
  @Test("withTracking's onChange for an object whose last reference a transaction kept can write tracked fields")
  func oneShotObjectKeptByTheTransaction() async {
    await #expect(processExitsWith: .success) {
      for nested in [false, true] {
        let holder = H2Holder()
        holder.single = H2Item(1)
        weak let item = holder.single
        let slotReader = Reaction("slot") { _ = holder.single }
        let fired = Mutex<[Int]>([])
        withTracking {
          _ = item?.value
        } onChange: {
          holder.other += 1  // a tracked write from onChange
          let value = withoutTracking { holder.single?.value ?? -1 }
          fired.withLock { $0.append(value) }
        }
        transaction {
          if nested {
            transaction { holder.single = nil }
          } else {
            holder.single = nil
          }
          holder.other += 1
        }
        precondition(item == nil, "the item is gone")
        precondition(fired.withLock { $0 } == [-1], "onChange ran once and saw the item gone: \(fired.withLock { $0 })")
        precondition(holder.other == 2)
        slotReader.cancel()
      }
    }
  }
}
