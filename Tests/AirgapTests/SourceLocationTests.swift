import AirlockBase
import AirlockCore
import Airgap
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issues point at the user's code that made the call, not into Airgap.
@Suite(.aloneAmongGuardedTests)
struct SourceLocationTests {
    @Test func anIssuePointsAtTheCallThatReachedForTheNetwork() async throws {
        let listeners = try LoopbackListeners(host: "127.0.0.2")
        let expectedLine = Locked(0)
        await withKnownIssue {
            await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts) {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(listeners.tcpPort).bigEndian)
                inet_pton(AF_INET, "127.0.0.2", &address.sin_addr)
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(descriptor) }
                let callLine = #line; _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                expectedLine.withLock { $0 = callLine }
            }
        } matching: { issue in
            issue.sourceLocation?.fileName == "SourceLocationTests.swift" && issue.sourceLocation?.line == expectedLine.withLock { $0 }
        }
        #expect(listeners.received() == [])
    }

    @Test func anIssueFromAnotherThreadPointsAtTheScope() async throws {
        let scopeLine = #line + 2
        await withKnownIssue {
            await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts) {
                // libcurl resolves on a thread of its own: no user frame there.
                _ = await Client.fetch(Client.session(.ephemeral), "http://airgap-location.invalid/")
            }
        } matching: { issue in
            issue.sourceLocation?.fileName == "SourceLocationTests.swift" && issue.sourceLocation?.line == scopeLine
        }
    }
}
