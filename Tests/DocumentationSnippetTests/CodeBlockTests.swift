import Foundation
import HTTPMock
import Testing
import ProcessSupport

/// Every code sample of the README and of the DocC articles works as written:
/// - each ```swift block appears, verbatim up to white space, in `Snippets/` (which
///   `swift build --build-tests` compiles); a block that shows imports, in a file with exactly those
///   imports, so it compiles as a reader's own file would;
/// - each ```swift block that is a package manifest (or a `.testTarget(…)` of one) is a manifest
///   `swift package dump-package` accepts;
/// - each ```json block is a stub file that `airlock serve` loads (read from `Examples/`).
struct CodeBlockTests {
    @Test func documentationIsFound() {
        // Guards the parameterised tests below against passing vacuously on a wrong path.
        let files = Set(Documentation.blocks.map(\.file))
        #expect(files.contains("README.md"))
        for product in ["HTTPMock", "HTTPMockTesting", "HTTPLogging", "MockServer", "Airgap", "AirlockOpenAPI"] {
            #expect(
                files.contains { $0.hasPrefix("Sources/\(product)/Documentation.docc/") },
                "no code block found in Sources/\(product)/Documentation.docc"
            )
        }
        #expect(Documentation.swiftSamples.count > 30)
        #expect(Documentation.manifests.count >= 3)
        #expect(Documentation.stubFiles.count >= 2)
    }

    @Test(arguments: Documentation.swiftSamples)
    func swiftSampleIsCompiled(_ block: CodeBlock) {
        let (imports, lines) = Self.splitImports(block.lines)
        let body = Documentation.normalized(lines.joined(separator: "\n"))
        // A block of imports alone is at home in any file (`contains("")` is false).
        let homes = Documentation.snippetSources.filter { body.isEmpty || Documentation.normalized($0.text).contains(body) }
        if !homes.contains(where: { imports.isEmpty || Self.imports(of: $0.text) == imports }) {
            if let other = homes.first {
                // A sample that shows its imports must compile with exactly those, as a reader's file.
                Issue.record(
                    """
                    \(block.file):\(block.line): this sample imports \(imports.sorted().joined(separator: ", ")) but is \
                    compiled in \(other.file), which imports \(Self.imports(of: other.text).sorted().joined(separator: ", ")). \
                    Move it to a file of Tests/DocumentationSnippetTests/Snippets with exactly the sample's imports \
                    (Standalone*.swift), or fix the sample's imports.
                    """
                )
            } else {
                Issue.record(
                    """
                    \(block.file):\(block.line): this swift block is not compiled by any file of \
                    Tests/DocumentationSnippetTests/Snippets, so it may not build. Paste it there verbatim \
                    (in a function, a builder function or a disabled suite; define any app types it uses in \
                    SampleTypes.swift; a block with imports in a file with exactly those imports) and make it \
                    compile, or fix the block. It starts: \
                    \(block.lines.first { !$0.hasPrefix("import ") && !$0.isEmpty } ?? "")
                    """
                )
            }
        }
    }

    /// A sample's `import` lines — conditional ones (`#if canImport(X)` / `import X` / `#endif`,
    /// as Linux needs for FoundationNetworking) included — and the rest of its lines.
    static func splitImports(_ lines: [String]) -> (imports: Set<String>, body: [String]) {
        var imports: Set<String> = []
        var body: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if canImport("), index + 2 < lines.count,
                lines[index + 1].trimmingCharacters(in: .whitespaces).hasPrefix("import "),
                lines[index + 2].trimmingCharacters(in: .whitespaces) == "#endif"
            {
                imports.insert(lines[index + 1].trimmingCharacters(in: .whitespaces))
                index += 3
                continue
            }
            if line.hasPrefix("import ") { imports.insert(line) } else { body.append(lines[index]) }
            index += 1
        }
        return (imports, body)
    }

    /// The `import` lines of a source file, conditional ones included.
    static func imports(of text: String) -> Set<String> {
        Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("import ") })
    }

    @Test(arguments: Documentation.manifests)
    func manifestSampleLoads(_ block: CodeBlock) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("airlock-manifest-\(UUID().uuidString)")
            .appendingPathComponent("MyApp")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try Documentation.manifest(for: block).write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)

        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", folder.path, "dump-package"]
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(
            process.terminationStatus == 0,
            "\(block.file):\(block.line): this manifest sample does not load (swift package dump-package):\n\(text)"
        )
    }

    @Test(arguments: Documentation.stubFiles)
    func stubFileSampleLoads(_ block: CodeBlock) {
        do {
            let file = try StubFile(
                data: Data(block.text.utf8),
                source: "\(block.file):\(block.line)",
                baseDirectory: Documentation.root.appendingPathComponent("Examples")
            )
            let errors = HTTPMock().registerStubs(file)
            #expect(errors.isEmpty, "\(block.file):\(block.line): \(errors)")
        } catch {
            Issue.record("\(block.file):\(block.line): this json block is not a stub file airlock serve loads: \(error)")
        }
    }
}

/// A fenced code block of a documentation file.
struct CodeBlock: Sendable, CustomTestStringConvertible {
    /// The file, relative to the package root.
    let file: String
    /// The line of the opening fence, from 1.
    let line: Int
    /// The fence's language: `swift`, `json`, `sh`, or empty.
    let language: String
    /// The lines between the fences, without the fence's indentation.
    let lines: [String]

    var text: String { lines.joined(separator: "\n") }
    var testDescription: String { "\(file):\(line)" }
    /// A package manifest, or a target of one.
    var isManifest: Bool {
        let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.trimmingCharacters(in: .whitespaces) ?? ""
        return text.contains("import PackageDescription") || first.hasPrefix(".testTarget(") || first.hasPrefix(".target(")
    }
}

/// The README and the DocC articles, and the compiled samples.
enum Documentation {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `README.md` and every `Sources/*/Documentation.docc/*.md`, relative to the root.
    static let files: [String] = {
        let sources = root.appendingPathComponent("Sources")
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        let articles = targets.sorted().flatMap { target in
            let catalog = "Sources/\(target)/Documentation.docc"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path)) ?? []
            return names.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        }
        return ["README.md"] + articles
    }()

    static let blocks: [CodeBlock] = files.flatMap { file in
        let text = (try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)) ?? ""
        return codeBlocks(in: text, file: file)
    }

    static var swiftSamples: [CodeBlock] { blocks.filter { $0.language == "swift" && !$0.isManifest } }
    static var manifests: [CodeBlock] { blocks.filter { $0.language == "swift" && $0.isManifest } }
    static var stubFiles: [CodeBlock] { blocks.filter { $0.language == "json" } }

    /// The compiled samples: each file of `Snippets/`, relative to the root, with its text.
    static let snippetSources: [(file: String, text: String)] = {
        let folder = "Tests/DocumentationSnippetTests/Snippets"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
        return names.filter { $0.hasSuffix(".swift") }.sorted().map { name in
            let text = (try? String(contentsOf: root.appendingPathComponent("\(folder)/\(name)"), encoding: .utf8)) ?? ""
            return (file: "\(folder)/\(name)", text: text)
        }
    }()

    /// Fenced blocks (```` ```lang ```` … ```` ``` ````), also indented ones inside list items.
    static func codeBlocks(in text: String, file: String) -> [CodeBlock] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [CodeBlock] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let indentation = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indentation)
            guard trimmed.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
            let start = index + 1
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(String(lines[index].dropFirst(min(indentation, lines[index].prefix { $0 == " " }.count))))
                index += 1
            }
            blocks.append(CodeBlock(file: file, line: start, language: language, lines: body))
            index += 1
        }
        return blocks
    }

    /// Runs of white space as one space, so indentation and line breaks do not matter.
    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// A whole manifest for a sample: the sample itself, or a package around a target sample.
    static func manifest(for block: CodeBlock) -> String {
        if block.text.contains("import PackageDescription") { return block.text }
        return """
            // swift-tools-version: 6.2
            import PackageDescription

            let package = Package(
                name: "MyApp",
                dependencies: [.package(path: "../Airlock")],
                targets: [
                    .target(name: "MyApp"),
                    .target(name: "MyLib"),
                    \(block.text),
                ]
            )
            """
    }
}
