// observant-bench: what Observant does better, measured against Apple's Observation in one run.
//
//   swift run -c release observant-bench [--quick] [--only micro] [--output DIR]
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Options {
  var quick = false
  var sections: Set<String> = ["micro", "flush"]
}

func parseOptions(_ arguments: [String]) -> Options {
  var options = Options()
  var iterator = arguments.makeIterator()
  while let argument = iterator.next() {
    switch argument {
    case "--debug-timing":
      debugTiming = true
    case "--quick":
      options.quick = true
    case "--only":
      guard let value = iterator.next() else { fail("--only needs a section name (micro)") }
      options.sections = Set(value.split(separator: ",").map(String.init))
      let known: Set<String> = ["micro", "flush"]
      if let unknown = options.sections.subtracting(known).first { fail("unknown section '\(unknown)' (known: micro, flush)") }
    case "--help", "-h":
      print("usage: observant-bench [--quick] [--only micro]")
      exit(0)
    default:
      fail("unknown argument '\(argument)' (try --help)")
    }
  }
  return options
}

func fail(_ message: String) -> Never {
  progress("error: \(message)")
  exit(2)
}

/// Progress goes to standard error so standard output stays a clean report.
func progress(_ message: String) {
  var line = message + "\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let timing = options.quick ? Timing.quick : Timing.standard

if options.sections.contains("micro") {
  let results = MicroBenchmarks.run(timing, quick: options.quick) { progress("micro: \($0)") }
  var table = TextTable(header: ["operation", "Observant", "Apple", "Apple/Observant", "what"])
  table.rightAligned = [1, 2, 3]
  for result in results {
    let decimals = result.unit == "bytes" ? 0 : (result.observant < 10 ? 2 : 1)
    table.append([
      result.name,
      format(result.observant, decimals: decimals) + " " + result.unit,
      format(result.apple, decimals: decimals) + " " + result.unit,
      format(result.ratio, decimals: 2) + "x",
      result.summary,
    ])
  }
  print("Micro-benchmarks (median of \(timing.repetitions), same process)\n")
  print(table.render())
}

if options.sections.contains("flush") {
  let results = FlushBenchmarks.run(timing, counts: [1, 100, 10_000]) { progress("flush: \($0)") }
  var table = TextTable(header: ["live reactions", "one dirty: ns per transaction"])
  table.rightAligned = [0, 1]
  for result in results {
    table.append([String(result.liveReactions), format(result.nanosecondsPerTransaction)])
  }
  print("\nReaction flush cost: a write that dirties one reaction, with N live (median of \(timing.repetitions))\n")
  print(table.render())
}
