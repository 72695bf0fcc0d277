import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// A package of a user, beside a clone of Airlock, with the README's Airgap manifest verbatim: a
/// plain `swift test` builds the preload library with the tests, and a test that starts `curl`
/// under the guard sees the connection blocked and reported in its own process, with no extra
/// command; and that the README's whole-run command (`AIRGAP_MODE=fail swift test`), as written,
/// fails a run whose test (with no trait) starts `curl`.
///
/// The nested build takes minutes the first time (SwiftPM resolves Airlock's dependencies and
/// builds Airgap); its scratch path is under this package's `.build/`, so a fresh clone (CI)
/// starts from nothing and a local run reuses its last build.
@Suite(.aloneAmongGuardedTests)
struct ConsumerPackageTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The first ```swift block of the README that is a whole manifest listing AirgapPreload.
    static func readmeManifest() throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
        return try #require(
            blocks.first { $0.hasPrefix("// swift-tools-version") && $0.contains(#".product(name: "AirgapPreload""#) },
            "README.md has no manifest sample that lists AirgapPreload"
        ) + "\n"
    }

    /// The README's whole-run command (the line of a ```sh block that starts with `AIRGAP_MODE=`).
    static func readmeWholeRunCommand() throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
        let line = blocks.flatMap { $0.split(separator: "\n") }.first { $0.hasPrefix("AIRGAP_MODE=") }
        return String(try #require(line, "README.md has no sh block with an AIRGAP_MODE=… command"))
    }

    static let consumerTest = #"""
        import Airgap
        import Foundation
        import Testing

        /// Under the trait, in a plain `swift test`.
        @Test(.airgapped(mode: .warn), .enabled(if: ProcessInfo.processInfo.environment["AIRGAP_MODE"] == nil))
        func curlIsBlockedAndReportedInTheTestProcess() throws {
            let curl = try #require(["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) })
            let process = Process()
            process.executableURL = URL(fileURLWithPath: curl)
            process.arguments = ["-sS", "--max-time", "30", "http://127.0.0.1:9/"]
            try process.run()
            process.waitUntilExit()
            let urls = Airgap.violations.map(\.url)
            print("consumer: curl exit \(process.terminationStatus), violations \(urls), stack \(Airgap.violations.first?.callStack ?? [])")
            #expect(process.terminationStatus == 7)
            #expect(urls == ["tcp://127.0.0.1:9"])
        }

        /// No trait, no code: only whole-run mode (`AIRGAP_MODE=fail swift test`) guards it.
        @Test(.enabled(if: ProcessInfo.processInfo.environment["AIRGAP_MODE"] != nil))
        func curlInAWholeRun() throws {
            let curl = try #require(["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) })
            let process = Process()
            process.executableURL = URL(fileURLWithPath: curl)
            process.arguments = ["-sS", "--max-time", "30", "http://127.0.0.1:9/"]
            try process.run()
            process.waitUntilExit()
            print("consumer whole run: curl exit \(process.terminationStatus), whole run \(Airgap.isWholeRun)")
        }
        """#

    /// A hang guard for the nested `swift test`, not a performance limit.
    static let hangGuard: Duration = .seconds(40 * 60)

    @Test(
        .enabled(if: ConsumerPackages.areTested, Comment(rawValue: ConsumerPackages.reason)),
        .enabled(if: !ThreadSanitizer.isActive, "the nested package is built without ThreadSanitizer; run it in a plain swift test")
    )
    func theREADMEManifestGuardsAChildProcessWithNoExtraCommand() async throws {
        let package = try ConsumerPackage(named: "airgap-consumer", airlock: Self.root, files: [
            "Package.swift": try Self.readmeManifest(), "Tests/MyAppTests/CurlTests.swift": Self.consumerTest,
        ])
        let (work, consumer, scratch) = (package.work, package.folder, package.build)
        let files = FileManager.default

        // A plain `swift test`: the trait guards the test, and curl in it.
        let (status, output) = try await Self.run("swift test", in: consumer, log: work.appendingPathComponent("swift-test.log"))
        let tail = output.split(separator: "\n").suffix(40).joined(separator: "\n")
        #expect(status == 0, "swift test of the consumer package failed (\(status)):\n\(tail)")
        #expect(files.fileExists(atPath: scratch.appendingPathComponent("debug/libAirgapPreload.so").path), "swift test did not build libAirgapPreload.so:\n\(tail)")
        #expect(output.contains(#"consumer: curl exit 7, violations ["tcp://127.0.0.1:9"], stack ["child process "#), "\(tail)")
        #expect(!output.contains("child processes are not guarded"), "\(tail)")
        guard status == 0 else { return }

        // The README's whole-run command, as written: a test with no trait starts curl, and the run fails.
        let command = try Self.readmeWholeRunCommand()
        let (wholeStatus, wholeOutput) = try await Self.run(command, in: consumer, log: work.appendingPathComponent("whole-run.log"))
        let wholeTail = wholeOutput.split(separator: "\n").suffix(40).joined(separator: "\n")
        #expect(wholeStatus != 0, "\(command) passed although a test's curl reached for the network:\n\(wholeTail)")
        #expect(wholeOutput.contains("consumer whole run: curl exit 7, whole run true"), "\(wholeTail)")
        #expect(wholeOutput.contains("tcp://127.0.0.1:9"), "\(wholeTail)")
        #expect(wholeOutput.contains("violation(s) detected"), "\(wholeTail)")
        #expect(wholeOutput.contains("failing the run because AIRGAP_MODE is fail"), "\(wholeTail)")
        #expect(!wholeOutput.contains("child processes are not guarded"), "\(wholeTail)")
    }

    /// Runs a shell command line in `folder` (output to `log`); its status and output. A command
    /// the hang guard kills is an issue.
    static func run(_ command: String, in folder: URL, log: URL) async throws -> (status: Int32, output: String) {
        let result = try await runShellCommand(command, in: folder, log: log, hangGuard: Self.hangGuard)
        if result.wasKilled {
            Issue.record("\(command) did not finish within \(Self.hangGuard) and was killed (a hang guard, not a performance limit); its output is in \(log.path)")
        }
        return (result.status, result.output)
    }

    /// Without the preload library next to the test binary, the guard's notice names the one
    /// step the README's manifest takes: the same `.product(…)` line.
    @Test(.enabled(if: !ThreadSanitizer.isActive, "under ThreadSanitizer the notice is another: an instrumented preload library cannot load into other programs"))
    func theNoticeWithoutThePreloadLibraryNamesTheREADMEsLine() async throws {
        let line = #".product(name: "AirgapPreload", package: "Airlock")"#
        #expect(try Self.readmeManifest().contains(line))
        let probe = try #require(Probe.path, "build AirgapProbe first (swift build)")
        // A copy of the probe in a folder of its own: no libAirgapPreload.so beside it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airgap-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("AirgapProbe")
        // Copied by `cp` in the child's shell, not by this process: a copy written here could be
        // open for writing in a child another test forks meanwhile, and running it would then
        // fail with "Text file busy" (ETXTBSY). No other process ever holds `cp`'s descriptor.
        let command = "cp '\(probe)' '\(copy.path)' && '\(copy.path)' activate deactivate"
        let (status, output) = try await Self.run(command, in: folder, log: folder.appendingPathComponent("log"))
        #expect(status == 0, "\(output)")
        #expect(output.contains("child processes are not guarded. Add \(line) to the test target's dependencies"), "\(output)")
    }
}

