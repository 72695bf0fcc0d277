@testable import Airgap
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Settings, patterns and scopes. Settings changed inside the suite's scopes are each test's own.
@Suite(.aloneAmongGuardedTests, .airgapped(allowedHosts: Loopback.hosts))
struct ConfigurationTests {
    @Test(arguments: [
        ("localhost", "localhost", true),
        ("LocalHost", "localhost", true),
        ("localhost", "LOCALHOST", true),
        ("*.mock-server.local", "api.mock-server.local", true),
        ("*.mock-server.local", "deep.api.mock-server.local", true),
        ("*.mock-server.local", "mock-server.local", true),
        ("*.mock-server.local", "mock-server.local.evil", false),
        ("*.mock-server.local", "othermock-server.local", false),
        ("api.example.com", "example.com", false),
        ("localhost:8080", "localhost", false),
        ("127.0.0.0/8", "127.9.9.9", true),
        ("127.0.0.1", "127.0.0.2", false),
        ("::1", "[::1]", true),
        ("::1", "::1", true),
        ("fd00::/8", "fd12::1", true),
    ])
    func allowedHostPatterns(pattern: String, host: String, allowed: Bool) {
        // Matching does not depend on the guard being on.
        Airgap.deactivate()
        Airgap.allowedHosts = [pattern]
        // Inside the test's scope, the setter replaced the hosts the scope adds.
        #expect(GuardScope.innermostOpen?.overrides.withLock { $0.rules }.allowsURLHost(host) == allowed)
    }

    @Test func allowedHostsPersistAcrossActivateAndDeactivate() {
        Airgap.allowedHosts = Loopback.hosts.union(["*.example.com"])
        Airgap.deactivate()
        Airgap.activate()
        #expect(Airgap.allowedHosts.contains("*.example.com"))
    }

    @Test func changingAllowedHostsNeverBlocksAConnectionBothListsAllow() throws {
        // A thread connects to a loopback listener over and over while the allow list is swapped
        // between two lists that both allow loopback. The swap used to empty the list before
        // filling it again, and a connection made in between was blocked (seen as a rare failure
        // of unrelated loopback tests running beside an Airgap suite).
        let listeners = try LoopbackListeners()
        let counts = ConnectCounts()
        let finished = DispatchSemaphore(value: 0)
        let connector = Thread {
            while !counts.isStopped {
                counts.record(succeeded: Self.connectOnce(to: listeners.tcpPort))
                _ = listeners.received()  // accept and close, so that the backlog never fills
            }
            finished.signal()
        }
        connector.start()
        for swap in 0..<4_000 {
            Airgap.allowedHosts = swap % 2 == 0 ? Loopback.hosts.union(["*.example.com"]) : Loopback.hosts
        }
        counts.stop()
        finished.wait()
        #expect(counts.attempts > 0)
        #expect(counts.failures == 0, "\(counts.failures) of \(counts.attempts) loopback connections were blocked while the allow list changed")
    }

    /// Connects a TCP socket to 127.0.0.1:`port` and closes it; whether the connection was made.
    private static func connectOnce(to port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    @Test func deactivateAndActivateToggleIsActive() {
        #expect(Airgap.isActive)
        Airgap.deactivate()
        #expect(!Airgap.isActive)
        Airgap.activate()
        #expect(Airgap.isActive)
    }

    @Test func withConfigurationRestoresEverythingEvenWhenTheBodyThrows() {
        struct Failure: Error {}
        // Off, because the body allows only "only.test": see allowedHostPatterns.
        Airgap.deactivate()
        Airgap.errorCode = -1001
        Airgap.responseDelay = 0.25
        let before = Airgap.allowedHosts
        #expect(throws: Failure.self) {
            try Airgap.withConfiguration(mode: .warn, allowedHosts: ["only.test"], errorCode: -1009, responseDelay: 2) {
                #expect(Airgap.mode == .warn)
                // Inside a scope it replaces what the scope adds to the process-wide hosts.
                #expect(Airgap.allowedHosts == Airgap.state.withLock { $0.allowedHosts }.union(["only.test"]))
                #expect(Airgap.errorCode == -1009)
                #expect(Airgap.responseDelay == 2)
                throw Failure()
            }
        }
        #expect(Airgap.mode == .fail)
        #expect(Airgap.allowedHosts == before)
        #expect(Airgap.errorCode == -1001)
        #expect(Airgap.responseDelay == 0.25)
    }

    @Test func withConfigurationChangesOnlyWhatIsPassed() {
        Airgap.errorCode = -1001
        let result = Airgap.withConfiguration(mode: .warn) { Airgap.errorCode }
        #expect(result == -1001)
    }

    @Test func nestedScopedAddsHostsAndRestoresThem() async {
        let outer = Airgap.allowedHosts
        await Airgap.scoped(mode: .warn, allowedHosts: ["extra.test"]) {
            #expect(Airgap.isActive)
            #expect(Airgap.mode == .warn)
            #expect(Airgap.allowedHosts == outer.union(["extra.test"]))
        }
        #expect(Airgap.allowedHosts == outer)
        #expect(Airgap.mode == .fail)
        #expect(Airgap.isActive)
    }

    @Test func violationSummaryCountsViolationsAndTests() async {
        #expect(Airgap.violationSummary() == nil)
        await Airgap.scoped(mode: .warn) {
            _ = await Client.fetch(Client.session(.ephemeral), "http://airgap-summary-1.invalid/")
            _ = await Client.fetch(Client.session(.ephemeral), "http://airgap-summary-2.invalid/")
            #expect(Airgap.violationSummary() == "Airgap: 2 violation(s) detected across 1 test(s)")
        }
        Airgap.clearViolations()
        #expect(Airgap.violations.isEmpty)
    }
}

/// What the connecting thread of `changingAllowedHostsNeverBlocksAConnectionBothListsAllow` saw.
private final class ConnectCounts: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `lock`.
    private let lock = NSLock()
    private var stopped = false
    private var made = 0
    private var blocked = 0

    var isStopped: Bool { lock.withLock { stopped } }
    var attempts: Int { lock.withLock { made + blocked } }
    var failures: Int { lock.withLock { blocked } }

    func stop() { lock.withLock { stopped = true } }

    func record(succeeded: Bool) {
        lock.withLock {
            if succeeded { made += 1 } else { blocked += 1 }
        }
    }
}
