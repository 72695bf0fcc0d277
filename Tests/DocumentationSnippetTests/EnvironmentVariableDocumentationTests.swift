import Foundation
import HTTPMock
import Testing

/// Every environment variable of Airlock's own (`AIRGAP_…`, `AIRLOCK_…`) that the README or a DocC
/// article names is one the code reads; the ones a test can set without touching the process are
/// also checked through the code path that reads them.
struct EnvironmentVariableDocumentationTests {
    /// A variable named in a documentation file, with where.
    struct Mention: Sendable, CustomTestStringConvertible {
        let name: String
        let file: String
        let line: Int
        var testDescription: String { "\(name) (\(file):\(line))" }
    }

    /// The first mention of each `AIRGAP_…` / `AIRLOCK_…` name in each file.
    static let mentions: [Mention] = Documentation.files.flatMap { file in
        let text = (try? String(contentsOf: Documentation.root.appendingPathComponent(file), encoding: .utf8)) ?? ""
        var seen: Set<String> = []
        var found: [Mention] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for match in line.matches(of: #/\b(?:AIRGAP|AIRLOCK)_[A-Z0-9_]*[A-Z0-9]\b/#) where seen.insert(String(match.output)).inserted {
                found.append(Mention(name: String(match.output), file: file, line: index + 1))
            }
        }
        return found
    }

    /// The text of every Swift and C source of the package's targets and tests (a variable that
    /// only changes what the test suite runs, such as `AIRLOCK_CONSUMER_TESTS`, is read there).
    static let sources: String = ["Sources", "Tests"].flatMap { name -> [String] in
        let folder = Documentation.root.appendingPathComponent(name)
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return files.filter { name in [".swift", ".c", ".h"].contains { name.hasSuffix($0) } }
            .compactMap { try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
    }.joined(separator: "\n")

    @Test func variablesAreFound() {
        let names = Set(Self.mentions.map(\.name))
        for name in ["AIRGAP_MODE", "AIRGAP_ALLOWED_HOSTS", "AIRLOCK_RECORD", "AIRLOCK_CA_DIR"] {
            #expect(names.contains(name), "no documentation file names \(name)")
        }
        let readsTheEnvironment = Self.sources.contains("getenv(") && Self.sources.contains("environment[")
        #expect(readsTheEnvironment, "the sources were not read")
    }

    @Test(arguments: mentions)
    func theCodeReadsTheVariable(_ mention: Mention) {
        // Read as `environment["NAME"]` in Swift or `getenv("NAME")` in C: the quoted name; or a
        // compilation condition (`-DNAME`) that an `#if` of the sources tests.
        let isRead = Self.sources.contains("\"\(mention.name)\"")
            || Self.sources.split(separator: "\n").contains { $0.hasPrefix("#if") && $0.contains(mention.name) }
        #expect(
            isRead,
            "\(mention.file):\(mention.line) names \(mention.name), but no source file under Sources/ reads it. Fix the name, or remove it from the text."
        )
    }

    @Test func airlockRecordAndCIChooseTheModeAsDocumented() throws {
        // Recording.md: `AIRLOCK_RECORD=once|newEpisodes|none|all` overrides the mode (`new_episodes`
        // works too); when `CI` is set the mode is `none` unless `AIRLOCK_RECORD` says otherwise.
        for mode in Cassette.RecordMode.allCases {
            #expect(try Cassette.RecordMode.effective(requested: .once, environment: ["AIRLOCK_RECORD": mode.rawValue]) == mode)
        }
        #expect(try Cassette.RecordMode.effective(requested: .once, environment: ["AIRLOCK_RECORD": "new_episodes"]) == .newEpisodes)
        #expect(try Cassette.RecordMode.effective(requested: .all, environment: ["CI": "true"]) == .none)
        #expect(try Cassette.RecordMode.effective(requested: .once, environment: ["CI": "1", "AIRLOCK_RECORD": "all"]) == .all)
        #expect(throws: CassetteError.self) { try Cassette.RecordMode.effective(requested: .once, environment: ["AIRLOCK_RECORD": "sometimes"]) }
    }

    #if HTTPS
    // `airlock ca` makes the CA, which needs the package's HTTPS trait (`swift test --traits HTTPS`).
    @Test func airlockCADirIsWhereTheCommandKeepsTheCA() async throws {
        // ServingHTTPS.md: the CA is kept in `.build/airlock-ca/`, or `$AIRLOCK_CA_DIR`.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-ca-doc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["AIRLOCK_CA_DIR"] = folder.path
        let (status, output) = try await AirlockCommand.run(["ca", "path"], environment: environment)
        #expect(status == 0, "\(output)")
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == folder.appendingPathComponent("airlock-ca.pem").path)
    }
    #endif
}
