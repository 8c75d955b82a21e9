// swift-format-ignore-file
import Foundation
import Observant
import ObservantObservationBridge
import ObservantTestSupport
import Observation
import Synchronization
import Testing

// Hunt 2 (H2): a @Tracked object that readers read goes away in the middle of a write (replaced or
// removed in a dictionary or an array, set to nil), inside a transaction or not. Readers: an Apple
// scope with the bridge on, a `withTracking` scope, whose onChange reads the model (through the
// holder, where the write happens), a reaction and a derived value. Each scenario runs in a child
// process: a reader told inside the dictionary's or array's setter would stop the program.

final class H2Item: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var value = 0
  init(_ value: Int) { self.value = value }
}

final class H2Holder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var items: [Int: H2Item] = [:]
  @Tracked var list: [H2Item] = []
  @Tracked var single: H2Item?
  @Tracked var other = 0
}

enum H2Place: Int, CaseIterable, Sendable {
  case dictionaryReplaced, dictionaryRemoved, arrayReplaced, arrayRemoved, optionalNil, optionalReplaced
}

@MainActor
enum H2LifetimeScenario {
  /// Returns the problems seen (empty: fine).
  static func run(_ place: H2Place, inTransaction: Bool) -> [String] {
    ObservationBridge.withBridgeForTesting {
      var problems: [String] = []
      let holder = H2Holder()
      var item: H2Item? = H2Item(1)
      holder.items[1] = item
      holder.list = [item!]
      holder.single = item
      weak let weakItem = item
      item = nil
      /// What the holder shows now for the item's place (read without tracking).
      @Sendable func current() -> Int {
        withoutTracking {
          switch place {
          case .dictionaryReplaced, .dictionaryRemoved: holder.items[1]?.value ?? -1
          case .arrayReplaced, .arrayRemoved: holder.list.first?.value ?? -1
          case .optionalNil, .optionalReplaced: holder.single?.value ?? -1
          }
        }
      }
      let appleFires = BHCounter()
      let appleSeen = Mutex<[Int]>([])
      withObservationTracking {
        _ = weakItem?.value
      } onChange: {
        appleFires.bump()
        let value = current()
        appleSeen.withLock { $0.append(value) }
      }
      let oneShotFires = BHCounter()
      let oneShotSeen = Mutex<[Int]>([])
      withTracking {
        _ = weakItem?.value
      } onChange: {
        oneShotFires.bump()
        let value = current()
        oneShotSeen.withLock { $0.append(value) }
      }
      let derived = Derived("item") { weakItem?.value ?? -1 }
      var shown = -2
      let reaction = Reaction("item") { shown = derived.value }
      var direct = -2
      let directReaction = Reaction("direct") { direct = weakItem?.value ?? -1 }
      let write = {
        switch place {
        case .dictionaryReplaced: holder.items[1] = H2Item(5)
        case .dictionaryRemoved: holder.items[1] = nil
        case .arrayReplaced: holder.list[0] = H2Item(5)
        case .arrayRemoved: holder.list.removeAll()
        case .optionalNil: holder.single = nil
        case .optionalReplaced: holder.single = H2Item(5)
        }
      }
      // Only the place under test holds the item.
      switch place {
      case .dictionaryReplaced, .dictionaryRemoved:
        holder.list = []
        holder.single = nil
      case .arrayReplaced, .arrayRemoved:
        holder.items = [:]
        holder.single = nil
      case .optionalNil, .optionalReplaced:
        holder.items = [:]
        holder.list = []
      }
      if weakItem == nil { problems.append("setup: the item went away early") }
      if inTransaction {
        transaction {
          write()
          holder.other += 1
        }
      } else {
        write()
      }
      let truth = current()
      if weakItem != nil { problems.append("the item is still alive") }
      // "an observed object going away counts as a change: onChange runs once" (withTracking);
      // "Apple's observers of its fields hear one last change" (ObservationBridge).
      if oneShotFires.value != 1 { problems.append("withTracking onChange ran \(oneShotFires.value) times") }
      if appleFires.value != 1 { problems.append("Apple onChange ran \(appleFires.value) times") }
      for value in oneShotSeen.withLock({ $0 }) where value != truth {
        problems.append("withTracking onChange read \(value), the holder shows \(truth)")
      }
      for value in appleSeen.withLock({ $0 }) where value != truth {
        problems.append("Apple onChange read \(value), the holder shows \(truth)")
      }
      // Reactions and derived values: the docs promise nothing when an object goes away (they
      // keep showing 1); they are here as readers that must not make the write crash.
      _ = (reaction, directReaction, shown, direct)
      return problems
    }
  }

  /// Every place, outside and inside a transaction; names each scenario on standard error before
  /// it runs (a crash shows which), then its problems.
  static func runAllAndExit() -> Never {
    var failed = false
    for place in H2Place.allCases {
      for inTransaction in [false, true] {
        FileHandle.standardError.write(Data("scenario \(place) inTransaction \(inTransaction)\n".utf8))
        let problems = run(place, inTransaction: inTransaction)
        if !problems.isEmpty {
          failed = true
          FileHandle.standardError.write(Data(("  " + problems.joined(separator: "\n  ") + "\n").utf8))
        }
      }
    }
    exit(failed ? 1 : 0)
  }
}

@Suite("H2Lifetime")
struct H2LifetimeTests {
  @Test("an object readers read goes away in a write: every reader is told once, after the write, and sees the holder's truth")
  func objectGoesAway() async {
    let result = await #expect(processExitsWith: .exitCode(0), observing: [\.standardErrorContent]) {
      await H2LifetimeScenario.runAllAndExit()
    }
    if let result, result.exitStatus != .exitCode(0) {
      Issue.record("\(String(decoding: result.standardErrorContent, as: UTF8.self))")
    }
  }
}

@MainActor
@Suite("H2LifetimeInProcess")
struct H2LifetimeInProcessTests {
  /// For diagnosis (H2_INPROC=1): the same scenarios in this process, one expectation each.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["H2_INPROC"] != nil), arguments: H2Place.allCases, [false, true])
  func inProcess(place: H2Place, inTransaction: Bool) {
    let problems = H2LifetimeScenario.run(place, inTransaction: inTransaction)
    #expect(problems.isEmpty, "\(problems)")
  }
}
