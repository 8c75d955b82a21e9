import Dispatch
import Foundation
import Observant
import Synchronization
import ObservantTestSupport
import Testing

@Suite("Tracking contract")
struct TrackingTests {
  @Test("only the fields read trigger onChange")
  func onlyReadFieldsTrigger() {
    let profile = Profile()
    let (changes, _) = observe { _ = profile.first }
    profile.last = "Byron"
    profile.count += 1
    #expect(changes.value == 0)
    profile.first = "Augusta"
    #expect(changes.value == 1)
  }

  @Test("computed properties are tracked through the fields they read")
  func computedPropertiesTrackStorage() {
    let profile = Profile()
    let (changes, observation) = observe { _ = profile.fullName }
    #expect(observation.accesses.fields == ["Profile.first", "Profile.last"])
    profile.last = "Byron"
    #expect(changes.value == 1)
  }

  @Test("a field read 1000 times is one dependency")
  func repeatedReadsAreOneDependency() {
    let profile = Profile()
    let parent = Parent()
    let (_, observation) = observe {
      for _ in 0..<1000 {
        _ = profile.count
        _ = parent.title
      }
    }
    #expect(observation.accesses.count == 2)
    #expect(profile.trackingRegistrar.observerEntryCount == 1)
    #expect(parent.registrar.observerEntryCount == 1)
  }

  @Test("interleaved reads of many fields are deduplicated")
  func manyFieldsDeduplicated() {
    let rows = (0..<50).map { Row(id: $0) }
    let (_, log) = recordAccesses {
      for _ in 0..<3 { for row in rows { _ = row.count } }
    }
    #expect(log.count == 50)
  }

  @Test("scopes of 2 to 40 fields, one after another on one thread, each keep exactly the fields they read")
  func consecutiveScopesKeepTheirOwnFields() {
    // Several objects, so that fields of different objects share keys; reads repeated out of order,
    // so that a repeat is found by search, not by comparing with the previous read.
    let profiles = (0..<10).map { _ in Profile() }
    func field(_ index: Int) -> Int {
      let profile = profiles[index / 4]
      switch index % 4 {
      case 0: return profile.count
      case 1: return profile.other
      case 2: return profile.first.count
      default: return profile.last.count
      }
    }
    // A fixed order, so that the test is the same every run.
    var generator = FixedOrder(state: 20_261_126)
    var observations: [(fields: Int, counter: Counter, observation: TrackingObservation)] = []
    for fields in 2...40 {
      var order = Array(0..<fields) + Array(0..<fields)
      order.shuffle(using: &generator)
      let (counter, observation) = observe { for index in order { _ = field(index) } }
      #expect(observation.accesses.count == fields, "scope of \(fields) fields")
      observations.append((fields, counter, observation))
    }
    // Each profile field i is read by every scope of more than i fields.
    let entries = profiles.reduce(0) { $0 + $1.trackingRegistrar.observerEntryCount }
    #expect(entries == (2...40).reduce(0, +))
    profiles[0].count += 1
    for (fields, counter, observation) in observations {
      #expect(counter.value == 1, "scope of \(fields) fields fired \(counter.value) times")
      #expect(!observation.isActive)
    }
    #expect(profiles.allSatisfy { $0.trackingRegistrar.observerEntryCount == 0 })
  }

  @Test("fields that are not tracked never trigger")
  func untrackedFieldsNeverTrigger() {
    let profile = Profile()
    let (changes, observation) = observe {
      _ = profile.note
      withoutTracking { _ = profile.count }
    }
    #expect(!observation.isActive)
    profile.note = "changed"
    profile.count = 5
    #expect(changes.value == 0)
  }

  @Test("nothing read installs nothing")
  func nothingReadInstallsNothing() {
    let profile = Profile()
    let (_, observation) = observe { _ = 1 + 1 }
    #expect(!observation.isActive)
    #expect(observation.accesses.isEmpty)
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("onChange fires once, then the observation is gone")
  func oneShot() {
    let profile = Profile()
    let (changes, observation) = observe {
      _ = profile.first
      _ = profile.count
    }
    #expect(profile.trackingRegistrar.observerEntryCount == 2)
    profile.first = "A"
    profile.first = "B"
    profile.count = 3
    #expect(changes.value == 1)
    #expect(!observation.isActive)
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("onChange runs before the value changes (willSet), on the writing thread")
  func willSetTiming() {
    let profile = Profile()
    let seen = Mutex<[String]>([])
    withTracking {
      _ = profile.first
    } onChange: {
      seen.withLock { $0.append(profile.first) }
    }
    profile.first = "Augusta"
    #expect(seen.withLock { $0 } == ["Ada"])
    #expect(profile.first == "Augusta")
  }

  @Test("in-place mutation of a trivially copyable field notifies before it changes")
  func willSetTimingForInPlaceMutation() {
    let profile = Profile()
    profile.count = 41
    let seen = Mutex<[Int]>([])
    withTracking {
      _ = profile.count
    } onChange: {
      seen.withLock { $0.append(profile.count) }
    }
    profile.count += 1
    #expect(seen.withLock { $0 } == [41])
    #expect(profile.count == 42)
  }

  @Test("a re-entrant write inside onChange fires once")
  func reentrantWriteFiresOnce() {
    let profile = Profile()
    let changes = Counter()
    withTracking {
      _ = profile.count
    } onChange: {
      changes.increment()
      profile.count += 100  // writes the field being observed, from inside onChange
    }
    profile.count = 1
    #expect(changes.value == 1)
    #expect(profile.count == 1)  // onChange ran before the outer write stored 1
  }

  @Test("onChange fires exactly once with two threads writing concurrently, over thousands of scopes")
  func exactlyOnceUnderContention() {
    let profile = Profile()
    let scopes = 3000
    let fired = (0..<scopes).map { _ in Counter() }
    for index in 0..<scopes {
      withTracking {
        _ = profile.count
        _ = profile.other
      } onChange: {
        fired[index].increment()
      }
    }
    // Thread 0 writes `count`, thread 1 writes `other`: both hit every scope concurrently.
    DispatchQueue.concurrentPerform(iterations: 2) { thread in
      for value in 1...50 {
        if thread == 0 { profile.count = value } else { profile.other = value }
      }
    }
    #expect(fired.allSatisfy { $0.value == 1 })
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("scopes installed while other threads write fire exactly once")
  func exactlyOnceWhileInstalling() {
    let profile = Profile()
    let rounds = 2000
    let fired = (0..<rounds).map { _ in Counter() }
    let done = Atomic<Bool>(false)
    // The values are read and written under a lock (a field's storage is not atomic: without it,
    // the test itself would race); the scopes are installed, and the writes announced to them,
    // concurrently all the same.
    let values = NSLock()
    DispatchQueue.concurrentPerform(iterations: 3) { thread in
      switch thread {
      case 0:
        for index in 0..<rounds {
          withTracking {
            values.withLock {
              _ = profile.count
              _ = profile.other
            }
          } onChange: {
            fired[index].increment()
          }
        }
        done.store(true, ordering: .releasing)
      case 1:
        var value = 0
        while !done.load(ordering: .acquiring) {
          value += 1
          values.withLock { profile.count = value }
        }
        values.withLock { profile.count = -1 }
      default:
        var value = 0
        while !done.load(ordering: .acquiring) {
          value += 1
          values.withLock { profile.other = value }
        }
        values.withLock { profile.other = -1 }
      }
    }
    #expect(fired.allSatisfy { $0.value == 1 })
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("cancelling releases every observer entry and the onChange closure")
  func cancelReleasesObservers() {
    let profile = Profile()
    weak var captured: Token?
    var observation: TrackingObservation?
    do {
      let token = Token()
      captured = token
      (_, observation) = withCancellableTracking {
        _ = profile.first
        _ = profile.count
      } onChange: {
        _ = token
      }
    }
    #expect(captured != nil)
    #expect(profile.trackingRegistrar.observerEntryCount == 2)
    observation?.cancel()
    #expect(captured == nil)
    #expect(profile.trackingRegistrar.observerEntryCount == 0)
    #expect(observation?.isActive == false)
    profile.first = "changed"  // nothing to call
  }

  @Test("deallocating the observed object releases every observer entry and the closure")
  func deallocReleasesObservers() {
    weak var captured: Token?
    weak var weakProfile: Profile?
    var observation: TrackingObservation?
    do {
      let profile = Profile()
      weakProfile = profile
      let token = Token()
      captured = token
      (_, observation) = withCancellableTracking {
        _ = profile.first
      } onChange: {
        _ = token
      }
    }
    #expect(weakProfile == nil)
    #expect(captured == nil)
    #expect(observation?.isActive == false)
  }

  @Test("an observation without a handle is freed with the observed object")
  func deallocReleasesHandlelessObservers() {
    weak var captured: Token?
    do {
      let profile = Profile()
      let token = Token()
      captured = token
      withTracking {
        _ = profile.first
      } onChange: {
        _ = token
      }
      #expect(captured != nil)
    }
    #expect(captured == nil)
  }

  @Test("equal writes are silent: Equatable by ==, references by ===")
  func equalWritesAreSilent() {
    let profile = Profile()
    let holder = Holder()
    let (changes, _) = observe {
      _ = profile.first
      _ = profile.count
      _ = profile.ratio
      _ = holder.token
      _ = holder.pair
    }
    profile.first = "Ada"
    profile.count = 0
    profile.count += 0
    profile.ratio *= 1
    holder.token = holder.token
    holder.pair = Pair()
    holder.pair.left += 0
    #expect(changes.value == 0)
    holder.token = Token()
    #expect(changes.value == 1)
  }

  @Test("a write of a value that is neither Equatable nor a reference always notifies")
  func opaqueWritesNotify() {
    var parent = Parent()
    let (changes, _) = observe { _ = parent.opaque }
    parent.opaque = parent.opaque
    #expect(changes.value == 1)
  }

  @Test("in-place mutation of a collection notifies, and never copies its storage")
  func inPlaceCollectionMutation() {
    let profile = Profile()
    profile.tags.reserveCapacity(16)
    profile.tags.append("a")
    let before = profile.tags.withUnsafeBufferPointer { $0.baseAddress }
    let (changes, _) = observe { _ = profile.tags }
    profile.tags.append("b")
    #expect(changes.value == 1)
    #expect(profile.tags.withUnsafeBufferPointer { $0.baseAddress } == before)
  }

  @Test("an inner scope's reads stay inside it unless it asks to propagate")
  func nestedScopesDoNotLeak() {
    let profile = Profile()
    let (_, outer) = recordAccesses {
      _ = profile.first
      _ = recordAccesses { _ = profile.last }
      _ = recordAccesses(propagatingToOuterScope: true) { _ = profile.count }
    }
    #expect(outer.fields == ["Profile.first", "Profile.count"])
  }

  @Test(
    "withTracking(propagatingToOuterScope: true) merges the inner scope's reads into the enclosing one, as Apple's nested scopes do"
  )
  func withTrackingPropagates() {
    let profile = Profile()
    let outerChanges = Counter()
    let innerChanges = Counter()
    withTracking {
      _ = profile.first
      withTracking {
        _ = profile.last
      } onChange: {
      }  // kept to itself
      withTracking(propagatingToOuterScope: true) {
        _ = profile.count
      } onChange: {
        innerChanges.increment()
      }
    } onChange: {
      outerChanges.increment()
    }
    profile.last = "Hopper"
    #expect(outerChanges.value == 0)
    profile.count += 1  // read by the inner scope, merged into the outer one: both fire
    #expect(outerChanges.value == 1 && innerChanges.value == 1)
  }

  @Test("access logs print TypeName.field for classes and value types")
  func accessLogNames() {
    let profile = Profile()
    var parent = Parent()
    parent.rows.append(Row(id: 1))
    let (_, log) = recordAccesses {
      _ = profile.first
      _ = parent.child.count
      _ = parent.rows[id: 1]?.count
    }
    #expect(log.fields == ["Profile.first", "Parent.child", "Child.count", "Parent.rows", "Row.count"])
    #expect(log.description == "[Profile.first, Parent.child, Child.count, Parent.rows, Row.count]")
    #expect(log.contains("Profile.first"))
    #expect(log.contains("Child.count"))
    #expect(log.contains("count"))
    #expect(!log.contains("Child.name"))
  }

  @Test("hand-written accessors report reads and mutations by the property's name")
  func handWrittenAccessors() {
    let document = Document()
    let (titleChanges, titleObservation) = observe { _ = document.title }
    let (bodyChanges, _) = observe { _ = document.body }
    #expect(titleObservation.accesses.fields == ["Document.title"])
    document.body = "text"
    #expect(titleChanges.value == 0)
    #expect(bodyChanges.value == 1)
    document.title = "Draft"
    #expect(titleChanges.value == 1)
  }
}

/// A class with hand-written tracked accessors over private storage.
final class Document: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  private var storage = (title: "", body: "")
  var title: String {
    get { trackAccess(); return storage.title }
    set { trackMutation { storage.title = newValue } }
  }
  var body: String {
    get { trackAccess(); return storage.body }
    set { trackMutation { storage.body = newValue } }
  }
}

/// A fixed-seed generator, for shuffles that are the same every run.
private typealias FixedOrder = SplitMix64
