import AirlockBase
import AirlockCore
import Airgap
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects what `violationReporter` receives.
final class ReportedViolations: Sendable {
    private let storage = Locked<[Violation]>([])
    func append(_ violation: Violation) { storage.withLock { $0.append(violation) } }
    var all: [Violation] { storage.withLock { $0 } }
}

/// Warn mode blocks exactly like fail mode and reports known issues instead of failures.
@Suite(.aloneAmongGuardedTests)
struct WarnModeTests {
    @Test(.airgapped(mode: .warn, allowedHosts: Loopback.hosts))
    func warnModeBlocksTheConnectionAndRecordsTheViolationWithoutFailing() async throws {
        // The server listens on 127.0.0.2, which is not allowed: neither client reaches it, and
        // the test passes (the violations are known issues).
        try await HelloServer.with { server in
            #expect(Airgap.mode == .warn)
            let fetched = await Client.fetch(Client.session(.ephemeral), server.url())
            #expect(fetched == .urlError(URLError.Code.cannotConnectToHost.rawValue), "\(fetched)")
            let connected = await Client.nioConnect(host: "127.0.0.2", port: server.port)
            #expect(connected != .connected, "\(connected)")
            let violations = Airgap.violations
            #expect(violations.count == 2)
            #expect(violations.allSatisfy { $0.wasBlocked })
            #expect(Set(violations.map(\.url)) == ["tcp://127.0.0.2:\(server.port)"])
        }
    }

    @Test func failModeBlocksWhatWarnModeLetsThrough() async throws {
        try await HelloServer.with { server in
            var outcome: Outcome?
            await withKnownIssue {
                await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts) {
                    outcome = await Client.nioConnect(host: "127.0.0.2", port: server.port)
                }
            } matching: { $0.comments.contains { $0.rawValue.contains("tcp://127.0.0.2:\(server.port)") } }
            #expect(outcome != .connected)
        }
    }

    @Test(.airgapped(mode: .warn, allowedHosts: Loopback.hosts))
    func theURLLayerStillAnswersWithTheErrorCodeInWarnMode() async {
        Airgap.errorCode = URLError.Code.timedOut.rawValue
        let session = URLSession(configuration: Airgap.protect(Client.configured(.ephemeral)))
        #expect(await Client.fetch(session, "http://airgap-warn.invalid/") == .urlError(URLError.Code.timedOut.rawValue))
        #expect(Airgap.violations.map(\.url) == ["http://airgap-warn.invalid/"])
    }

    @Test(.airgapped(allowedHosts: Loopback.hosts))
    func responseDelayPostponesTheErrorWithoutBlockingOtherRequests() async throws {
        let session = URLSession(configuration: Airgap.protect(Client.configured(.ephemeral)))
        // Postpones: the error arrives no sooner than the delay (a lower bound only).
        Airgap.responseDelay = 0.5
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await Client.fetch(session, "http://airgap-delay.invalid/") == .urlError(URLError.Code.notConnectedToInternet.rawValue))
        #expect(clock.now - start >= .milliseconds(450))
        // Without blocking: with the error due long after the test ends, an allowed request on
        // the same protocol queue completes meanwhile (a delay that slept on the queue would hold
        // it up until its hang guard failed it), and the waiting request ends only when cancelled.
        Airgap.responseDelay = 600
        try await HelloServer.with(host: "127.0.0.1") { server in
            let pending = Task { await Client.fetch(session, "http://airgap-delay-far.invalid/") }
            defer { pending.cancel() }
            // The blocked request is recorded before its failure is scheduled.
            try await waitUntil("the blocked request being recorded") { Airgap.violations.count == 2 }
            #expect(await Client.fetch(session, server.url()) == .status(200))
            pending.cancel()
            #expect(await pending.value == .urlError(URLError.Code.cancelled.rawValue))
        }
        #expect(Airgap.violations.map(\.url) == ["http://airgap-delay.invalid/", "http://airgap-delay-far.invalid/"])
        Airgap.clearViolations()
    }
}

/// Each violation is attributed to the test that caused it: the trait's scope names the test.
/// Its violations happen on threads no test owns (an event loop, libcurl's), which every open
/// scope records, so the suite runs alone among guarded tests (ParallelScopeTests covers tests
/// running side by side).
@Suite(.aloneAmongGuardedTests, .airgapped(mode: .warn, allowedHosts: Loopback.hosts))
struct AttributionTests {
    private func violate() async throws -> [Violation] {
        let reported = ReportedViolations()
        Airgap.violationReporter = { reported.append($0) }
        try await HelloServer.with { server in
            _ = await Client.nioConnect(host: "127.0.0.2", port: server.port)
            _ = await Client.fetch(Client.session(.ephemeral), "http://airgap-attribution.invalid/")
        }
        // Reading the violations waits for those still being symbolicated; the reporter has seen
        // each by then.
        let violations = Airgap.violations
        #expect(reported.all == violations)
        return reported.all
    }

    @Test func first() async throws {
        let violations = try await violate()
        #expect(violations.count == 2)
        #expect(violations.allSatisfy { $0.testName == "AttributionTests/first()" })
    }

    @Test func second() async throws {
        let violations = try await violate()
        #expect(violations.count == 2)
        #expect(violations.allSatisfy { $0.testName == "AttributionTests/second()" })
    }

    @Test func third() async throws {
        let violations = try await violate()
        #expect(violations.count == 2)
        #expect(violations.allSatisfy { $0.testName == "AttributionTests/third()" })
    }

    @Test(arguments: 1...3)
    func parameterised(index: Int) async throws {
        let violations = try await violate()
        #expect(violations.count == 2)
        #expect(violations.allSatisfy { $0.testName == "AttributionTests/parameterised(index:)" })
    }
}
