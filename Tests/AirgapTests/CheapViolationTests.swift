import AirlockBase
@testable import Airgap
import AirlockCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A blocked call is reported and fails at once: its stack is symbolicated when first read, on
/// Airgap's own thread, and is complete by the time anyone reads it.
@Suite(.aloneAmongGuardedTests, .airgapped(mode: .warn, allowedHosts: Loopback.hosts))
struct CheapViolationTests {
    private static func blockedConnect(port: Int) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.2", &address.sin_addr)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return status == 0 ? 0 : errno
    }

    @Test func aBlockedCallReturnsWhileTheSymbolicationThreadIsBusy() throws {
        let listeners = try LoopbackListeners(host: "127.0.0.2")
        // Hold the worker: a call that waited for its stack to be symbolicated would wait here
        // until the hang guard.
        let release = DispatchSemaphore(value: 0)
        SymbolicationWorker.shared.submit { release.wait() }
        let returned = DispatchSemaphore(value: 0)
        let result = Locked<Int32>(-1)
        Thread {
            result.withLock { $0 = Self.blockedConnect(port: listeners.tcpPort) }
            returned.signal()
        }.start()
        let inTime = returned.wait(timeout: .now() + .seconds(180)) == .success
        release.signal()
        #expect(inTime, "the blocked connect did not return while the symbolication thread was busy (a hang guard, not a performance limit)")
        #expect(result.withLock { $0 } == ECONNREFUSED)
        // Reading the call stack waits for the worker: the stack is symbolicated then.
        let violations = Airgap.violations
        #expect(violations.map(\.url) == ["tcp://127.0.0.2:\(listeners.tcpPort)"])
        #expect(violations.first?.callStack.first?.hasPrefix("connect + ") == true, "\(violations)")
        #expect(listeners.received() == [])
    }

    @Test func theReporterHasTheViolationBeforeItsStackIsSymbolicated() throws {
        let listeners = try LoopbackListeners(host: "127.0.0.2")
        let reported = Locked<[Violation]>([])
        Airgap.violationReporter = { violation in reported.withLock { $0.append(violation) } }
        // Hold the worker: a report that waited for its stack to be symbolicated would not have
        // happened when the call returned.
        let release = DispatchSemaphore(value: 0)
        SymbolicationWorker.shared.submit { release.wait() }
        let returned = DispatchSemaphore(value: 0)
        let result = Locked<Int32>(-1)
        Thread {
            result.withLock { $0 = Self.blockedConnect(port: listeners.tcpPort) }
            returned.signal()
        }.start()
        let inTime = returned.wait(timeout: .now() + .seconds(180)) == .success
        // Read while the worker is still held: reported without symbolicating.
        let seenWhileHeld = reported.withLock { $0.map(\.url) }
        release.signal()
        #expect(inTime, "the blocked connect did not return while the symbolication thread was busy (a hang guard, not a performance limit)")
        #expect(result.withLock { $0 } == ECONNREFUSED)
        #expect(seenWhileHeld == ["tcp://127.0.0.2:\(listeners.tcpPort)"])
        // Symbolicated now, on first read.
        #expect(reported.withLock { $0 }.first?.callStack.first?.hasPrefix("connect + ") == true)
    }

    @Test func aStackSeenBeforeIsSymbolicatedFromTheCache() {
        // The same call site twice: the same return addresses.
        let stacks = (0..<2).map { _ in CallStack.capture() }
        #expect(stacks[0].addresses == stacks[1].addresses)
        let first = CallStack.symbolicate(stacks[0])
        #expect(first.frames.contains { $0.contains("CheapViolationTests") }, "\(first.frames)")
        // Cached: the second needs no symbolication.
        #expect(CallStack.cachedSymbolication(stacks[1])?.frames == first.frames)
    }
}
