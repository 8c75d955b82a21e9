import Foundation
import Testing

// Every `swift` code block of every DocC article (Sources/*/*.docc/*.md) must appear in a test
// file under Tests/, verbatim: so every example in the documentation is compiled, and the test
// around it checks what the article says. `import` lines are skipped, and code is compared
// without its whitespace (indentation, line breaks, the spaces that align comments), so that a
// formatter may lay the tests out differently from the articles.
//
// A block that cannot be compiled here (UIKit or SwiftUI code on Linux, a Package.swift excerpt)
// says so in an HTML comment on the line before its fence, which DocC does not render:
//
//     <!-- not compiled: UIKit -->
//     ```swift

@Suite("Article code")
struct ArticleCodeTests {
  /// Articles merged from other branches whose code is checked elsewhere, or not yet; remove a
  /// name once its blocks appear verbatim in a test (or carry a `not compiled` comment).
  static let unchecked: Set<String> = []

  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  struct Block: CustomStringConvertible {
    let file: String
    let line: Int
    /// The block's code, normalized (see `normalized(_:)`).
    let code: String
    var description: String { "\(file):\(line)" }
  }

  /// The `swift` blocks of an article that are meant to compile, with normalized lines.
  static func blocks(in file: URL) throws -> [Block] {
    let text = try String(contentsOf: file, encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    var blocks: [Block] = []
    var index = 0
    while index < lines.count {
      let fence = lines[index].trimmingCharacters(in: .whitespaces)
      guard fence.hasPrefix("```swift") else {
        index += 1
        continue
      }
      let exempt = index > 0 && lines[index - 1].contains("<!-- not compiled")
      let start = index
      var body: [String] = []
      index += 1
      while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
        body.append(lines[index])
        index += 1
      }
      index += 1
      if !exempt {
        blocks.append(Block(file: file.lastPathComponent, line: start + 1, code: normalized(body)))
      }
    }
    return blocks
  }

  /// The code of `lines` without `import` lines and without any whitespace.
  static func normalized(_ lines: [String]) -> String {
    String(
      lines.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }.joined()
        .unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
  }

  static func files(under directory: URL, extension fileExtension: String) -> [URL] {
    guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
      return []
    }
    return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == fileExtension }
      .sorted { $0.path < $1.path }
  }

  @Test("code is compared without whitespace: a copy laid out by a formatter matches, a changed copy does not")
  func comparisonIgnoresLayoutOnly() {
    let article = Self.normalized([
      "import Observant",
      "var count: Int { get { registrar.read(_count) } set { registrar.write(&_count, newValue) } }",
      "counter.count += 1   // prints \"count: 1\"",
    ])
    let formatted = Self.normalized([
      "    var count: Int {",
      "      get { registrar.read(_count) }",
      "      set { registrar.write(&_count, newValue) }",
      "    }",
      "    counter.count += 1  // prints \"count: 1\"",
    ])
    let changed = Self.normalized([
      "var count: Int { get { registrar.read(_count) } set { registrar.write(&_total, newValue) } }",
      "counter.count += 1   // prints \"count: 1\"",
    ])
    #expect(formatted.contains(article))
    #expect(!changed.contains(article))
  }

  @Test("every swift block of every article is compiled by a test, verbatim")
  func everyBlockIsCompiled() throws {
    let articles = Self.files(under: Self.packageRoot.appendingPathComponent("Sources"), extension: "md")
      .filter { $0.deletingLastPathComponent().pathExtension == "docc" }
      .filter { !Self.unchecked.contains($0.lastPathComponent) }
    let tests = try Self.files(under: Self.packageRoot.appendingPathComponent("Tests"), extension: "swift")
      .map { Self.normalized(try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "\n")) }
    #expect(articles.count >= 8)
    var checked = 0
    for article in articles {
      for block in try Self.blocks(in: article) {
        checked += 1
        #expect(
          tests.contains { block.code.isEmpty || $0.contains(block.code) },
          "the swift block at \(block) is not in any test under Tests/, verbatim (or mark it <!-- not compiled: why -->)"
        )
      }
    }
    #expect(checked >= 20)
  }
}
