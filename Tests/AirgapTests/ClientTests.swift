import Airgap
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each client is caught in-process, in fail mode. Every scope allows the loopback names other
/// tests in this process use; the blocked targets are `.invalid` names (never resolved: the
/// lookup fails before the resolver runs) and a server on 127.0.0.2.
@Suite(.aloneAmongGuardedTests)
struct ClientTests {
    /// Runs `body` in a fail-mode scope and returns what it produced and the violations, with
    /// the scope's issues expected (and matched against `expected`).
    private func blocked<T: Sendable>(
        expecting expected: String,
        allowing extra: Set<String> = [],
        _ body: () async -> T
    ) async -> (T?, [Violation]) {
        var result: T?
        var violations: [Violation] = []
        await withKnownIssue {
            await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts.union(extra)) {
                result = await body()
                violations = Airgap.violations
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains(expected) }
        }
        return (result, violations)
    }

    @Test(arguments: ["default", "ephemeral"])
    func configurationSessionsAreCaughtByTheSocketLayer(kind: String) async {
        let host = "airgap-\(kind).invalid"
        let (outcome, violations) = await blocked(expecting: host) {
            await Client.fetch(Client.session(kind == "default" ? .default : .ephemeral), "http://\(host)/x")
        }
        #expect(outcome == .urlError(URLError.Code.cannotFindHost.rawValue))
        #expect(violations.map(\.httpMethod) == ["RESOLVE"])
        #expect(violations.map(\.kind) == [.resolve])
        #expect(violations.map(\.wasBlocked) == [true])
        #expect(violations.first?.host == host)
        #expect(violations.first?.url.hasPrefix("dns://\(host)") == true)
        #expect(violations.first?.testName == "ClientTests/configurationSessionsAreCaughtByTheSocketLayer(kind:)")
        #expect(violations.first?.callStack.first?.hasPrefix("getaddrinfo") == true)
    }

    @Test func dataContentsOfIsCaught() async {
        let (thrown, violations) = await blocked(expecting: "airgap-data.invalid") { () -> Bool in
            (try? Data(contentsOf: URL(string: "http://airgap-data.invalid/file")!)) == nil
        }
        #expect(thrown == true)
        #expect(violations.map(\.host) == ["airgap-data.invalid"])
    }

    @Test func protectedConfigurationGetsFullAttribution() async {
        var request = URLRequest(url: URL(string: "https://api.airgap-protect.invalid/items?id=7")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{}".utf8)
        let session = URLSession(configuration: Airgap.protect(Client.configured(.ephemeral)))
        let (outcome, violations) = await blocked(expecting: "POST request to https://api.airgap-protect.invalid/items?id=7") {
            await Client.fetch(session, request)
        }
        #expect(outcome == .urlError(URLError.Code.notConnectedToInternet.rawValue))
        #expect(violations.count == 1)
        #expect(violations.first?.httpMethod == "POST")
        #expect(violations.first?.url == "https://api.airgap-protect.invalid/items?id=7")
        #expect(violations.first?.contentType == "application/json")
    }

    @Test func swiftNIOLookupIsCaught() async {
        let (outcome, violations) = await blocked(expecting: "airgap-nio.invalid") {
            await Client.nioConnect(host: "airgap-nio.invalid", port: 443)
        }
        #expect(outcome != .connected)
        #expect(violations.map(\.url) == ["dns://airgap-nio.invalid:443"])
    }

    @Test func swiftNIOConnectToAnAddressThatIsNotAllowedIsCaught() async throws {
        try await HelloServer.with { server in
            let (outcome, violations) = await blocked(expecting: "tcp://127.0.0.2:\(server.port)") {
                await Client.nioConnect(host: "127.0.0.2", port: server.port)
            }
            #expect(outcome != .connected)
            #expect(violations.map(\.url) == ["tcp://127.0.0.2:\(server.port)"])
            #expect(violations.first?.port == server.port)
            #expect(violations.first?.callStack.first?.hasPrefix("connect") == true)
        }
    }

    @Test func aLoopbackServerIsBlockedWhenNotAllowed() async throws {
        try await HelloServer.with { server in
            let (outcome, violations) = await blocked(expecting: "tcp://127.0.0.2:\(server.port)") {
                await Client.fetch(Client.session(.ephemeral), server.url())
            }
            #expect(outcome == .urlError(URLError.Code.cannotConnectToHost.rawValue))
            #expect(violations.map(\.httpMethod) == ["CONNECT"])
        }
    }

    @Test(.airgapped(allowedHosts: ["localhost", "127.0.0.1", "::1", "127.0.0.2"]))
    func aLoopbackServerPassesWhenAllowed() async throws {
        try await HelloServer.with { server in
            #expect(await Client.fetch(Client.session(.default), server.url()) == .status(200))
            #expect(await Client.nioConnect(host: "127.0.0.2", port: server.port) == .connected)
            #expect(Airgap.violations.isEmpty)
        }
    }

    @Test(.airgapped(allowedHosts: ["localhost", "127.0.0.1", "::1", "127.0.0.0/8"]))
    func aCIDRRangeAllowsItsAddresses() async throws {
        try await HelloServer.with { server in
            #expect(await Client.fetch(Client.session(.ephemeral), server.url()) == .status(200))
            #expect(Airgap.violations.isEmpty)
        }
    }

    @Test(.airgapped(allowedHosts: ["localhost", "127.0.0.1", "::1"]))
    func theURLLayerLetsAllowedHostsThroughToTheRealProtocol() async throws {
        try await HelloServer.with(host: "127.0.0.1") { server in
            let session = URLSession(configuration: Airgap.protect(Client.configured(.ephemeral)))
            #expect(await Client.fetch(session, server.url()) == .status(200))
            #expect(Airgap.violations.isEmpty)
        }
    }

    @Test(.airgapped(allowedHosts: ["localhost", "127.0.0.1", "::1"]))
    func allowNetworkAccessLetsEverythingThroughUntilTheNextActivate() async throws {
        try await HelloServer.with { server in
            Airgap.allowNetworkAccess()
            #expect(Airgap.isActive)
            #expect(await Client.fetch(Client.session(.ephemeral), server.url()) == .status(200))
            #expect(Airgap.violations.isEmpty)
            Airgap.activate()
            let outcome = await Client.fetch(Client.session(.ephemeral), server.url())
            #expect(outcome == .urlError(URLError.Code.cannotConnectToHost.rawValue))
            #expect(Airgap.violations.map(\.url) == ["tcp://127.0.0.2:\(server.port)"])
            // Clearing inside a scope also drops what the scope would report when it ends.
            Airgap.clearViolations()
        }
    }

    @Test(.airgapped(allowedHosts: ["localhost", "127.0.0.1", "::1"]))
    func withNetworkAccessAllowedRestoresTheStateEvenWhenTheBodyThrows() async throws {
        struct Failure: Error {}
        try await HelloServer.with { server in
            await #expect(throws: Failure.self) {
                try await Airgap.withNetworkAccessAllowed {
                    #expect(await Client.fetch(Client.session(.ephemeral), server.url()) == .status(200))
                    throw Failure()
                }
            }
            #expect(throws: Failure.self) {
                try Airgap.withNetworkAccessAllowed { throw Failure() }
            }
            #expect(Airgap.violations.isEmpty)
            // Blocked again: a connect now is a violation (allowed again below to keep it quiet).
            let outcome = await Client.nioConnect(host: "127.0.0.2", port: server.port)
            #expect(outcome != .connected)
            #expect(Airgap.violations.count == 1)
            Airgap.clearViolations()
        }
    }
}
