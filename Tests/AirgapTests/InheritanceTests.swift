import AirlockBase
import AirlockCore
import Airgap
import Foundation
import ProcessSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Processes a guarded test starts inherit the guard through the preload library, and what they
/// try lands in the parent's violations, attributed to the parent's test.
@Suite(.aloneAmongGuardedTests)
struct InheritanceTests {
    @Test(.enabled(if: !ThreadSanitizer.isActive, "an instrumented preload library cannot load into other programs"))
    func aChildProcessStartedWhileTheGuardIsActiveInheritsIt() async throws {
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

    /// Starting a `Process` copies the environment while other threads run; glibc's `setenv` frees
    /// the array it replaces. So the guard exports what children need once, at load time, and
    /// activating or deactivating it never touches the environment.
    @Test func activatingTheGuardLeavesTheEnvironmentAlone() async throws {
        func snapshot() -> (array: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, preload: String?, state: String?) {
            (environ, getenv("LD_PRELOAD").map { String(cString: $0) }, getenv("AIRGAP_INHERITED_STATE").map { String(cString: $0) })
        }
        let before = snapshot()
        let during = await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts) { snapshot() }
        let after = snapshot()
        #expect(during.array == before.array && after.array == before.array, "the environment array was replaced")
        #expect(during.preload == before.preload && after.preload == before.preload)
        #expect(during.state == before.state && after.state == before.state)
        if !ThreadSanitizer.isActive {
            #expect(before.preload?.contains("libAirgapPreload.so") == true, "exported at load time: \(before.preload ?? "nil")")
            let state = try #require(before.state)
            // The state file sits in a directory only this user can enter.
            var info = stat()
            #expect(stat((state as NSString).deletingLastPathComponent, &info) == 0)
            #expect(info.st_mode & 0o077 == 0, "mode \(String(info.st_mode, radix: 8))")
        }
    }

    @Test(.enabled(if: !ThreadSanitizer.isActive, "an instrumented preload library cannot load into other programs"))
    func aChildReachesTheHostsTheScopeAllows() async throws {
        let listeners = try LoopbackListeners(host: "127.0.0.2")
        let (status, violations) = try await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts.union(["127.0.0.2"])) {
            // bash opens the connection itself (/dev/tcp) and exits: 0 when it connected.
            let status = try await runChild("/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.2/\(listeners.tcpPort)"])
            return (status, Airgap.violations)
        }
        #expect(status == 0)
        #expect(violations.isEmpty, "\(violations.map(\.url))")
        try await waitUntil("the child's connection arrives") { !listeners.received().isEmpty }
    }
}
