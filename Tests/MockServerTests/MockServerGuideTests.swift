import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// "Testing with a Mock Server" (Sources/MockServer/Documentation.docc), run as written in a
/// package of a user beside a clone of Airlock: the page's manifest verbatim, its test verbatim
/// (`swift test`: AsyncHTTPClient against a `MockServer`), its stub file, and its shell lines
/// (`swift run airlock serve stubs.json --port 0 --exit-with-parent`, readiness from the banner,
/// curl) — `swift run` of Airlock's executable from a package that depends on it, not a clone.
///
/// The nested build takes many minutes the first time (SwiftNIO, SwiftNIO SSL, AsyncHTTPClient);
/// its build folder is under this package's `.build/`, so a local run reuses its last build.
struct MockServerGuideTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let guide = "Sources/MockServer/Documentation.docc/TestingWithAMockServer.md"

    /// The fenced blocks of the guide in `language`.
    static func blocks(_ language: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(guide), encoding: .utf8)
        return text.components(separatedBy: "```\(language)\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    /// A hang guard for each nested command, not a performance limit.
    static let hangGuard: Duration = .seconds(40 * 60)

    @Test(
        .enabled(
            if: ConsumerPackages.areTested,
            Comment(rawValue: ConsumerPackages.reason)
        ),
        .enabled(if: !ThreadSanitizer.isActive, "the nested package is built without ThreadSanitizer; run it in a plain swift test")
    )
    func theGuidesSamplesWorkInAPackageThatDependsOnAirlock() async throws {
        let manifest = try #require(try Self.blocks("swift").first { $0.contains("import PackageDescription") }, "\(Self.guide) has no manifest")
        let test = try #require(try Self.blocks("swift").first { $0.contains("import MockServer") }, "\(Self.guide) has no test")
        let stubs = try #require(try Self.blocks("json").first, "\(Self.guide) has no stub file")
        let script = try #require(try Self.blocks("sh").first { $0.contains("airlock serve") }, "\(Self.guide) has no airlock serve lines")
        #expect(manifest.contains(#".product(name: "MockServer", package: "Airlock")"#))

        let package = try ConsumerPackage(named: "mockserver-consumer", airlock: Self.root, files: [
            "Package.swift": manifest, "Tests/MyAppTests/ServerTests.swift": test, "stubs.json": stubs,
        ])
        let (work, consumer) = (package.work, package.folder)

        let (status, output) = try await Self.run("swift test", in: consumer, log: work.appendingPathComponent("swift-test.log"))
        let tail = output.split(separator: "\n").suffix(40).joined(separator: "\n")
        #expect(status == 0, "swift test of the consumer package failed (\(status)):\n\(tail)")
        #expect(output.contains("fetchesUsersFromTheMockServer()"), "\(tail)")
        guard status == 0 else { return }

        let (scriptStatus, scriptOutput) = try await Self.run(script, in: consumer, log: work.appendingPathComponent("script.log"))
        let serverLog = (try? String(contentsOf: consumer.appendingPathComponent("airlock.log"), encoding: .utf8)) ?? ""
        #expect(scriptStatus == 0, "the guide's shell lines failed (\(scriptStatus)):\n\(scriptOutput)\n\(serverLog)")
        #expect(scriptOutput.contains(#""name":"Alice""#), "curl did not get the stub's body:\n\(scriptOutput)\n\(serverLog)")
        #expect(serverLog.contains("Airlock serving 1 stub(s) from stubs.json at http://127.0.0.1:"), "\(serverLog)")
        #expect(serverLog.contains("GET /users → 200"), "\(serverLog)")
        #expect(serverLog.contains("Airlock stopped."), "\(serverLog)")
    }

    /// Runs a shell command line in `folder` (output to `log`); its status and output. A command
    /// the hang guard kills is an issue.
    static func run(_ script: String, in folder: URL, log: URL) async throws -> (status: Int32, output: String) {
        let result = try await runShellCommand(script, in: folder, log: log, hangGuard: Self.hangGuard)
        if result.wasKilled {
            Issue.record("\(script) did not finish within \(Self.hangGuard) and was killed (a hang guard, not a performance limit); its output is in \(log.path)")
        }
        return (result.status, result.output)
    }
}
