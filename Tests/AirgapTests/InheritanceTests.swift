import AirlockCore
import Airgap
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Processes a guarded test starts inherit the guard through the preload library, and what they
/// try lands in the parent's violations, attributed to the parent's test.
struct InheritanceTests {
    @Test func aChildProcessStartedWhileTheGuardIsActiveInheritsIt() async throws {
        let curl = try #require(
            ["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "this test needs curl"
        )
        // 127.0.0.2 is not in the allowed hosts; other tests' servers on 127.0.0.1 stay reachable.
        let listeners = try LoopbackListeners(host: "127.0.0.2")
        let url = "tcp://127.0.0.2:\(listeners.tcpPort)"
        let outcome = Locked<(status: Int32?, violations: [Violation])>((nil, []))
        try await withKnownIssue {
            try await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts) {
                let status = try await runChild(curl, ["-sS", "--max-time", "60", "http://127.0.0.2:\(listeners.tcpPort)/"])
                let violations = Airgap.violations
                outcome.withLock { $0 = (status, violations) }
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains(url) }
        }
        let (status, violations) = outcome.withLock { $0 }
        #expect(listeners.received() == [])
        #expect(status == 7, "curl exits 7 when it cannot connect")
        #expect(violations.map(\.url) == [url])
        #expect(violations.first?.testName == "InheritanceTests/aChildProcessStartedWhileTheGuardIsActiveInheritsIt()")
        #expect(violations.first?.callStack.first?.hasPrefix("child process ") == true)
        #expect(violations.first?.callStack.first?.contains("curl") == true)
    }
}
