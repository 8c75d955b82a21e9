/// The report as text: the same sections on standard output (aligned tables) and in `report.md`
/// (Markdown tables, with a preamble on how to read them).
extension BenchmarkReport {
  enum Style {
    case console
    case markdown
  }

  func text(_ style: Style) -> String {
    var out: [String] = []
    func heading(_ title: String) { out.append(style == .markdown ? "## \(title)" : "== \(title)") }
    func paragraph(_ text: String) { out.append(text) }
    func table(_ table: TextTable) {
      out.append(style == .markdown ? table.markdown() : table.render())
    }

    if style == .markdown {
      out.append("# Observant benchmark report")
      paragraph(
        "Generated \(startedAt) by `observant-bench\(arguments.isEmpty ? "" : " " + arguments.joined(separator: " "))` "
          + "in \(format(seconds, decimals: 0)) s.\n\nMachine: \(machine.summary).")
      paragraph(Self.howToRead)
    }

    if let scenarios {
      heading("Scenarios: bodies re-run per step, per strategy")
      paragraph(
        """
        Each step is one action (or one measurement) of a short script; steps of a script run in order on one \
        screen per strategy. "minimal" is the least any correct UI could re-run; the PASS/FAIL column compares \
        Observant's counts with it (through its reactions, and through Apple's tracking with the bridge). n/a: the strategy has no way to express the step.
        """)
      table(Self.scenarioTable(scenarios, describing: style == .markdown))
      if style == .console {
        paragraph("Steps (what happens: what must re-run):\n\n" + Self.scenarioLegend(scenarios))
      }
      paragraph("Strategies:\n" + Strategy.allCases.map { "- \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
      paragraph(
        failures.isEmpty
          ? "Result: Observant re-runs the minimal count in every step."
          : "Result: Observant differs from the minimal count in "
            + failures.map { failure in
              let counts = Strategy.observantStrategies.map {
                "\($0.rawValue) \(failure.counts[$0].map { String($0.runs) } ?? "n/a")"
              }
              return "\(failure.name) (\(counts.joined(separator: ", ")) vs \(failure.minimal))"
            }
            .joined(separator: ", ") + ".")
    }

    if let micro {
      heading(
        "Micro-benchmarks: Observant vs Apple's Observation (median of \(microRepetitions), interleaved, same process)")
      table(Self.microTable(micro))
    }

    if let scaling {
      heading("Scaling: one row mutation, re-render included, with N rows rendered")
      paragraph(
        """
        Time per action (median; repetitions per N in the last column) and bodies the action re-ran \
        (observant / apple-value-array / apple-row-classes).
        """)
      table(Self.scalingTimeTable(scaling))
      paragraph(
        "Heap bytes per rendered row (the model, the render tree and the observation), and the time to build each tree."
      )
      table(Self.scalingMemoryTable(scaling))
      if style == .markdown { paragraph("![Time per row mutation against rows rendered](scaling.svg)") }
    }

    if let instructions {
      heading(
        "Instructions and allocations per row action (callgrind, \(InstructionCounts.actions) actions after 2 warm-up)")
      paragraph(
        instructions.isEmpty
          ? "Not measured: valgrind is not installed."
          : "The scaling benchmark's row action, re-render included, counted by `valgrind --tool=callgrind`.")
      if !instructions.isEmpty { table(InstructionCounts.table(instructions)) }
    }

    if let microInstructions, !microInstructions.isEmpty {
      heading("Instructions and allocations per micro-benchmark operation (callgrind)")
      paragraph(
        "The micro-benchmarks above, counted by `valgrind --tool=callgrind` after a warm-up pass: stable where times are noisy."
      )
      table(InstructionCounts.microTable(microInstructions))
    }

    if let derivedInstructions, !derivedInstructions.isEmpty {
      heading("Instructions and allocations per write of the derived-value workloads (callgrind)")
      paragraph(
        "The derived-value workloads below, one strategy per callgrind run, counted after one warm-up write.")
      table(InstructionCounts.derivedTable(derivedInstructions))
    }

    if let flush {
      heading("Reaction flush cost: a write that dirties one reaction, with N live (median of \(flushRepetitions))")
      table(Self.flushTable(flush))
    }

    if let derived {
      heading("Derived values: ns per write and the runs it causes (median of \(derivedRepetitions))")
      paragraph(DerivedBenchmarks.legend)
      table(DerivedBenchmarks.table(derived))
    }
    return out.joined(separator: "\n\n") + "\n"
  }

  private static var howToRead: String {
    """
    How to read it:

    - **Scenarios** count work, not time: how many bodies (renders) each strategy re-runs for the same \
    action on the same UI. Observant runs in `ObservantHarness`; the Apple strategies run in a render-tree \
    simulator built on `withObservationTracking` (one-shot, fires in `willSet`: dirty bodies re-run after the \
    mutation, parents first, and install their tracking again); whole-state and equatable-diffing run in the \
    same simulator with a broadcast instead of tracking. A lower count than another strategy's is less work \
    for the same screen; a count above "minimal" is wasted work.
    - **equatable-diffing** shows body runs, then in parentheses the view-state computations every action \
    pays for every live body: its body runs can be minimal while its work grows with the screen.
    - **Micro-benchmarks** are nanoseconds per operation (bytes for the last two), median of interleaved \
    repetitions. Apple/Observant above 1 means Observant is cheaper. The read benchmarks cycle through \
    \(MicroBenchmarks.ringSize) objects so that nothing is hoisted out of the loop; plain-read is the floor.
    - **Scaling** shows whether one row's change costs more when more rows are on screen. Flat lines are \
    O(1) in N; a line rising with N does work for every row (re-running, re-examining or copying it).
    """
  }
}
