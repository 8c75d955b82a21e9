#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Command-line options of `observant-bench`.
struct Options {
  enum Section: String, CaseIterable {
    case scenarios, micro, scaling, flush, instructions, derived
  }

  var sections: [Section] = Section.allCases
  /// Fewer repetitions and smaller N.
  var quick = false
  /// Quick mode that fails when an Observant count differs from the minimal count.
  var check = false
  /// Where to write report.md, results.json and scaling.svg; `nil`: write nothing.
  var outputDirectory: String? = Options.defaultOutputDirectory
  /// `--derived-workload`: run one workload of `DerivedBenchmarks` alone (for profilers).
  var derivedWorkload: (name: String, strategy: String, operations: Int)?
  private var outputChosen = false

  static let defaultOutputDirectory = ".benchmarks"

  static let help = """
    usage: observant-bench [--output DIR | --no-output] [--check] [--quick] [--only SECTIONS]

    Measures what Observant does better than Apple's Observation, in one process:
      scenarios  bodies re-run per step of small UI scripts, per strategy, next to the minimal count
      micro      ns per operation, Observant vs Apple (median of interleaved repetitions)
      scaling    one row mutation with 100 to 100,000 rows rendered: time and heap bytes per row
      flush      reaction flush cost with 1, 100 and 10,000 live reactions
      instructions  instructions and allocations per row action, counted by callgrind (valgrind)
      derived    derived values vs recomputing in the body vs Apple: deep chain, wide fan-out
    Tables go to standard output, progress to standard error. A full run takes well under three
    minutes on a 2-core machine; --check takes seconds.

    options:
      --output DIR     write report.md, results.json and scaling.svg to DIR (default: .benchmarks)
      --no-output      write no files
      --check          quick run for CI: exits with status 1 if any Observant count differs from the
                       minimal count (printing which); writes files only when --output is given
      --quick          fewer repetitions, scaling up to 1,000 rows
      --only SECTIONS  comma-separated sections to run: scenarios, micro, scaling, flush, instructions,
                       derived
      --debug-timing   print timing calibration to standard error
      --derived-workload NAME STRATEGY OPERATIONS
                       run one derived workload (name prefix) with one strategy (derived, body,
                       apple) OPERATIONS times and exit: for profilers (perf record)
      -h, --help       print this help

    exit status: 0 done, 1 --check found a count that differs from minimal, 2 bad arguments
    """

  static func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--output":
        guard let value = iterator.next(), !value.hasPrefix("--") else {
          fail("--output needs a directory (try --help)")
        }
        options.outputDirectory = value
        options.outputChosen = true
      case "--no-output":
        options.outputDirectory = nil
        options.outputChosen = true
      case "--check":
        options.check = true
      case "--quick":
        options.quick = true
      case "--only":
        guard let value = iterator.next(), !value.hasPrefix("--") else {
          fail("--only needs sections, e.g. --only scenarios,micro (known: \(Self.sectionNames))")
        }
        var sections: [Section] = []
        for name in value.split(separator: ",") {
          guard let section = Section(rawValue: String(name)) else {
            fail("unknown section '\(name)' (known: \(Self.sectionNames))")
          }
          sections.append(section)
        }
        options.sections = Section.allCases.filter(sections.contains)
      case "--derived-workload":
        guard let name = iterator.next(), let strategy = iterator.next(),
          let count = iterator.next().flatMap({ Int($0) })
        else { fail("--derived-workload needs NAME STRATEGY OPERATIONS (try --help)") }
        options.derivedWorkload = (name, strategy, count)
      case "--debug-timing":
        debugTiming = true
      case "--help", "-h":
        print(help)
        exit(0)
      default:
        fail("unknown option '\(argument)' (try --help)")
      }
    }
    if options.check {
      options.quick = true
      if !options.outputChosen { options.outputDirectory = nil }
    }
    return options
  }

  private static var sectionNames: String { Section.allCases.map(\.rawValue).joined(separator: ", ") }
}
