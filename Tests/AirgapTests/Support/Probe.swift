import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// Runs the `AirgapProbe` executable (built next to the test binary) in a fresh process.
enum Probe {
    /// The probe's path: next to the test binary, else in `.build/debug` or
    /// `.build-airgap/debug` of this package.
    static let path: String? = {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for scratch in [".build", ".build-airgap"] {
            candidates.append(packageRoot.appendingPathComponent(scratch).appendingPathComponent("debug"))
        }
        return candidates
            .map { $0.appendingPathComponent("AirgapProbe").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// What a probe run printed, action by action.
    struct Output: CustomStringConvertible {
        let lines: [String]
        let standardError: String
        let status: Int32

        /// The result printed for the first action that starts with `action`.
        func result(_ action: String) -> String? {
            lines.first { $0.hasPrefix(action) }.flatMap { line in
                line.range(of: " -> ").map { String(line[$0.upperBound...]) }
            }
        }

        var description: String { (lines + [standardError]).joined(separator: "\n") }
    }

    /// Runs the probe with `actions` and extra `environment`, with `AIRGAP_*` variables of this
    /// process removed first.
    static func run(_ actions: [String], environment: [String: String] = [:]) async throws -> Output {
        let path = try #require(Probe.path, "AirgapProbe was not found next to the test binary; build it with `swift build` (or `swift build --build-tests`) first.")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("airgap-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)

        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = actions
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AIRGAP_") }
        env.merge(environment) { _, new in new }
        process.environment = env
        process.keepsAirgapGuard = true  // LD_PRELOAD, and what `environment` sets
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        let watchdog = killIfHanging(process, running: actions)
        let status = await process.exitStatus()
        watchdog.cancel()
        let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return Output(lines: out.split(separator: "\n").map(String.init), standardError: err, status: status)
    }

    /// How long a probe may run before it is killed: a hang guard, not a performance limit. Each
    /// action has its own time-out in the probe (60 s).
    static let hangGuard: Duration = .seconds(300)

    /// Kills `process` if it is still running after ``hangGuard`` and records an issue that
    /// says so; the kill ends the wait for its termination.
    private static func killIfHanging(_ process: TestProcess, running actions: [String]) -> Task<Void, Never> {
        let identifier = process.processIdentifier
        return Task {
            try? await Task.sleep(for: hangGuard)
            guard !Task.isCancelled, process.isRunning else { return }
            kill(identifier, SIGKILL)
            Issue.record("AirgapProbe \(actions.joined(separator: " ")) did not finish within \(hangGuard) and was killed (a hang guard, not a performance limit)")
        }
    }
}

/// The loopback names every in-process guarded test allows, so that other tests in this process
/// (which talk to servers on 127.0.0.1) are never blocked.
enum Loopback {
    static let hosts: Set<String> = ["localhost", "127.0.0.1", "::1"]
}
