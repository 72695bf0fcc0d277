import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// A package of a user, beside a clone of Airlock, with the README's Airgap manifest verbatim: a
/// plain `swift test` builds the preload library with the tests, and a test that starts `curl`
/// under the guard sees the connection blocked and reported in its own process, with no extra
/// command.
///
/// The nested build takes minutes the first time (SwiftPM resolves Airlock's dependencies and
/// builds Airgap); its scratch path is under this package's `.build/`, so a fresh clone (CI)
/// starts from nothing and a local run reuses its last build.
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

    static let consumerTest = #"""
        import Airgap
        import Foundation
        import Testing

        @Test(.airgapped(mode: .warn))
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
        """#

    /// A hang guard for the nested `swift test`, not a performance limit.
    static let hangGuard: Duration = .seconds(40 * 60)

    @Test(.enabled(if: !ThreadSanitizer.isActive, "the nested package is built without ThreadSanitizer; run it in a plain swift test"))
    func theREADMEManifestGuardsAChildProcessWithNoExtraCommand() async throws {
        let work = Self.root.appendingPathComponent(".build/airgap-consumer")
        let packages = work.appendingPathComponent("packages")
        let consumer = packages.appendingPathComponent("MyApp")
        let scratch = work.appendingPathComponent("scratch")
        let files = FileManager.default
        try? files.removeItem(at: packages)
        try files.createDirectory(at: consumer.appendingPathComponent("Sources/MyApp"), withIntermediateDirectories: true)
        try files.createDirectory(at: consumer.appendingPathComponent("Tests/MyAppTests"), withIntermediateDirectories: true)
        // "../Airlock": the clone beside the package.
        try files.createSymbolicLink(at: packages.appendingPathComponent("Airlock"), withDestinationURL: Self.root)
        try Self.readmeManifest().write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "public enum MyApp {}\n".write(to: consumer.appendingPathComponent("Sources/MyApp/MyApp.swift"), atomically: true, encoding: .utf8)
        try Self.consumerTest.write(to: consumer.appendingPathComponent("Tests/MyAppTests/CurlTests.swift"), atomically: true, encoding: .utf8)

        let log = work.appendingPathComponent("swift-test.log")
        _ = files.createFile(atPath: log.path, contents: nil)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "test", "--scratch-path", scratch.path]
        process.currentDirectoryURL = consumer
        // Not this process's guard: the nested build must not inherit the preload library (a
        // suite beside this one may have the guard active while the build starts).
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AIRGAP_") && $0.key != "LD_PRELOAD" }
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = nil
        try process.run()
        let identifier = process.processIdentifier
        let watchdog = Task {
            try? await Task.sleep(for: Self.hangGuard)
            guard !Task.isCancelled, process.isRunning else { return }
            kill(identifier, SIGKILL)
            Issue.record("swift test of the consumer package did not finish within \(Self.hangGuard) and was killed (a hang guard, not a performance limit); its output is in \(log.path)")
        }
        let status = await process.exitStatus()
        watchdog.cancel()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let tail = output.split(separator: "\n").suffix(40).joined(separator: "\n")
        #expect(status == 0, "swift test of the consumer package failed (\(status)):\n\(tail)")
        #expect(files.fileExists(atPath: scratch.appendingPathComponent("debug/libAirgapPreload.so").path), "swift test did not build libAirgapPreload.so:\n\(tail)")
        #expect(output.contains(#"consumer: curl exit 7, violations ["tcp://127.0.0.1:9"], stack ["child process "#), "\(tail)")
        #expect(!output.contains("child processes are not guarded"), "\(tail)")
    }
}
