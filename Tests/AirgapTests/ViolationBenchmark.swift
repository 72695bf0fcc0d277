import AirlockBase
import Airgap
import AirlockCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Not a test but a benchmark: what a violation costs the thread that made the blocked call, and
/// how long a burst of violations from several threads takes to be recorded with symbolicated
/// stacks. It prints figures (BENCHMARKS.md has them) and asserts nothing about time. It runs
/// only when asked, alone (it activates the guard process-wide):
///
///     AIRGAP_BENCHMARK=1 swift test --skip-build --filter ViolationBenchmark
@Suite(.aloneAmongGuardedTests, .serialized, .enabled(if: ProcessInfo.processInfo.environment["AIRGAP_BENCHMARK"] == "1", "set AIRGAP_BENCHMARK=1"))
struct ViolationBenchmark {
    /// A port on 127.0.0.2 that nothing listens on (a loopback address the guard blocks: even a
    /// broken guard sends nothing off the machine).
    static let port: UInt16 = 9

    /// One blocked `connect`; returns how long the call took, in seconds.
    @inline(never)
    static func blockedConnect() -> Double {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.2")
        let start = DispatchTime.now().uptimeNanoseconds
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private func guarded<T>(_ body: () throws -> T) rethrows -> T {
        Airgap.mode = .warn
        Airgap.allowedHosts = Loopback.hosts
        Airgap.violationHandler = { _ in }
        Airgap.clearViolations()
        Airgap.activate()
        defer {
            Airgap.deactivate()
            Airgap.clearViolations()
        }
        return try body()
    }

    private static func milliseconds(_ seconds: Double) -> String {
        String(format: "%.2f ms", seconds * 1000)
    }

    @Test func blockedCallLatency() {
        guarded {
            let first = Self.blockedConnect()
            var times = (0..<200).map { _ in Self.blockedConnect() }
            let recorded = Airgap.violations
            times.sort()
            print("""
                [airgap-benchmark] blocked connect() on the calling thread, debug test bundle \
                (\(Self.binarySize)): first \(Self.milliseconds(first)), then 200 more: \
                p50 \(Self.milliseconds(times[100])), p99 \(Self.milliseconds(times[198])), \
                max \(Self.milliseconds(times[199])); recorded \(recorded.count), \
                symbolicated \(recorded.filter { $0.callStack.first?.hasPrefix("connect + ") == true }.count)
                """)
        }
    }

    @Test func aThousandViolationsFromFourThreads() {
        guarded {
            let clock = ContinuousClock()
            let start = clock.now
            let done = DispatchGroup()
            let times = Locked<[Double]>([])
            for _ in 0..<4 {
                done.enter()
                Thread {
                    let own = (0..<250).map { _ in Self.blockedConnect() }
                    times.withLock { $0 += own }
                    done.leave()
                }.start()
            }
            done.wait()
            let callsReturned = clock.now - start
            let sorted = times.withLock { $0.sorted() }
            let recorded = Airgap.violations
            let allRecorded = clock.now - start
            let symbolicated = recorded.filter { $0.callStack.first?.hasPrefix("connect + ") == true }.count
            print("""
                [airgap-benchmark] 1,000 violations from 4 threads: every call returned after \(callsReturned) \
                (per call p50 \(Self.milliseconds(sorted[500])), p99 \(Self.milliseconds(sorted[990])), \
                max \(Self.milliseconds(sorted[999])): 4 busy threads on this machine's 2 cores wait for \
                scheduler ticks); all recorded with symbolicated stacks after \(allRecorded): \
                \(recorded.count) recorded, \(symbolicated) symbolicated
                """)
        }
    }

    static var binarySize: String {
        let size = (try? FileManager.default.attributesOfItem(atPath: CommandLine.arguments[0])[.size] as? Int) ?? 0
        return "\(size / 1_000_000) MB"
    }
}
