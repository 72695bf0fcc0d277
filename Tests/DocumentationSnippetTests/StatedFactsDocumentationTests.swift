import Foundation
import Testing

/// Facts the README and the articles state that live elsewhere — the Swift version the manifest
/// asks for, the figures BENCHMARKS.md measured — are stated as they are there.
struct StatedFactsDocumentationTests {
    private func contents(of file: String) throws -> String {
        try String(contentsOf: Documentation.root.appendingPathComponent(file), encoding: .utf8)
    }

    /// The version in a manifest's `// swift-tools-version:` line.
    private func toolsVersion(of manifest: String) -> String? {
        manifest.firstMatch(of: #/^// swift-tools-version:\s*([0-9.]+)/#).map { String($0.output.1) }
    }

    @Test func theSwiftVersionTheDocsRequireIsThePackagesToolsVersion() throws {
        let version = try #require(toolsVersion(of: try contents(of: "Package.swift")))
        #expect(toolsVersion(of: try contents(of: "Fuzz/Package.swift")) == version, "Fuzz/Package.swift")
        for file in ["README.md", "Sources/HTTPMock/Documentation.docc/GettingStarted.md"] {
            let text = Documentation.normalized(try contents(of: file))
            let stated = try #require(
                text.firstMatch(of: #/Requires Swift ([0-9.]+) or later \(tools version ([0-9.]+)/#),
                "\(file) no longer says which Swift it requires"
            )
            #expect(String(stated.output.1) == version && String(stated.output.2) == version, "\(file) requires Swift \(stated.output.1) (tools version \(stated.output.2)); Package.swift says \(version)")
        }
        for block in Documentation.manifests where block.text.contains("import PackageDescription") {
            #expect(toolsVersion(of: block.text) == version, "\(block.file):\(block.line): a manifest sample for another tools version than Package.swift's \(version)")
        }
        #expect(toolsVersion(of: Documentation.manifest(for: CodeBlock(file: "", line: 0, language: "swift", lines: [".testTarget(name: \"T\")"]))) == version)
    }

    @Test func thePerformanceRatiosAreTheOnesBenchmarksMeasured() throws {
        let benchmarks = try contents(of: "BENCHMARKS.md")
        func measured(_ rowStart: String) throws -> String {
            // The last such row: BENCHMARKS.md adds each pass's table after the one before.
            let row = try #require(benchmarks.split(separator: "\n").last { $0.hasPrefix(rowStart) }, "BENCHMARKS.md has no row \(rowStart)")
            return try #require(OptionMentions.cells(of: String(row)).dropFirst().first)
        }
        // The newest targets' table (issue 38) states the current figures.
        let journalOn = try measured("| URLSession through HTTPMock ≤ 1.05× the minimal URLProtocol's median, journal on")
        let journalOff = try measured("| the same with the journal off (no target of its own)")
        #expect(journalOn.hasSuffix("×") && journalOff.hasSuffix("×"))
        let readme = Documentation.normalized(try contents(of: "README.md"))
        let (readmeOn, readmeOff) = (readme.contains(journalOn), readme.contains(journalOff))
        #expect(readmeOn, "README.md's Performance does not give BENCHMARKS.md's ratio \(journalOn)")
        #expect(readmeOff, "README.md's Performance does not give BENCHMARKS.md's journal-off ratio \(journalOff)")
        let architecture = Documentation.normalized(try contents(of: "Sources/HTTPMock/Documentation.docc/Architecture.md"))
        let architectureOn = architecture.contains(journalOn)
        #expect(architectureOn, "Architecture.md does not give BENCHMARKS.md's ratio \(journalOn)")
        // No other ratio or percentage for the same figure.
        let ownPercentages = architecture.contains(#/\d+–\d+ % more than the least/#)
        #expect(!ownPercentages, "Architecture.md states the cost in its own percentages")
    }

    /// What the README and Fuzz/README.md say CI runs is what `.ci/run` runs: the README's test
    /// command as a line of its own, and the fuzzing time both state.
    @Test func whatTheDocsSayCIRunsIsWhatCIRuns() throws {
        let script = try contents(of: ".ci/run").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let readme = try contents(of: "README.md")
        let opening = try #require(readme.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let testCommand = try #require(opening.split(separator: "\n").last?.components(separatedBy: "#").first?.trimmingCharacters(in: .whitespaces))
        #expect(testCommand == "swift test")
        #expect(script.contains(testCommand), ".ci/run does not run the README's test command `\(testCommand)` as a line of its own")

        let fuzzing = try #require(script.first { $0.hasPrefix("Fuzz/run ") }, ".ci/run no longer fuzzes")
        let fuzzReadme = try contents(of: "Fuzz/README.md")
        for (file, text) in [("README.md", Documentation.normalized(readme)), ("Fuzz/README.md", Documentation.normalized(fuzzReadme))] {
            let stated = text.matches(of: #/[Ff]uzz\w* in CI: `(Fuzz/run \d+)`|CI \(`\.ci/run`\) runs `(Fuzz/run \d+)`/#)
            #expect(!stated.isEmpty, "\(file) no longer says how CI fuzzes")
            for claim in stated {
                let command = String(claim.output.1 ?? claim.output.2 ?? "")
                #expect(command == fuzzing, "\(file) says CI runs `\(command)`; .ci/run runs `\(fuzzing)`")
            }
        }
    }
    /// The clone is the whole project: no test, script, benchmark, doc or CI step reads a folder
    /// beside the repository (the test data lives in `Tests/Fixtures/`, with its licence), and
    /// `.ci/run` proves it by running in a clone of its own with nothing beside it.
    @Test func nothingReadsBesideTheClone() throws {
        // Spelled in parts, so that this file does not name them itself.
        let sibling = ["..", "shared"].joined(separator: "/")
        let namedFolders = ["openapi-examples", "json-schema-test-suite"].map { ["shared", $0].joined(separator: "/") }
        let root = Documentation.root
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]))
        var offenders: [String] = []
        var read = 0
        for case let url as URL in files {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            if relative.hasPrefix(".build") || relative.hasPrefix("Fuzz/.build") || relative.hasPrefix("Tests/Fixtures/") {
                files.skipDescendants()
                continue
            }
            guard ["swift", "py", "sh", "md", "json", "yaml", "yml", ""].contains(url.pathExtension),
                  let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            read += 1
            if text.contains(sibling) || namedFolders.contains(where: text.contains) { offenders.append(relative) }
        }
        #expect(read > 100, "only \(read) files read: the walk went wrong")
        #expect(offenders.isEmpty, "these files read beside the clone; vendor the data under Tests/Fixtures/ instead: \(offenders)")
        for folder in ["OpenAPIExamples", "JSONSchemaTestSuite", "JSONTestSuite", "WireMockCorpus"] {
            let listing = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Tests/Fixtures/\(folder)").path)
            #expect(listing.contains { $0.hasPrefix("LICENSE") || $0.hasPrefix("SOURCE") }, "Tests/Fixtures/\(folder) says nothing of its licence or source")
        }
        let script = try contents(of: ".ci/run")
        #expect(script.contains("git clone --quiet --no-hardlinks \"$PWD\" \"$alone/airlock\""), ".ci/run no longer runs in a clone of its own")
    }
}
