#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Progress goes to standard error so standard output stays a clean report.
func progress(_ message: String) {
  var line = message + "\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Reports a usage error and exits with status 2.
func fail(_ message: String) -> Never {
  progress("observant-bench: error: \(message)")
  exit(2)
}

/// Creates `path` and its missing parents.
func makeDirectory(_ path: String) throws(FileError) {
  var prefix = path.hasPrefix("/") ? "/" : ""
  for component in path.split(separator: "/") {
    prefix += component + "/"
    if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
      throw FileError(message: "cannot create directory \(prefix) (errno \(errno))")
    }
  }
}

func writeFile(_ path: String, _ contents: String) throws(FileError) {
  guard let file = fopen(path, "w") else {
    throw FileError(message: "cannot open \(path) for writing (errno \(errno))")
  }
  defer { fclose(file) }
  var text = contents
  let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, file) }
  guard written == text.utf8.count else { throw FileError(message: "short write to \(path)") }
}

struct FileError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// What the numbers were measured on.
struct MachineInfo {
  var processor: String
  var cores: Int
  var system: String
  var compiler: String
  /// The 1-minute load average when the run started: other work on a shared machine shows here.
  var loadAverage: Double

  static func current() -> MachineInfo {
    var names = utsname()
    uname(&names)
    func field<T>(_ value: T) -> String {
      withUnsafeBytes(of: value) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
    }
    var load = [0.0, 0.0, 0.0]
    let loads = getloadavg(&load, 3)
    return MachineInfo(
      processor: cpuModel() ?? field(names.machine),
      cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
      system: "\(field(names.sysname)) \(field(names.release)) \(field(names.machine))",
      compiler: compilerVersion,
      loadAverage: loads > 0 ? load[0] : .nan)
  }

  var summary: String {
    "\(processor), \(cores) cores, \(system), \(compiler), load average \(format(loadAverage, decimals: 2)) at start"
  }

  private static func cpuModel() -> String? {
    guard let file = fopen("/proc/cpuinfo", "r") else { return nil }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 1024)
    while fgets(&buffer, Int32(buffer.count), file) != nil {
      let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if line.hasPrefix("model name"), let colon = line.firstIndex(of: ":") {
        return String(line[line.index(after: colon)...].drop { $0 == " " }.prefix { $0 != "\n" })
      }
    }
    return nil
  }

  private static var compilerVersion: String {
    #if compiler(>=6.5)
    "Swift 6.5 or later"
    #elseif compiler(>=6.4)
    "Swift 6.4"
    #elseif compiler(>=6.3)
    "Swift 6.3"
    #elseif compiler(>=6.2)
    "Swift 6.2"
    #else
    "Swift 6.1 or earlier"
    #endif
  }
}

/// The current UTC time as `2025-01-31 14:05 UTC`.
func currentTimestamp() -> String {
  var now = time(nil)
  var parts = tm()
  gmtime_r(&now, &parts)
  func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
  return
    "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)) UTC"
}
