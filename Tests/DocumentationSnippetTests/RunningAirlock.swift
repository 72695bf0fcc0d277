import Foundation
import ProcessSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `airlock` running as a child (`airlock serve …`), its standard output and error collected line
/// by line as it writes them.
final class RunningAirlock: @unchecked Sendable {
    // @unchecked Sendable: `output` and `ended` are only touched under `lock`; `process` is
    // Sendable in practice (its state after `run()` sits behind its own lock).
    private let process: TestProcess
    private let lock = NSLock()
    private var output = Data()
    private var ended = false

    /// A hang guard for waiting on output, not a performance limit.
    static let hangGuard: Duration = .seconds(300)

    init(_ arguments: [String], in directory: URL? = nil) throws {
        let path = try #require(AirlockCommand.executable, "build the airlock executable first (swift build)")
        process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = nil
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                lock.withLock {
                    if chunk.isEmpty { ended = true } else { output.append(chunk) }
                }
                if chunk.isEmpty { break }
            }
        }
    }

    /// The complete lines written so far.
    var lines: [String] {
        lock.withLock {
            let text = String(decoding: output, as: UTF8.self)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.removeLast()  // the part after the last newline: incomplete, or empty
            return lines
        }
    }

    /// Waits until at least `count` lines have been written, or the output ended; returns them.
    func lines(atLeast count: Int) async throws -> [String] {
        let start = ContinuousClock.now
        while true {
            let (lines, ended) = (self.lines, lock.withLock { self.ended })
            if lines.count >= count || ended { return lines }
            if ContinuousClock.now - start > Self.hangGuard {
                Issue.record("airlock wrote \(lines.count) line(s), not \(count), within \(Self.hangGuard) (a hang guard): \(lines)")
                return lines
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops it as Ctrl-C does and returns its exit status and everything it wrote.
    func interrupt() async throws -> (status: Int32, lines: [String]) {
        process.interrupt()
        let status = await process.exitStatus()
        let start = ContinuousClock.now
        while !lock.withLock({ ended }), ContinuousClock.now - start < Self.hangGuard {
            try await Task.sleep(for: .milliseconds(20))
        }
        return (status, lines)
    }

    /// Ends it if a test left it running, and waits for it to end.
    func stopIfRunning() {
        process.stop()
    }

    /// The base URL the banner's first line names.
    static func baseURL(in banner: String) throws -> URL {
        let match = try #require(banner.firstMatch(of: #/https?://[^\s]+/#), "no URL in \(banner)")
        return try #require(URL(string: String(match.output)))
    }
}
