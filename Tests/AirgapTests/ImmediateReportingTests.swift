@testable import Airgap
import AirlockBase
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every route reports a violation before the blocked call returns to its caller: right after a
/// request returns, the reporter has seen it, `Airgap.violations` lists it and the scope holds
/// it (or, outside a scope, the handler has run). Nothing here waits or sleeps: each count is
/// read once, as soon as the request returned, so a report that came later fails the test.
@Suite(.aloneAmongGuardedTests)
struct ImmediateReportingTests {
    /// What had been reported for one host when the request returned.
    struct Reports: Sendable {
        /// Violations the ``Airgap/violationReporter`` was called with.
        var reported: [String] = []
        /// ``Airgap/violations``.
        var listed: [String] = []
        /// The violations the scope will record as issues when it ends.
        var scoped: [String] = []
    }

    /// Runs `request` in a warn-mode scope whose reporter collects every violation, and returns
    /// its result with what had been reported for URLs containing `marker` the moment it returned.
    private func reportsRightAfter<T: Sendable>(
        _ marker: String,
        _ request: () async -> T
    ) async -> (result: T?, reports: Reports) {
        var result: T?
        var reports = Reports()
        await Airgap.scoped(mode: .warn, allowedHosts: Loopback.hosts) {
            let seen = Locked<[String]>([])
            // The scope restores the reporter when it ends.
            Airgap.violationReporter = { violation in seen.withLock { $0.append(violation.url) } }
            result = await request()
            // Read at once, before anything else can happen.
            reports.reported = seen.withLock { $0 }.filter { $0.contains(marker) }
            reports.listed = Airgap.violations.map(\.url).filter { $0.contains(marker) }
            reports.scoped = (GuardScope.innermostOpen?.sink.violations ?? []).map(\.url).filter { $0.contains(marker) }
        }
        return (result, reports)
    }

    // MARK: The URLSession layer (the guard protocol)

    @Test func theSharedSessionReportsBeforeTheRequestReturns() async {
        let host = "airgap-immediate-shared.invalid"
        let (outcome, reports) = await reportsRightAfter(host) {
            await Client.fetch(URLSession.shared, "http://\(host)/x")
        }
        #expect(outcome == .urlError(URLError.Code.notConnectedToInternet.rawValue), "URLSession.shared asks \((URLSession.shared.configuration.protocolClasses ?? []).map { "\($0)" })")
        #expect(reports.reported == ["http://\(host)/x"])
        #expect(reports.listed == ["http://\(host)/x"])
        #expect(reports.scoped == ["http://\(host)/x"])
    }

    @Test func aProtectedSessionReportsBeforeTheRequestReturns() async {
        let host = "airgap-immediate-protected.invalid"
        let session = URLSession(configuration: Airgap.protect(Client.configured(.ephemeral)))
        let (outcome, reports) = await reportsRightAfter(host) {
            await Client.fetch(session, "https://\(host)/y")
        }
        #expect(outcome == .urlError(URLError.Code.notConnectedToInternet.rawValue))
        #expect(reports.reported == ["https://\(host)/y"])
        #expect(reports.listed == ["https://\(host)/y"])
        #expect(reports.scoped == ["https://\(host)/y"])
    }

    // MARK: The socket layer

    #if os(Linux) && !AIRGAP_NO_SOCKET_LAYER
    /// The original project's "custom session with default config is blocked" (and its
    /// ephemeral twin): on Linux only the socket layer sees these sessions.
    @Test(arguments: ["default", "ephemeral"])
    func aConfigurationSessionReportsBeforeTheRequestReturns(kind: String) async {
        let host = "airgap-immediate-\(kind).invalid"
        let (outcome, reports) = await reportsRightAfter(host) {
            await Client.fetch(URLSession(configuration: kind == "default" ? .default : .ephemeral), "http://\(host)/z")
        }
        #expect(outcome == .urlError(URLError.Code.cannotFindHost.rawValue))
        #expect(reports.reported == ["dns://\(host):80"])
        #expect(reports.listed == ["dns://\(host):80"])
        #expect(reports.scoped == ["dns://\(host):80"])
    }

    @Test func aSwiftNIOConnectReportsBeforeItFails() async throws {
        try await HelloServer.with { server in
            let target = "127.0.0.2:\(server.port)"
            let (outcome, reports) = await reportsRightAfter(target) {
                await Client.nioConnect(host: "127.0.0.2", port: server.port)
            }
            #expect(outcome != .connected)
            #expect(reports.reported == ["tcp://\(target)"])
            #expect(reports.listed == ["tcp://\(target)"])
            #expect(reports.scoped == ["tcp://\(target)"])
        }
    }

    @Test func aSwiftNIOLookupReportsBeforeItFails() async {
        let host = "airgap-immediate-nio.invalid"
        let (outcome, reports) = await reportsRightAfter(host) {
            await Client.nioConnect(host: host, port: 443)
        }
        #expect(outcome != .connected)
        #expect(reports.reported == ["dns://\(host):443"])
        #expect(reports.listed == ["dns://\(host):443"])
    }

    /// Outside any scope the handler reports: it too has run when the request returns. The suite
    /// runs alone among guarded tests, so no scope is open while it activates the guard.
    @Test func theHandlerRunsBeforeTheRequestReturnsOutsideAScope() async {
        let saved = Settings.current()
        let host = "airgap-immediate-handler.invalid"
        let messages = Locked<[String]>([])
        Airgap.mode = .warn
        Airgap.allowedHosts = Loopback.hosts
        Airgap.violationHandler = { message in messages.withLock { $0.append(message) } }
        Airgap.activate()
        let outcome = await Client.fetch(URLSession(configuration: .default), "http://\(host)/h")
        let handled = messages.withLock { $0 }.filter { $0.contains(host) }
        let listed = Airgap.violations.map(\.url).filter { $0.contains(host) }
        Airgap.deactivate()
        saved.restore()
        Airgap.clearViolations()
        #expect(outcome == .urlError(URLError.Code.cannotFindHost.rawValue))
        #expect(handled.count == 1, "\(handled)")
        #expect(handled.first?.hasPrefix("Airgap: Blocked host name lookup of \(host)") == true, "\(handled)")
        #expect(listed == ["dns://\(host):80"])
    }
    #endif
}
