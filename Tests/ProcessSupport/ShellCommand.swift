import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a shell command line run by ``runShellCommand(_:in:log:hangGuard:)`` did.
public struct ShellCommandResult: Sendable {
    /// The exit status (a signal's number plus 128 when one ended it, as `sh` reports it).
    public let status: Int32
    /// Standard output and standard error, interleaved as written (the log's text).
    public let output: String
    /// Whether the hang guard killed the command.
    public let wasKilled: Bool
}

/// Runs a shell command line in `folder` with both output streams going to `log`, in an
/// environment without this process's Airgap settings and preload library (a nested build or
/// test run must not inherit a guard that a test beside the caller has on).
///
/// `hangGuard` is not a performance limit: a command still running after it is killed, so that a
/// hang fails the caller instead of stopping the suite.
public func runShellCommand(_ command: String, in folder: URL, log: URL, hangGuard: Duration) async throws -> ShellCommandResult {
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let process = TestProcess()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = folder
    process.standardOutput = try FileHandle(forWritingTo: log)
    process.standardError = try FileHandle(forWritingTo: log)
    process.standardInput = nil
    try process.run()
    let identifier = process.processIdentifier
    let killed = Task { () -> Bool in
        try? await Task.sleep(for: hangGuard)
        guard !Task.isCancelled, process.isRunning else { return false }
        kill(identifier, SIGKILL)
        return true
    }
    let status = await process.exitStatus()
    killed.cancel()
    return ShellCommandResult(status: status, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "", wasKilled: await killed.value)
}
