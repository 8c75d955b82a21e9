/// `results.json`, written by hand (no Foundation): the keys of issue 5's schema (`micro`,
/// `scenarios`, `scaling`) plus run details. `null` stands for n/a.
extension BenchmarkReport {
  func json() -> String {
    var root: [(String, JSONValue)] = [
      ("generated", .string(startedAt)),
      ("arguments", .array(arguments.map(JSONValue.string))),
      ("seconds", .number(seconds)),
      (
        "machine",
        .object([
          ("processor", .string(machine.processor)),
          ("cores", .integer(machine.cores)),
          ("system", .string(machine.system)),
          ("compiler", .string(machine.compiler)),
          ("load_average_at_start", .number(machine.loadAverage)),
        ])
      ),
    ]
    root.append(("micro", .array((micro ?? []).map(Self.json))))
    root.append(("micro_repetitions", .integer(microRepetitions)))
    root.append(("scenarios", .array((scenarios ?? []).flatMap(Self.json))))
    root.append(("scaling", .array((scaling ?? []).map(Self.json))))
    root.append(
      (
        "flush",
        .array(
          (flush ?? []).map {
            .object([
              ("live_reactions", .integer($0.liveReactions)),
              ("ns_per_transaction", .number($0.nanosecondsPerTransaction)),
            ])
          })
      ))
    root.append(
      (
        "micro_instructions",
        .array(
          (microInstructions ?? []).map {
            .object([
              ("name", .string($0.name)), ("operations", .integer($0.operations)),
              ("observant_instructions", .number($0.observant.instructions)),
              ("apple_instructions", .number($0.apple.instructions)),
              ("observant_allocations", .number($0.observant.allocations)),
              ("apple_allocations", .number($0.apple.allocations)),
            ])
          })
      ))
    root.append(
      (
        "derived_instructions",
        .array(
          (derivedInstructions ?? []).map {
            .object([
              ("name", .string($0.name)), ("operations", .integer($0.operations)),
              ("derived_instructions", .number($0.sides[0].instructions)),
              ("body_instructions", .number($0.sides[1].instructions)),
              ("apple_instructions", .number($0.sides[2].instructions)),
              ("derived_allocations", .number($0.sides[0].allocations)),
              ("body_allocations", .number($0.sides[1].allocations)),
              ("apple_allocations", .number($0.sides[2].allocations)),
            ])
          })
      ))
    root.append(
      (
        "derived",
        .array(
          (derived ?? []).map {
            .object([
              ("name", .string($0.name)), ("derived_ns", .number($0.derived)), ("body_ns", .number($0.body)),
              ("apple_ns", .number($0.apple)),
            ])
          })
      ))
    return JSONValue.object(root).text(indent: "") + "\n"
  }

  private static func json(_ result: MicroResult) -> JSONValue {
    // For the bytes-per-* entries the *_ns fields hold bytes, as the schema says; `unit` tells.
    .object([
      ("name", .string(result.name)),
      ("observant_ns", .number(result.observant)),
      ("apple_ns", .number(result.apple)),
      ("unit", .string(result.unit)),
      ("apple_over_observant", .number(result.ratio)),
    ])
  }

  private static func json(_ result: ScenarioResult) -> [JSONValue] {
    Strategy.allCases.map { strategy in
      let count = result.counts[strategy]
      var fields: [(String, JSONValue)] = [
        ("scenario", .string(result.name)),
        ("strategy", .string(strategy.rawValue)),
        ("runs", count.map { .integer($0.runs) } ?? .null),
        ("minimal", .integer(result.minimal)),
      ]
      if let computations = count?.computations { fields.append(("view_state_computations", .integer(computations))) }
      if !result.countsBodyRuns { fields.append(("counts", .string("row stores or objects created"))) }
      if Strategy.observantStrategies.contains(strategy) {
        fields.append(("pass", .bool(count?.runs == result.minimal)))
      }
      return .object(fields)
    }
  }

  private static func json(_ result: ScalingResult) -> JSONValue {
    .object([
      ("strategy", .string(result.strategy.rawValue)),
      ("n", .integer(result.rows)),
      ("ns_per_action", .number(result.nanosecondsPerAction)),
      ("bytes_per_row", .number(result.bytesPerRow)),
      ("runs_per_action", .integer(result.runsPerAction)),
      ("repetitions", .integer(result.repetitions)),
      ("build_seconds", .number(result.buildSeconds)),
    ])
  }
}

/// A JSON value with ordered object keys.
indirect enum JSONValue {
  case null
  case bool(Bool)
  case integer(Int)
  /// Non-finite numbers are written as `null`.
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  func text(indent: String) -> String {
    let inner = indent + "  "
    switch self {
    case .null: return "null"
    case .bool(let value): return value ? "true" : "false"
    case .integer(let value): return String(value)
    case .number(let value): return value.isFinite ? format(value, decimals: 3) : "null"
    case .string(let value): return Self.quoted(value)
    case .array(let values):
      guard !values.isEmpty else { return "[]" }
      // Arrays of objects one per line; short scalar arrays inline.
      if values.allSatisfy({ if case .object = $0 { false } else { true } }) {
        return "[" + values.map { $0.text(indent: inner) }.joined(separator: ", ") + "]"
      }
      return "[\n" + values.map { inner + $0.text(indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
    case .object(let fields):
      guard !fields.isEmpty else { return "{}" }
      // Objects of scalars on one line (a row of results); nested objects spread out.
      let flat = fields.allSatisfy {
        switch $0.1 {
        case .array, .object: false
        default: true
        }
      }
      if flat {
        return "{" + fields.map { Self.quoted($0.0) + ": " + $0.1.text(indent: inner) }.joined(separator: ", ") + "}"
      }
      return "{\n" + fields.map { inner + Self.quoted($0.0) + ": " + $0.1.text(indent: inner) }.joined(separator: ",\n")
        + "\n" + indent + "}"
    }
  }

  private static func quoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
