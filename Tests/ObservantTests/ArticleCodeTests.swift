import Foundation
import Testing

// Every `swift` code block of the README and of every DocC article (Sources/*/*.docc/*.md) must
// appear in a test file under Tests/, verbatim: so every example in the documentation is compiled,
// and the test around it checks what the document says. `import` lines are skipped, and code is
// compared without its whitespace (indentation, line breaks, the spaces that align comments), so
// that a formatter may lay the tests out differently from the documents.
//
// A block is found as a piece of a test file's code, so it may sit inside enclosing declarations:
// a type declaration nested in a suite (`struct ReadmeExamples { struct Todo: ... }`) matches the
// top-level `struct Todo: ...` of a document. Nesting is how the tests keep the documents' type
// names (`Todo`, `Profile`) apart from the test modules' own types: wrap the block in a suite or an
// enum namespace, and change nothing inside it. Statements are pasted into a test function in the
// same way, followed by the assertions that check what the block's comments promise. A
// `// swift-format-ignore` line before a declaration (which keeps the formatter from spreading its
// two-line fields) is skipped like an `import`, so it may stand between the declarations of one
// block.
//
// A block that cannot be compiled here (SwiftUI or UIKit code on Linux, a Package.swift excerpt, TCA
// code) says so in an HTML comment on the line before its fence, which neither GitHub nor DocC
// renders:
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

  /// The documents whose code must compile: the README and every DocC article.
  static func documents() -> [URL] {
    let articles = files(under: packageRoot.appendingPathComponent("Sources"), extension: "md")
      .filter { $0.deletingLastPathComponent().pathExtension == "docc" }
      .filter { !unchecked.contains($0.lastPathComponent) }
    return [packageRoot.appendingPathComponent("README.md")] + articles
  }

  /// The `swift` blocks of a document that are meant to compile, with normalized lines.
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

  /// Lines the comparison skips: `import` lines, and the `// swift-format-ignore` comments that keep
  /// a test's copy of a declaration in the document's layout.
  static func isSkipped(_ line: String) -> Bool {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    return trimmed.hasPrefix("import ") || trimmed == "// swift-format-ignore"
  }

  /// The code of `lines` without skipped lines (`isSkipped(_:)`) and without any whitespace.
  static func normalized(_ lines: [String]) -> String {
    String(
      lines.filter { !isSkipped($0) }.joined()
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

  @Test("a declaration nested in a suite or a namespace enum, or kept by swift-format-ignore, matches the document's")
  func nestedDeclarationsMatch() {
    let document = Self.normalized([
      "struct Counter: ObservableState {",
      "  var registrar = StateRegistrar<Self>()",
      "}",
    ])
    let nestedInSuite = Self.normalized([
      "@Suite(\"README examples\")",
      "struct ReadmeExamples {",
      "  // swift-format-ignore",
      "  struct Counter: ObservableState {",
      "    var registrar = StateRegistrar<Self>()",
      "  }",
      "}",
    ])
    let nestedInEnum = Self.normalized([
      "enum Readme {", "struct Counter: ObservableState {",
      "var registrar = StateRegistrar<Self>()", "}", "}",
    ])
    let renamed = Self.normalized([
      "struct ReadmeCounter: ObservableState {",
      "  var registrar = StateRegistrar<Self>()",
      "}",
    ])
    let twoDeclarations = Self.normalized(["struct A: ObservableState {}", "struct B: ObservableState {}"])
    let eachKeptInItsLayout = Self.normalized([
      "  // swift-format-ignore", "  struct A: ObservableState {}", "  // swift-format-ignore",
      "  struct B: ObservableState {}",
    ])
    #expect(nestedInSuite.contains(document))
    #expect(nestedInEnum.contains(document))
    #expect(eachKeptInItsLayout.contains(twoDeclarations))
    #expect(!renamed.contains(document))
  }

  @Test("only blocks marked `<!-- not compiled: why -->` on the line before their fence are exempt")
  func exemptionMarker() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("ArticleCodeTests-\(UUID()).md")
    defer { try? FileManager.default.removeItem(at: file) }
    let text = """
      <!-- not compiled: UIKit -->
      ```swift
      final class Cell: UITableViewCell {}
      ```

      ```swift
      let checked = 1
      ```

      ```sh
      swift test
      ```
      """
    try text.write(to: file, atomically: true, encoding: .utf8)
    #expect(try Self.blocks(in: file).map(\.code) == ["letchecked=1"])
  }

  @Test("every swift block of the README and of every article is compiled by a test, verbatim")
  func everyBlockIsCompiled() throws {
    let documents = Self.documents()
    let tests = try Self.files(under: Self.packageRoot.appendingPathComponent("Tests"), extension: "swift")
      .map { Self.normalized(try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "\n")) }
    #expect(documents.count >= 9)
    #expect(documents.first?.lastPathComponent == "README.md")
    var checked = 0
    for document in documents {
      for block in try Self.blocks(in: document) {
        checked += 1
        #expect(
          tests.contains { block.code.isEmpty || $0.contains(block.code) },
          "the swift block at \(block) is not in any test under Tests/, verbatim (or mark it <!-- not compiled: why -->)"
        )
      }
    }
    #expect(checked >= 20)
  }

  /// The only reasons a block may give for not being compiled.
  static let exemptionReasons = ["SwiftUI", "UIKit", "Package.swift", "Composable Architecture"]

  @Test("a block is exempt only for SwiftUI, UIKit, Package.swift or TCA code, and says which")
  func exemptionsAreJustified() throws {
    var exemptions = 0
    for document in Self.documents() {
      let lines = try String(contentsOf: document, encoding: .utf8).components(separatedBy: "\n")
      for (index, line) in lines.enumerated() where line.contains("<!-- not compiled") {
        exemptions += 1
        #expect(
          Self.exemptionReasons.contains { line.contains($0) },
          "\(document.lastPathComponent):\(index + 1): a block may be left uncompiled only for SwiftUI, UIKit, Package.swift or TCA code"
        )
        #expect(
          lines.indices.contains(index + 1) && lines[index + 1].trimmingCharacters(in: .whitespaces) == "```swift",
          "\(document.lastPathComponent):\(index + 1): the comment must be on the line right before a swift fence")
      }
    }
    #expect(exemptions >= 1)
  }
}
