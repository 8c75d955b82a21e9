#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Instructions and heap allocations per row action, counted by callgrind: per-operation costs
/// compared without timing noise.
///
/// The benchmark runs itself under `valgrind --tool=callgrind`, once per strategy and size, with
/// `--callgrind-workload`: the child builds the scaling benchmark's screen, applies the row action
/// twice (first-run costs), then applies it `actions` times inside `observant_bench_measured_actions`
/// and exits at once. Callgrind zeroes its counters when that function is entered
/// (`--zero-before`), so its dump at exit holds the measured actions only. Instructions are
/// callgrind's `Ir` summary; allocations are the calls to `malloc` (and `calloc`, `realloc`,
/// `posix_memalign`) it recorded. Run by hand:
///
///     strip --strip-debug -o /tmp/ob .build/release/observant-bench
///     valgrind --tool=callgrind '--zero-before=*observant_bench_measured_actions*' \
///       /tmp/ob --callgrind-workload observant 1000 200
enum InstructionCounts {
  /// Instructions and allocations per operation of one micro-benchmark, both sides.
  struct MicroResult {
    let name: String
    let operations: Int
    let observant: (instructions: Double, allocations: Double)
    let apple: (instructions: Double, allocations: Double)
  }

  /// Instructions and allocations per write of one derived-value workload, per strategy.
  struct DerivedResult {
    let name: String
    let operations: Int
    /// Derived values, recomputing in the body, Apple.
    let sides: [(instructions: Double, allocations: Double)]
  }

  struct Result {
    let strategy: Strategy
    let rows: Int
    let instructionsPerAction: Double
    let allocationsPerAction: Double
  }

  static let strategies: [Strategy] = [.observant, .appleRowClasses, .appleValueArray]
  static let standardSizes = [100, 1_000, 10_000]
  static let quickSizes = [100, 1_000]
  static let actions = 200
  static let workloadFlag = "--callgrind-workload"
  static let microWorkloadFlag = "--callgrind-micro"
  /// Matches the function and its specializations (the optimizer specializes it for its closure).
  private static let marker = "*observant_bench_measured_actions*"
  private static let valgrind = "/usr/bin/valgrind"

  /// Whether valgrind is installed (the report says so when it is not).
  static var isAvailable: Bool { access(valgrind, X_OK) == 0 }

  /// Runs every strategy and size under callgrind; `nil` when valgrind is not installed.
  static func run(sizes: [Int], progress: (String) -> Void) -> [Result]? {
    guard isAvailable else {
      progress("instructions: valgrind is not installed at \(valgrind); skipped")
      return nil
    }
    // valgrind cannot read the DWARF that swiftc emits ("Possibly corrupted debuginfo file"): it
    // runs a copy without debug information (the symbol table stays).
    let executable = "/tmp/observant-bench-callgrind-\(getpid())"
    defer { unlink(executable) }
    guard spawnAndWait(["/usr/bin/strip", "--strip-debug", "-o", executable, executablePath()]) else {
      progress("instructions: could not run /usr/bin/strip --strip-debug on the benchmark; skipped")
      return nil
    }
    var results: [Result] = []
    for rows in sizes {
      for strategy in strategies where !(strategy == .appleValueArray && rows > 1_000) {
        progress("instructions: \(strategy.rawValue), \(rows) rows, \(actions) actions under callgrind")
        if let counts = measure(strategy, rows: rows, executable: executable) {
          results.append(
            Result(
              strategy: strategy, rows: rows, instructionsPerAction: counts.instructions / Double(actions),
              allocationsPerAction: counts.allocations / Double(actions)))
        }
      }
    }
    return results
  }

  /// Operations counted per micro-benchmark: enough that setup is noise, few enough that
  /// callgrind (about 50 times slower than the machine) finishes in a few seconds.
  static func microOperations(_ name: String) -> Int {
    switch name {
    case "write-100-observers", "scope-100-fields": return 300
    case "write-10-observers", "scope-10-fields": return 3_000
    case "write-1-observer", "scope-1-field", "fire-reinstall": return 20_000
    default: return 200_000
    }
  }

  /// Every micro-benchmark's instructions and allocations per operation, Observant and Apple;
  /// `nil` when valgrind is not installed.
  static func runMicro(progress: (String) -> Void) -> [MicroResult]? {
    guard isAvailable else {
      progress("instructions: valgrind is not installed at \(valgrind); skipped")
      return nil
    }
    let executable = "/tmp/observant-bench-callgrind-\(getpid())"
    defer { unlink(executable) }
    guard spawnAndWait(["/usr/bin/strip", "--strip-debug", "-o", executable, executablePath()]) else {
      progress("instructions: could not run /usr/bin/strip --strip-debug on the benchmark; skipped")
      return nil
    }
    var results: [MicroResult] = []
    for pair in MicroBenchmarks.pairs() where !pair.name.hasPrefix("plain-") {
      let operations = microOperations(pair.name)
      progress("instructions: \(pair.name), \(operations) operations per side under callgrind")
      var sides: [(instructions: Double, allocations: Double)] = []
      for side in ["observant", "apple"] {
        let output = "/tmp/observant-bench-callgrind-\(getpid())-\(pair.name)-\(side).out"
        defer { unlink(output) }
        let arguments = [
          valgrind, "--tool=callgrind", "--callgrind-out-file=\(output)", "--zero-before=\(marker)",
          "--compress-strings=no", "--compress-pos=no",
          executable, microWorkloadFlag, pair.name, side, String(operations),
        ]
        guard spawnAndWait(arguments), let counts = parse(output) else { break }
        sides.append((counts.instructions / Double(operations), counts.allocations / Double(operations)))
      }
      guard sides.count == 2 else {
        progress("instructions: callgrind run failed for \(pair.name)")
        continue
      }
      results.append(MicroResult(name: pair.name, operations: operations, observant: sides[0], apple: sides[1]))
    }
    return results
  }

  /// Every derived-value workload's instructions and allocations per write, for each strategy;
  /// `nil` when valgrind is not installed.
  static func runDerived(progress: (String) -> Void) -> [DerivedResult]? {
    guard isAvailable else {
      progress("instructions: valgrind is not installed at \(valgrind); skipped")
      return nil
    }
    let executable = "/tmp/observant-bench-callgrind-\(getpid())"
    defer { unlink(executable) }
    guard spawnAndWait(["/usr/bin/strip", "--strip-debug", "-o", executable, executablePath()]) else {
      progress("instructions: could not run /usr/bin/strip --strip-debug on the benchmark; skipped")
      return nil
    }
    var results: [DerivedResult] = []
    for workload in DerivedBenchmarks.cases {
      let operations = DerivedBenchmarks.instructionOperations(workload.name)
      progress("instructions: derived \(workload.name), \(operations) writes per strategy under callgrind")
      var sides: [(instructions: Double, allocations: Double)] = []
      for strategy in ["derived", "body", "apple"] {
        let output = "/tmp/observant-bench-callgrind-\(getpid())-derived-\(strategy).out"
        defer { unlink(output) }
        let arguments = [
          valgrind, "--tool=callgrind", "--callgrind-out-file=\(output)", "--zero-before=\(marker)",
          "--compress-strings=no", "--compress-pos=no",
          executable, "--derived-workload", workload.name, strategy, String(operations),
        ]
        guard spawnAndWait(arguments), let counts = parse(output) else { break }
        sides.append((counts.instructions / Double(operations), counts.allocations / Double(operations)))
      }
      guard sides.count == 3 else {
        progress("instructions: callgrind run failed for derived \(workload.name)")
        continue
      }
      results.append(DerivedResult(name: workload.name, operations: operations, sides: sides))
    }
    return results
  }

  static func derivedTable(_ results: [DerivedResult]) -> TextTable {
    var table = TextTable(header: [
      "workload", "derived instructions", "body instructions", "apple instructions", "derived allocations",
      "body allocations", "apple allocations",
    ])
    table.rightAligned = [1, 2, 3, 4, 5, 6]
    for result in results {
      table.append(
        [result.name] + result.sides.map { formatThousands(Int($0.instructions.rounded())) }
          + result.sides.map { format($0.allocations, decimals: 1) })
    }
    return table
  }

  /// The child's side of a micro-benchmark: one warm-up pass, then the measured operations.
  static func microWorkload(_ arguments: [String]) -> Never {
    guard arguments.count == 3, let pair = MicroBenchmarks.pairs().first(where: { $0.name == arguments[0] }),
      ["observant", "apple"].contains(arguments[1]), let operations = Int(arguments[2])
    else { fail("\(microWorkloadFlag) needs NAME observant|apple OPERATIONS") }
    let workload = arguments[1] == "observant" ? pair.observant : pair.apple
    workload.run(max(1, operations / 10))
    workload.cleanup()
    observantBenchMeasuredActions(1) { workload.run(operations) }
    _exit(0)
  }

  static func microTable(_ results: [MicroResult]) -> TextTable {
    var table = TextTable(header: [
      "operation", "Observant instructions", "Apple instructions", "Apple/Observant", "Observant allocations",
      "Apple allocations",
    ])
    table.rightAligned = [1, 2, 3, 4, 5]
    for result in results {
      table.append([
        result.name, formatThousands(Int(result.observant.instructions.rounded())),
        formatThousands(Int(result.apple.instructions.rounded())),
        formatRatio(result.apple.instructions / result.observant.instructions),
        format(result.observant.allocations, decimals: 2), format(result.apple.allocations, decimals: 2),
      ])
    }
    return table
  }

  /// The child's side: build, warm up, then the measured actions.
  @MainActor
  static func workload(_ arguments: [String]) -> Never {
    guard arguments.count == 3, let strategy = Strategy(rawValue: arguments[0]), let rows = Int(arguments[1]),
      let actions = Int(arguments[2])
    else { fail("\(workloadFlag) needs STRATEGY ROWS ACTIONS") }
    let screen = ScalingBenchmarks.makeScreen(strategy, ids: Array(0..<rows))
    let target = rows / 2
    for _ in 0..<2 { _ = screen.apply(.increment(id: target)) }
    observantBenchMeasuredActions(actions) { _ = screen.apply(.increment(id: target)) }
    // Nothing after the measured actions: callgrind dumps what it counted since they began.
    _exit(0)
  }

  private static func measure(_ strategy: Strategy, rows: Int, executable: String) -> (
    instructions: Double, allocations: Double
  )? {
    let output = "/tmp/observant-bench-callgrind-\(getpid())-\(strategy.rawValue)-\(rows).out"
    defer { unlink(output) }
    let arguments = [
      valgrind, "--tool=callgrind", "--callgrind-out-file=\(output)", "--zero-before=\(marker)",
      "--compress-strings=no", "--compress-pos=no",
      executable, workloadFlag, strategy.rawValue, String(rows), String(actions),
    ]
    guard spawnAndWait(arguments) else {
      progress("instructions: callgrind run failed for \(strategy.rawValue) with \(rows) rows")
      return nil
    }
    return parse(output)
  }

  /// The `Ir` total and the number of calls to allocation functions in a callgrind output file.
  private static func parse(_ path: String) -> (instructions: Double, allocations: Double)? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    let allocators: Set<String> = ["malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"]
    var instructions: Double?
    var allocations = 0.0
    var calleeIsAllocator = false
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, file) > 0 {
      guard let line else { break }
      var text = String(cString: line)
      if text.hasSuffix("\n") { text.removeLast() }
      if text.hasPrefix("cfn=") {
        calleeIsAllocator = allocators.contains(String(text.dropFirst(4)))
      } else if text.hasPrefix("calls=") {
        if calleeIsAllocator, let count = Double(text.dropFirst(6).prefix { $0 != " " }) { allocations += count }
        calleeIsAllocator = false
      } else if text.hasPrefix("summary:") {
        instructions = Double(text.split(separator: " ").last ?? "")
      }
    }
    free(line)
    return instructions.map { ($0, allocations) }
  }

  private static func executablePath() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return CommandLine.arguments[0] }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func spawnAndWait(_ arguments: [String]) -> Bool {
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var fileActions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&fileActions)
    defer { posix_spawn_file_actions_destroy(&fileActions) }
    // callgrind's own chatter goes nowhere; failures show as a missing output file.
    posix_spawn_file_actions_addopen(&fileActions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    guard posix_spawn(&pid, arguments[0], &fileActions, nil, &argv, environ) == 0 else { return false }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return status == 0
  }

  static func table(_ results: [Result]) -> TextTable {
    var table = TextTable(header: [
      "rows", "strategy", "instructions / action", "allocations / action", "instructions vs apple-row-classes",
    ])
    table.rightAligned = [0, 2, 3, 4]
    for result in results {
      let classes = results.first { $0.rows == result.rows && $0.strategy == .appleRowClasses }
      table.append([
        formatThousands(result.rows), result.strategy.rawValue,
        formatThousands(Int(result.instructionsPerAction.rounded())),
        format(result.allocationsPerAction, decimals: 1),
        classes.map { formatRatio(result.instructionsPerAction / $0.instructionsPerAction) } ?? "n/a",
      ])
    }
    return table
  }
}

/// The measured region: callgrind zeroes its counters when it is entered.
@_silgen_name("observant_bench_measured_actions")
@inline(never)
func observantBenchMeasuredActions(_ count: Int, _ action: () -> Void) {
  for _ in 0..<count { action() }
}
