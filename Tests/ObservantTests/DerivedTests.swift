import Observant
import Synchronization
import Testing

/// Inputs for derived values: class fields, whose writes notify every reader.
private final class Inputs: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var a = 0
  @Tracked var b = 0
  @Tracked var source = 0
  @Tracked var condition = true
  @Tracked var title = "Cart"
}

/// A value-type input held by a class, mutated in place.
private final class RowHolder: Trackable, @unchecked Sendable {
  let trackingRegistrar = TrackingRegistrar()
  @Tracked var rows: IdentifiedArrayOf<Row> = IdentifiedArray(uniqueElements: (1...4).map { Row(id: $0) })
}

@Suite("Derived values")
struct DerivedTests {
  // MARK: Laziness

  @Test("a derived value computes when read, once per change of its inputs: 0, 1, 1, 1, 2")
  func lazyComputation() {
    let inputs = Inputs()
    let doubled = Derived("doubled") { inputs.a * 2 }
    #expect(doubled.computationCount == 0)  // created
    #expect(doubled.value == 0)
    #expect(doubled.computationCount == 1)  // read
    #expect(doubled.value == 0)
    #expect(doubled.computationCount == 1)  // read again
    inputs.a = 5
    #expect(doubled.computationCount == 1)  // an input written, not read
    #expect(doubled.value == 10)
    #expect(doubled.computationCount == 2)  // read
  }

  @Test("a transaction writing both inputs of c = a + b recomputes c once")
  func transactionRecomputesOnce() {
    let inputs = Inputs()
    let sum = Derived("sum") { inputs.a + inputs.b }
    #expect(sum.value == 0)
    transaction {
      inputs.a = 1
      inputs.b = 2
    }
    #expect(sum.value == 3)
    #expect(sum.computationCount == 2)  // the first read, then one recomputation
  }

  @Test("a derived value read inside the transaction that changed its inputs is up to date")
  func readInsideTransaction() {
    let inputs = Inputs()
    let sum = Derived("sum") { inputs.a + inputs.b }
    let reader = Reaction("Reader") { _ = sum.value }
    transaction {
      inputs.a = 1
      #expect(sum.value == 1)
      inputs.b = 2
      #expect(sum.value == 3)
    }
    #expect(sum.computationCount == 3)
    #expect(reader.runCount == 2)
  }

  // MARK: Equality cut-off

  @Test("a derived value equal to its previous value does not re-run its reader")
  func equalityCutOff() {
    let inputs = Inputs()
    let constant = Derived("constant") { inputs.a >= 0 ? 1 : 1 }
    let reader = Reaction("Reader") { _ = constant.value }
    inputs.a = 1
    #expect(constant.computationCount == 2)
    #expect(reader.runCount == 1)
  }

  @Test("inputs set back within a transaction re-run no reader, also when the derived value was read midway")
  func setBackWithMidwayReads() {
    let inputs = Inputs()
    let derived = Derived("d") { inputs.a * 10 }
    let reader = Reaction("r") { _ = derived.value }
    transaction {
      inputs.a = 1
      #expect(derived.value == 10)
      inputs.a = 2
      #expect(derived.value == 20)
      inputs.a = 0
    }
    #expect(reader.runCount == 1)
    #expect(derived.value == 0)
    transaction {  // without midway reads, as before
      inputs.a = 1
      inputs.a = 0
    }
    #expect(reader.runCount == 1)
  }

  @Test(
    "inputs set back twice: a midway value a one-shot scope recorded in the first transaction does not make the derived value forget the value its readers hold"
  )
  func setBackAfterARecordedMidwayValue() {
    let inputs = Inputs()
    let derived = Derived("d") { inputs.a * 10 }
    let reader = Reaction("r") { _ = derived.value }
    let fired = Atomic(0)
    transaction {
      inputs.a = 1
      // Records the midway value, fires at the set-back, and does not read again.
      withTracking {
        _ = derived.value
      } onChange: {
        fired.add(1, ordering: .relaxed)
      }
      inputs.a = 0
    }
    #expect(fired.load(ordering: .relaxed) == 1)
    #expect(reader.runCount == 1)
    for round in 2...3 {
      transaction {
        inputs.a = round
        _ = derived.value  // midway, outside every scope
        inputs.a = 0
      }
    }
    #expect(reader.runCount == 1)
    inputs.a = 4
    #expect(reader.runCount == 2)
    #expect(derived.value == 40)
  }

  @Test("a chain of derived values read midway, inputs set back: no reader re-runs; a real change still re-runs it")
  func setBackThroughAChain() {
    let inputs = Inputs()
    let tens = Derived("tens") { inputs.a * 10 }
    let label = Derived("label") { "\(tens.value + inputs.b)" }
    let reader = Reaction("r") { _ = label.value }
    transaction {
      inputs.a = 1
      #expect(label.value == "10")
      inputs.b = 5
      #expect(label.value == "15")
      inputs.a = 0
      #expect(label.value == "5")
      inputs.b = 0
    }
    #expect(reader.runCount == 1)
    inputs.a = 3  // a real change re-runs the reader
    #expect(reader.runCount == 2)
    inputs.a = 0  // and back: the reader saw 30, so this is a change too
    #expect(reader.runCount == 3)
  }

  @Test("a value that comes back to what a reader read re-runs only the readers that saw something else")
  func comebackValue() {
    let inputs = Inputs()
    let derived = Derived("d") { inputs.a * 10 }
    let early = Reaction("early") { _ = derived.value }  // reads 0
    inputs.a = 1  // early re-runs: reads 10
    let late = Reaction("late") { _ = derived.value }  // reads 10
    #expect(early.runCount == 2)
    transaction {
      inputs.a = 2
      _ = derived.value  // 20, read outside any reader
      inputs.a = 1  // back to 10: what both read last
    }
    #expect(early.runCount == 2)
    #expect(late.runCount == 1)
    inputs.a = 0  // a change for both
    #expect(early.runCount == 3)
    #expect(late.runCount == 2)
  }

  @Test("parity: c1 = src % 2 recomputes on every write, c2 = c1 + 1 and its reader never again")
  func cutOffStopsTheChain() {
    let inputs = Inputs()
    let parity = Derived("parity") { inputs.source % 2 }
    let next = Derived("next") { parity.value + 1 }
    let reader = Reaction("Reader") { _ = next.value }
    for value in [2, 4, 6] {
      inputs.source = value
      #expect(parity.computationCount == 1 + value / 2)
    }
    #expect(parity.computationCount == 4)
    #expect(next.computationCount == 1)
    #expect(reader.runCount == 1)
  }

  @Test("a derived value that is not Equatable re-runs its readers whenever it recomputes")
  func nonEquatableAlwaysPropagates() {
    struct Box { var value: Int }
    let inputs = Inputs()
    let boxed = Derived("boxed") { Box(value: inputs.a >= 0 ? 1 : 0) }
    let reader = Reaction("Reader") { _ = boxed.value }
    inputs.a = 1
    #expect(boxed.computationCount == 2)
    #expect(reader.runCount == 2)
  }

  @Test("a custom equality decides what counts as a change")
  func customEquality() {
    let inputs = Inputs()
    let rounded = Derived("rounded", isEqual: { $0 / 10 == $1 / 10 }) { inputs.a }
    let reader = Reaction("Reader") { _ = rounded.value }
    inputs.a = 5
    #expect(reader.runCount == 1)
    #expect(rounded.value == 0)  // the old value is kept
    inputs.a = 12
    #expect(reader.runCount == 2)
    #expect(rounded.value == 12)
  }

  // MARK: Glitch-free

  @Test("diamond a -> {b, c} -> d: each write of a computes b, c and d once and re-runs d's reader once")
  func diamond() {
    let inputs = Inputs()
    let b = Derived("b") { inputs.a + 1 }
    let c = Derived("c") { inputs.a * 2 }
    let d = Derived("d") { b.value + c.value }
    var seen: [Int] = []
    let reader = Reaction("Reader") { seen.append(d.value) }
    for (write, value) in [1, 2, 3].enumerated() {
      inputs.a = value
      let round = write + 2
      #expect(b.computationCount == round)
      #expect(c.computationCount == round)
      #expect(d.computationCount == round)
      #expect(reader.runCount == round)
    }
    // Never a mix: d = (a + 1) + 2a for each a the reader saw.
    #expect(seen == [1, 4, 7, 10])
  }

  @Test("a reader of both a field and a derived value over it sees them agree")
  func noMixedReads() {
    let inputs = Inputs()
    let doubled = Derived("doubled") { inputs.a * 2 }
    var mismatches = 0
    let reader = Reaction("Reader") { if doubled.value != inputs.a * 2 { mismatches += 1 } }
    let other = Reaction("Other") { if inputs.a * 2 != doubled.value { mismatches += 1 } }
    for value in 1...5 { inputs.a = value }
    transaction {
      inputs.a = 10
      inputs.a = 11
    }
    #expect(mismatches == 0)
    #expect(reader.runCount == 7)
    #expect(other.runCount == 7)
    #expect(doubled.computationCount == 7)
  }

  @Test("a chain of 50 derived values: one write recomputes each once and re-runs the reader once")
  func chainOfFifty() {
    let inputs = Inputs()
    var chain = [Derived("d0") { inputs.a }]
    for index in 1..<50 {
      let previous = chain[index - 1]
      chain.append(Derived("d\(index)") { previous.value + 1 })
    }
    let last = chain[49]
    let reader = Reaction("Reader") { _ = last.value }
    #expect(chain.allSatisfy { $0.computationCount == 1 })
    inputs.a = 1
    #expect(chain.allSatisfy { $0.computationCount == 2 })
    #expect(reader.runCount == 2)
    #expect(last.value == 50)
  }

  @Test("10,000 derived values o_i = a * i summed into one: a write recomputes each once")
  func wideFanOut() {
    let inputs = Inputs()
    inputs.a = 1
    let terms = (0..<10_000).map { index in Derived("o\(index)") { inputs.a * index } }
    let sum = Derived("sum") { terms.reduce(0) { $0 + $1.value } }
    let reader = Reaction("Reader") { _ = sum.value }
    #expect(sum.value == 49_995_000)
    inputs.a = 2
    #expect(terms.allSatisfy { $0.computationCount == 2 })
    #expect(sum.computationCount == 2)
    #expect(reader.runCount == 2)
    #expect(sum.value == 99_990_000)
  }

  // MARK: Dynamic dependencies

  @Test("cond ? a : b: writing the branch not taken recomputes nothing")
  func dynamicDependencies() {
    let inputs = Inputs()
    let chosen = Derived("chosen") { inputs.condition ? inputs.a : inputs.b }
    let reader = Reaction("Reader") { _ = chosen.value }
    inputs.b = 1
    #expect(chosen.computationCount == 1)
    #expect(reader.runCount == 1)
    inputs.condition = false
    #expect(chosen.computationCount == 2)
    #expect(reader.runCount == 2)
    inputs.a = 1  // no longer read
    #expect(chosen.computationCount == 2)
    #expect(reader.runCount == 2)
  }

  // MARK: Disposal

  @Test("releasing a derived value removes its observer entries from its inputs")
  func releasingRemovesEntries() {
    let inputs = Inputs()
    var sum: Derived<Int>? = Derived("sum") { inputs.a + inputs.b }
    #expect(sum?.value == 0)
    #expect(inputs.trackingRegistrar.observerEntryCount == 2)
    sum = nil
    #expect(inputs.trackingRegistrar.observerEntryCount == 0)
  }

  @Test("a derived value nobody reads stops listening when its inputs change")
  func unreadCostsNothing() {
    let inputs = Inputs()
    let sum = Derived("sum") { inputs.a + inputs.b }
    #expect(sum.value == 0)
    #expect(inputs.trackingRegistrar.observerEntryCount == 2)
    inputs.a = 1
    #expect(inputs.trackingRegistrar.observerEntryCount == 0)
    inputs.a = 2
    inputs.b = 3
    #expect(sum.computationCount == 1)
    #expect(sum.value == 5)
    #expect(sum.computationCount == 2)
    #expect(inputs.trackingRegistrar.observerEntryCount == 2)
  }

  @Test("a derived value with readers keeps listening; when the readers go, it stops at the next change")
  func readersKeepItListening() {
    let inputs = Inputs()
    let doubled = Derived("doubled") { inputs.a * 2 }
    var reader: Reaction? = Reaction("Reader") { _ = doubled.value }
    #expect(doubled.readerCount == 1)
    inputs.a = 1
    #expect(inputs.trackingRegistrar.observerEntryCount == 1)
    reader?.cancel()
    reader = nil
    #expect(doubled.readerCount == 0)
    inputs.a = 2
    #expect(inputs.trackingRegistrar.observerEntryCount == 0)
    #expect(doubled.computationCount == 2)
  }

  @Test("a derived value a reaction still holds stays live after its creator lets go")
  func readerOfReleasedValue() {
    let inputs = Inputs()
    var doubled: Derived<Int>? = Derived("doubled") { inputs.a * 2 }
    let derived = doubled!
    let reader = Reaction("Reader") { _ = derived.value }
    doubled = nil
    inputs.a = 1
    #expect(reader.runCount == 2)  // still held by the reaction: still live
    reader.cancel()
  }

  // MARK: Everywhere a tracked field is read

  @Test("a withTracking scope over a derived value fires once an input changed")
  func oneShotReader() {
    let inputs = Inputs()
    let doubled = Derived("doubled") { inputs.a * 2 }
    let fired = Counter()
    let value = withTracking {
      doubled.value
    } onChange: {
      fired.increment()
    }
    #expect(value == 0)
    inputs.a = 1
    inputs.a = 2
    #expect(fired.value == 1)
  }

  @Test("the access log names a derived value Derived.name")
  func accessLogName() {
    let inputs = Inputs()
    let label = Derived("label") { "\(inputs.title): \(inputs.a)" }
    let (_, log) = recordAccesses { _ = label.value }
    #expect(log.fields == ["Derived.label"])
  }

  @Test("a derived value over value-type state recomputes only for the fields it read")
  func valueTypeInputs() {
    let holder = RowHolder()
    let total = Derived("total") { holder.rows.reduce(0) { $0 + $1.count } }
    let firstCount = Derived("first") { holder.rows[id: 1]?.count ?? 0 }
    let reader = Reaction("Reader") { _ = total.value }
    let firstReader = Reaction("First") { _ = firstCount.value }
    holder.rows[id: 2]?.count += 1
    #expect(total.computationCount == 2)
    #expect(firstCount.computationCount == 1)
    #expect(reader.runCount == 2)
    #expect(firstReader.runCount == 1)
    holder.rows[id: 1]?.count += 1
    #expect(firstReader.runCount == 2)
    #expect(total.value == 2)
  }

  @Test("a derived value written in place inside a reaction's run re-runs its readers after the run")
  func writesDuringFlush() {
    let inputs = Inputs()
    let doubled = Derived("doubled") { inputs.a * 2 }
    let reader = Reaction("Reader") { _ = doubled.value }
    let writer = Reaction("Writer") { inputs.a = inputs.b }
    inputs.b = 3
    #expect(writer.runCount == 2)
    #expect(reader.runCount == 2)
    #expect(doubled.value == 6)
  }

  @Test(
    "a derived value that reads itself (a cycle) stops the program with a message naming it, instead of deadlocking")
  func cycleIsReported() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Box: @unchecked Sendable { var derived: Derived<Int>? }
      let box = Box()
      let looping = Derived("looping") { (box.derived?.value ?? 0) + 1 }
      box.derived = looping
      _ = looping.value
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("the derived value \"looping\" reads itself while it computes"), "\(output)")
  }
}
