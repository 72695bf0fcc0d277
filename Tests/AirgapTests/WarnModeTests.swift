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

/// Warn mode lets the socket layer's calls proceed and reports known issues instead of failures.
struct WarnModeTests {
    @Test(.airgapped(mode: .warn, allowedHosts: Loopback.hosts))
    func warnModeLetsTheConnectionProceedAndRecordsTheViolation() async throws {
        try await HelloServer.with { server in
            #expect(Airgap.mode == .warn)
            #expect(await Client.fetch(Client.session(.ephemeral), server.url()) == .status(200))
            #expect(await Client.nioConnect(host: "127.0.0.2", port: server.port) == .connected)
            let violations = Airgap.violations
            #expect(violations.count == 2)
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
        let session = URLSession(configuration: Airgap.protect(.ephemeral))
        #expect(await Client.fetch(session, "http://airgap-warn.invalid/") == .urlError(URLError.Code.timedOut.rawValue))
        #expect(Airgap.violations.map(\.url) == ["http://airgap-warn.invalid/"])
    }

    @Test(.airgapped(allowedHosts: Loopback.hosts))
    func responseDelayPostponesTheErrorWithoutBlockingOtherRequests() async throws {
        Airgap.responseDelay = 0.5
        let session = URLSession(configuration: Airgap.protect(.ephemeral))
        try await HelloServer.with(host: "127.0.0.1") { server in
            let start = Date()
            async let delayed = Client.fetch(session, "http://airgap-delay.invalid/")
            // An allowed request on the same protocol queue completes while the other waits.
            #expect(await Client.fetch(session, server.url()) == .status(200))
            #expect(await delayed == .urlError(URLError.Code.notConnectedToInternet.rawValue))
            #expect(Date().timeIntervalSince(start) >= 0.4)
            Airgap.clearViolations()
        }
    }
}

/// Each violation is attributed to the test that caused it, while tests run in parallel: the
/// trait serialises the scopes and names the test.
@Suite(.airgapped(mode: .warn, allowedHosts: Loopback.hosts))
struct AttributionTests {
    private func violate() async throws -> [Violation] {
        let reported = ReportedViolations()
        Airgap.violationReporter = { reported.append($0) }
        try await HelloServer.with { server in
            _ = await Client.nioConnect(host: "127.0.0.2", port: server.port)
            _ = await Client.fetch(Client.session(.ephemeral), "http://airgap-attribution.invalid/")
        }
        #expect(reported.all == Airgap.violations)
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
