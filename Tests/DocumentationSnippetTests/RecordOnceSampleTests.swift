import Foundation
import ProcessSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The README's "Record once, replay forever" sample, run as written (`CassetteSample` in
/// `Snippets/StandaloneTests.swift`, the README's text verbatim) in a child process of this test
/// binary, with no cassette on disk:
/// - with `CI` set, as CI services set it, the test fails: a missing cassette is not recorded in
///   CI, and the failure says so and how to record it;
/// - without `CI`, the cassette records: the request goes on to the real service (here into a
///   proxy on loopback that refuses it, so nothing leaves the machine and nothing is written).
struct RecordOnceSampleTests {
    /// Where the sample's cassette would be written.
    static let cassette = Documentation.root.appendingPathComponent("Tests/DocumentationSnippetTests/Snippets/__Cassettes__/StandaloneTests/listsUsers.har")

    /// Runs the sample in a child process with `environment` added; its status and output.
    func runSample(_ environment: [String: String]) async throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-cassette-sample-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "CassetteSample"]
        var inherited = ProcessInfo.processInfo.environment
        // The run's own settings must not decide the child's mode (nor Airgap's guard, which
        // TestProcess leaves out).
        for name in ["CI", "AIRLOCK_RECORD"] { inherited[name] = nil }
        // Requests the sample sends on go to a proxy that refuses them (port 9, discard: closed).
        inherited["https_proxy"] = "http://127.0.0.1:9"
        inherited["HTTPS_PROXY"] = "http://127.0.0.1:9"
        inherited["AIRLOCK_SAMPLE"] = "CassetteSample"
        process.environment = inherited.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = nil
        try process.run()
        let status = await process.exitStatus()
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    @Test func inCIAMissingCassetteFailsTheTestInsteadOfRecording() async throws {
        try #require(!FileManager.default.fileExists(atPath: Self.cassette.path), "remove \(Self.cassette.path): the sample must run with no cassette")
        let (status, output) = try await runSample(["CI": "true"])
        #expect(status != 0, "the sample passed in CI with no cassette:\n\(output)")
        #expect(output.contains("listsUsers.har does not exist"), "\(output)")
        #expect(output.contains("CI is set"), "\(output)")
        #expect(output.contains("AIRLOCK_RECORD=newEpisodes swift test --filter listsUsers"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: Self.cassette.path))
    }

    @Test func withoutCIAMissingCassetteRecords() async throws {
        try #require(!FileManager.default.fileExists(atPath: Self.cassette.path), "remove \(Self.cassette.path): the sample must run with no cassette")
        let (status, output) = try await runSample([:])
        // It recorded: the request went on (to the refusing proxy), and no replay miss was reported.
        #expect(status != 0, "\(output)")
        #expect(!output.contains("does not exist"), "\(output)")
        #expect(!output.contains("replay miss"), "\(output)")
        #expect(output.contains("Failed to connect to 127.0.0.1 port 9"), "the request was not sent on:\n\(output)")
        #expect(!FileManager.default.fileExists(atPath: Self.cassette.path))
    }
}
