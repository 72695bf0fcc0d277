import AirlockBase
import ArgumentParser
import Dispatch
import Foundation
import MockServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--exit-with-parent` for the long-running commands (`serve`, `record`).
struct ParentOptions: ParsableArguments {
    @Flag(
        help: """
            Stop (as on SIGTERM) when the process that started this one exits, even when it is killed, \
            so that a test process that dies does not leave the server holding its port.
            """
    )
    var exitWithParent = false

    /// Starts watching the parent when asked to. Call it first thing in `run()`.
    func watchParent() {
        if exitWithParent { ParentWatch.start() }
    }
}

/// Watches the parent process and sends this process SIGTERM when it is gone.
///
/// The parent's death is seen as `getppid()` changing (the orphan is handed to init or a
/// subreaper), checked every 100 ms on all platforms. Linux's `prctl(PR_SET_PDEATHSIG)` is not
/// used: it fires when the parent *thread* that started this process exits, and a Swift test
/// process starts children from pool threads that may end long before the test does.
enum ParentWatch {
    private static let timer = Locked<(any DispatchSourceTimer)?>(nil)

    static func start() {
        let parent = getppid()
        // A parent that has already gone (before this line) cannot be told from init; one that
        // goes later is seen by the first tick.
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now(), repeating: .milliseconds(100))
        source.setEventHandler {
            guard getppid() != parent else { return }
            timer.withLock { $0?.cancel() }
            printError("airlock: the process that started it (pid \(parent)) has exited; stopping (--exit-with-parent).")
            kill(getpid(), SIGTERM)
        }
        timer.withLock { $0 = source }
        source.resume()
    }
}
