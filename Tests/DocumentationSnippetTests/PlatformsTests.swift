import Foundation
import Testing

/// The platforms `Package.swift` asks for are the ones the README and the Platforms article state,
/// and the sources of the products built on Apple platforms call no API above that floor (which
/// cannot be compiled here: Airlock is verified on Linux only).
struct PlatformsTests {
    static let names = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"]

    /// `.macOS(.v12)`, `.iOS(.v15)`, `.macOS(.v10_15)` … in `text`, as ["macOS": "12", …, "10.15"].
    static func versions(in text: String) -> [String: String] {
        let pattern = try! NSRegularExpression(pattern: #"\.(macOS|iOS|tvOS|watchOS|visionOS)\(\.v([0-9_]+)\)"#)
        var result: [String: String] = [:]
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text), let version = Range(match.range(at: 2), in: text) else { continue }
            result[String(text[name])] = text[version].replacingOccurrences(of: "_", with: ".")
        }
        return result
    }

    /// The minimums of `Package.swift`'s `platforms:` line.
    static func manifest() throws -> [String: String] {
        let text = try read("Package.swift")
        let line = try #require(
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("platforms:") },
            "Package.swift has no platforms: line"
        )
        return versions(in: String(line))
    }

    static func read(_ file: String) throws -> String {
        try String(contentsOf: Documentation.root.appendingPathComponent(file), encoding: .utf8)
    }

    static let article = "Sources/HTTPMock/Documentation.docc/Platforms.md"
    static let gettingStarted = "Sources/HTTPMock/Documentation.docc/GettingStarted.md"

    /// The rows of the product × macOS × iOS table in `file`: cells without the outer bars.
    static func tableRows(in file: String) throws -> [[String]] {
        let lines = try read(file).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| product | macOS | iOS |") }, "\(file) has no platforms table")
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func theManifestNamesEveryApplePlatform() throws {
        #expect(try Set(Self.manifest().keys) == Set(Self.names))
    }

    @Test(arguments: ["README.md", PlatformsTests.article])
    func theTableStatesTheManifestsFloor(_ file: String) throws {
        let floor = try Self.manifest()
        let rows = try Self.tableRows(in: file)
        #expect(rows.count >= 4, "\(file): the platforms table has \(rows.count) rows")
        #expect(rows.contains { $0.count >= 3 && $0[1] != "—" }, "\(file): no product of the table builds on an Apple platform")
        for row in rows {
            try #require(row.count == 4, "\(file): a table row has \(row.count) cells: \(row)")
            // SwiftPM takes one platforms list, and no API carries an @available of its own: a product
            // that builds on a platform builds for exactly the manifest's floor.
            for (cell, platform) in [(row[1], "macOS"), (row[2], "iOS")] where cell != "—" {
                #expect(
                    cell == floor[platform],
                    "\(file): \(row[0]) says \(platform) \(cell); Package.swift asks for \(platform) \(floor[platform] ?? "nothing")"
                )
            }
        }
        let sentence = "macOS \(floor["macOS"]!), iOS \(floor["iOS"]!), tvOS \(floor["tvOS"]!), watchOS \(floor["watchOS"]!) and visionOS \(floor["visionOS"]!)"
        #expect(try Self.read(file).contains(sentence), "\(file) should say Package.swift asks for \(sentence)")
    }

    @Test func theReadmeAndTheArticleShowTheSameTable() throws {
        #expect(try Self.tableRows(in: "README.md") == Self.tableRows(in: Self.article))
    }

    @Test(arguments: ["README.md", PlatformsTests.gettingStarted])
    func theSampleManifestUsesTheFloor(_ file: String) throws {
        let floor = try Self.manifest()
        let lines = try Self.read(file).split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("platforms: [") }
        #expect(!lines.isEmpty, "\(file) has no sample manifest with a platforms: line")
        for line in lines {
            let sample = Self.versions(in: String(line))
            #expect(!sample.isEmpty, "\(file): \(line)")
            for (platform, version) in sample {
                #expect(version == floor[platform], "\(file): the sample asks for \(platform) \(version); Package.swift for \(floor[platform] ?? "nothing")")
            }
        }
    }

    @Test func gettingStartedStatesTheFloor() throws {
        let floor = try Self.manifest()
        let sentence = "macOS \(floor["macOS"]!), iOS \(floor["iOS"]!), tvOS \(floor["tvOS"]!), watchOS \(floor["watchOS"]!) or visionOS \(floor["visionOS"]!)"
        #expect(try Self.read(Self.gettingStarted).contains(sentence), "GettingStarted.md should say \(sentence)")
    }

    /// APIs above macOS 12 / iOS 15, as the Swift 6.3 standard library's interfaces and
    /// swift-foundation's annotations give them, with a pattern that finds a call in source.
    static let tooNew: [(pattern: String, api: String, needs: String)] = [
        (#"(?<!Self)\.firstRange\(of:"#, "Collection.firstRange(of:) (_StringProcessing)", "macOS 13, iOS 16"),
        (#"\.ranges\(of:"#, "Collection.ranges(of:) (_StringProcessing)", "macOS 13, iOS 16"),
        (#"\.replacing\("#, "replacing(_:with:) (_StringProcessing)", "macOS 13, iOS 16"),
        (#"\.trimmingPrefix\("#, "trimmingPrefix(_:) (_StringProcessing)", "macOS 13, iOS 16"),
        (#"\.split\(separator: "[^"\\]{2,}""#, "split(separator:) with a String separator (_StringProcessing)", "macOS 13, iOS 16"),
        (#"(?<![A-Za-z])Regex(?![A-Za-z])|(?<!")#/|\.(wholeMatch|firstMatch|prefixMatch)\("#, "Regex", "macOS 13, iOS 16"),
        (#"(?<![A-Za-z.])Duration(?![A-Za-z])|ContinuousClock|SuspendingClock"#, "Duration and the clocks", "macOS 13, iOS 16"),
        (#"\.sleep\((for|until):"#, "Task.sleep(for:) / sleep(until:)", "macOS 13, iOS 16"),
        (#"URL\(filePath:|\.append(ing)?\((path|component|components|queryItems):"#, "URL(filePath:) / appending(path:)", "macOS 13, iOS 16"),
        (#"URL\.(temporaryDirectory|currentDirectory\(\)|homeDirectory|documentsDirectory|cachesDirectory)"#, "URL's directory properties", "macOS 13, iOS 16"),
        (#"\.(host|path|query|fragment|user|password)\(percentEncoded:"#, "URL's percentEncoded: accessors", "macOS 13, iOS 16"),
        (#"DiscardingTaskGroup"#, "withDiscardingTaskGroup", "macOS 14, iOS 17"),
        (#"import Observation|@Observable"#, "Observation", "macOS 14, iOS 17"),
        (#"import Synchronization|(?<![A-Za-z])(Mutex|Atomic)<"#, "Synchronization's Mutex / Atomic", "macOS 15, iOS 18"),
        (#"String\(validating:"#, "String(validating:as:)", "macOS 15, iOS 18"),
        (#"import Runtime"#, "the Runtime module (Backtrace)", "macOS 26, not in the iOS SDK"),
    ]

    /// The sources of everything built on Apple platforms: the products and the demo. Airgap is
    /// left out: its socket layer is Linux's, and elsewhere it reaches for the `Runtime` module
    /// behind `canImport` and availability checks that a pattern cannot read (its Apple build is
    /// unverified, as the README says).
    static let appleSources = [
        "AirlockBase", "AirlockCore", "AirlockStubFiles", "AirlockCassettes", "AirlockWireMock", "HTTPMock", "HTTPMockTesting",
        "HTTPLogging", "MockServer", "MockServerHTTPClient", "AirlockOpenAPI", "AirlockOpenAPICore", "URLProtocolSupport",
        "AirlockGRPC", "AirlockGRPCCore", "AirlockGRPCInProcess", "AirlockCLI", "AirlockDemo",
    ]

    @Test func productSourcesCallNoAPIAboveTheFloor() throws {
        let floor = try Self.manifest()
        #expect(floor["macOS"] == "12" && floor["iOS"] == "15", "the list of APIs below is for macOS 12 / iOS 15: update it with the floor")
        let patterns = try Self.tooNew.map { (try NSRegularExpression(pattern: $0.pattern), $0.api, $0.needs) }
        var scanned = 0
        for target in Self.appleSources {
            let folder = Documentation.root.appendingPathComponent("Sources/\(target)")
            let files = try #require(FileManager.default.enumerator(atPath: folder.path), "no Sources/\(target)")
                .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "no Swift file in Sources/\(target)")
            for file in files.sorted() {
                scanned += 1
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = String(line)
                    if code.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                    for (pattern, api, needs) in patterns where pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                        Issue.record(
                            """
                            Sources/\(target)/\(file):\(number + 1): \(api) needs \(needs), above the package's floor \
                            (macOS \(floor["macOS"]!), iOS \(floor["iOS"]!)). Use an older equivalent, put it behind \
                            `if #available` with a fallback, or raise the floor in Package.swift and in the Platforms \
                            tables (README.md, \(Self.article)), naming the API. \(code.trimmingCharacters(in: .whitespaces))
                            """
                        )
                    }
                }
            }
        }
        #expect(scanned > 50, "only \(scanned) source files scanned")
    }
}
