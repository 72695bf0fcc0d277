import AirlockBase
import Foundation
import MockServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output or error, written with `write(2)` so that a reader going away — `airlock
/// serve … | head -2` — costs the lines, not the process.
///
/// `FileHandle.write` raises `SIGPIPE` when the pipe's reader has gone (which ends the process)
/// and traps when the signal is ignored. Here `SIGPIPE` is ignored before the first write, a
/// failed write is dropped, and the first failure is reported once on standard error (when that
/// one still works). The server's sockets are unaffected: SwiftNIO sends with `MSG_NOSIGNAL`.
final class Console: Sendable {
    static let standardOutput = Console(descriptor: STDOUT_FILENO, name: "standard output")
    static let standardError = Console(descriptor: STDERR_FILENO, name: "standard error")

    /// Ignores `SIGPIPE` for the whole process, once, before anything is written.
    private static let brokenPipesIgnored: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    private let descriptor: Int32
    private let name: String
    /// Whether a write has failed; later lines are not tried.
    private let isClosed = Locked(false)

    private init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    /// Writes `line` and a newline in one `write` where the pipe allows, so that lines written
    /// from several threads do not interleave.
    func write(_ line: String) {
        write(Data((line + "\n").utf8))
    }

    /// Writes bytes as they are.
    func write(_ data: Data) {
        _ = Self.brokenPipesIgnored
        guard !isClosed.withLock({ $0 }) else { return }
        let failure: Int32? = data.withUnsafeBytes { buffer in
            guard var next = buffer.baseAddress else { return nil }
            var left = buffer.count
            while left > 0 {
                let written = systemWrite(descriptor, next, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                next += written
                left -= written
            }
            return nil
        }
        guard let failure else { return }
        let first = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first, self !== Console.standardError {
            Console.standardError.write("airlock: \(name) cannot be written (\(String(cString: strerror(failure)))); going on without it.")
        }
    }
}

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}
