import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pipe the signal handler writes a byte to; made before the handler is installed.
private let interruptPipe: (read: Int32, write: Int32) = {
    var descriptors: [Int32] = [-1, -1]
    _ = pipe(&descriptors)
    return (descriptors[0], descriptors[1])
}()

/// SIGINT and SIGTERM, never lost.
///
/// `main()` installs a handler for both before anything else runs; the handler only writes a byte
/// to a pipe (async-signal-safe), and ``next()`` reads it. A signal that comes at any moment after
/// that — a test interrupting the command as soon as its banner appears, a parent that dies at once
/// with `--exit-with-parent` — waits in the pipe until it is taken. (An ignored disposition and a
/// dispatch source, as before, lost a signal that arrived before the source was registered, and
/// the server lived on.)
enum InterruptSignals {
    /// Installs the handler for SIGINT and SIGTERM.
    static func install() {
        _ = interruptPipe
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(interruptPipe.write, &byte, 1)
            }
            #elseif canImport(Darwin)
            action.__sigaction_u.__sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(interruptPipe.write, &byte, 1)
            }
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Stops the command as SIGTERM would (WireMock's `POST /__admin/shutdown`).
    static func request() {
        var byte: UInt8 = 1
        _ = write(interruptPipe.write, &byte, 1)
    }

    /// Suspends until SIGINT or SIGTERM has arrived (at once when one already has).
    static func next() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // A thread of its own: the read blocks, which the cooperative pool must not.
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while read(interruptPipe.read, &byte, 1) < 0 && errno == EINTR {}
                continuation.resume()
            }
        }
    }
}
