@testable import Airgap
import AirlockBase
import AirlockCore
import Foundation
import HTTPMock
import Testing

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `.airgapped` scopes run in parallel: each decides with its own rules and records only its own
/// test's violations. Every case waits at a ``Rendezvous`` until all of them are inside their
/// scopes, so the scopes provably overlap while the requests are made.
@Suite(.besideOtherGuardedTests)
struct ParallelScopeTests {
    static let cases = 4

    /// The loopback address only case `index` allows (Linux routes all of 127/8 to loopback).
    static func address(_ index: Int, base: Int) -> String { "127.0.0.\(base + index)" }

    static let sessionRendezvous = (entered: Rendezvous(parties: cases), done: Rendezvous(parties: cases))
    static let sessionPorts = Locked<[Int: Int]>([:])

    /// Each case allows only its own loopback server. Its request there passes (libcurl connects
    /// on a thread no test owns, which the case's open scope allows); its request to the next
    /// case's server — which that case allows — is blocked by its own rules where it starts, and is
    /// the one violation its scope records.
    @Test(.airgapped(mode: .warn), arguments: 0..<cases)
    func eachScopeDecidesAndAttributesItsOwnSharedSessionRequests(index: Int) async throws {
        let own = Self.address(index, base: 20)
        let next = (index + 1) % Self.cases
        // Loopback's usual names stay allowed, as in every guarded suite here: other suites' servers
        // on 127.0.0.1 answer their own tests while these scopes are open.
        Airgap.allowedHosts = Loopback.hosts.union([own])
        let reported = ReportedViolations()
        Airgap.violationReporter = { reported.append($0) }
        try await HelloServer.with(host: own) { server in
            Self.sessionPorts.withLock { $0[index] = server.port }
            await Self.sessionRendezvous.entered.arrive()
            let nextPort = try #require(Self.sessionPorts.withLock { $0[next] })
            let blockedURL = "http://\(Self.address(next, base: 20)):\(nextPort)/from-case-\(index)"

            #expect(await Client.fetch(URLSession.shared, server.url("/own-\(index)")) == .status(200))
            #expect(await Client.fetch(URLSession.shared, blockedURL) == .urlError(URLError.Code.notConnectedToInternet.rawValue))
            // Every scope stays open until every case has made both requests.
            await Self.sessionRendezvous.done.arrive()

            let violations = Airgap.violations
            #expect(violations.map(\.url) == [blockedURL])
            #expect(violations.map(\.testName) == ["ParallelScopeTests/eachScopeDecidesAndAttributesItsOwnSharedSessionRequests(index:)"])
            #expect(reported.all.map(\.url) == [blockedURL])
        }
    }

    static let socketRendezvous = (entered: Rendezvous(parties: 2), done: Rendezvous(parties: 2))
    static let socketListeners = Locked<[Int: LoopbackListeners]>([:])

    /// A blocking `connect()` on the test's own thread is decided by the test's scope and
    /// attributed to it, while the other case's scope (which allows that address) is open beside
    /// it. The issue is recorded in fail mode when the scope ends, and is the only one.
    @Test(arguments: 0..<2)
    func aBlockingConnectOnTheTestsThreadIsItsOwn(index: Int) async throws {
        let own = Self.address(index, base: 30)
        let other = 1 - index
        let listener = try LoopbackListeners(host: own)
        Self.socketListeners.withLock { $0[index] = listener }
        let blockedTarget = Locked("")
        let matcher: KnownIssueMatcher = { issue in
            let target = blockedTarget.withLock { $0 }
            return issue.comments.contains { $0.rawValue.contains("Blocked connection to \(target).") }
        }
        await withKnownIssue("the blocked connect of this case", isIntermittent: false, {
            await Airgap.scoped(mode: .fail, allowedHosts: Loopback.hosts.union([own])) {
                await Self.socketRendezvous.entered.arrive()
                guard let target = Self.socketListeners.withLock({ $0[other] }) else {
                    Issue.record("case \(other) published no listener")
                    return
                }
                let targetURL = "tcp://\(target.host):\(target.tcpPort)"
                blockedTarget.withLock { $0 = targetURL }
                let blocked = Self.connect(to: target.host, port: target.tcpPort)
                #expect(blocked == ECONNREFUSED, "connect to \(targetURL) returned errno \(blocked)")
                #expect(Self.connect(to: own, port: listener.tcpPort) == 0)
                await Self.socketRendezvous.done.arrive()
                let violations = Airgap.violations
                #expect(violations.map(\.url) == [targetURL])
                #expect(violations.map(\.testName) == ["ParallelScopeTests/aBlockingConnectOnTheTestsThreadIsItsOwn(index:)"])
            }
        }, matching: matcher)
        // Only this case's own connection arrived: the other case's attempt never left.
        #expect(listener.received() == ["tcp"])
    }

    /// HTTPMock's `intercepting` answers `URLSession.shared` for the current task before the
    /// guard is asked: inside it the request is mocked (no violation); outside, the same request
    /// is blocked and recorded.
    @Test(.airgapped(mode: .warn, allowedHosts: Loopback.hosts))
    func aRequestInsideInterceptingIsMockedAndOutsideIsBlocked() async throws {
        let url = "https://api.airgap-intercepting.invalid/greeting"
        let mock = HTTPMock()
        mock.addResponses(forPath: "/greeting", host: "api.airgap-intercepting.invalid", responses: [.plaintext("hello")])
        let inside = try await mock.intercepting {
            await Client.fetch(URLSession.shared, url)
        }
        #expect(inside == .status(200))
        #expect(Airgap.violations.isEmpty)

        let outside = await Client.fetch(URLSession.shared, url)
        #expect(outside == .urlError(URLError.Code.notConnectedToInternet.rawValue))
        #expect(Airgap.violations.map(\.url) == [url])
        #expect(Airgap.violations.map(\.testName) == ["ParallelScopeTests/aRequestInsideInterceptingIsMockedAndOutsideIsBlocked()"])
    }

    /// Connects a blocking TCP socket to `host:port` on the calling thread; 0 or the errno.
    static func connect(to host: String, port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0 ? 0 : errno
    }
}

/// Lets `parties` tasks go on only once all of them have arrived, so that what they do next
/// provably overlaps.
///
/// Swift Testing may run fewer cases at once than asked (a width limit, `--no-parallel`): if not
/// every party has arrived after ``fallback``, those waiting go on together, and so does every
/// later arrival; a party that finds itself alone then records an issue saying so, since nothing
/// overlapped.
final class Rendezvous: Sendable {
    /// How long the first arrival waits for the others before the fallback (not a limit on how
    /// fast anything is: nothing fails when it passes while at least two parties wait).
    static let fallback: Duration = .seconds(60)

    private struct State {
        var arrived = 0
        var present = 0
        var open = false
        var waiting: [CheckedContinuation<Int, Never>] = []
        var timerStarted = false
    }

    private let parties: Int
    private let state = Locked(State())

    init(parties: Int) {
        self.parties = parties
    }

    /// Waits for the other parties; records an issue if none was there to overlap with.
    func arrive(sourceLocation: SourceLocation = #_sourceLocation) async {
        let together = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let (release, startTimer) = state.withLock { state -> ([CheckedContinuation<Int, Never>], Bool) in
                state.arrived += 1
                state.present += 1
                if state.open {
                    return ([continuation], false)
                }
                state.waiting.append(continuation)
                if state.arrived == parties {
                    state.open = true
                    defer { state.waiting = [] }
                    return (state.waiting, false)
                }
                let start = !state.timerStarted
                state.timerStarted = true
                return ([], start)
            }
            let present = state.withLock { $0.present }
            release.forEach { $0.resume(returning: present) }
            if startTimer {
                Task {
                    try? await Task.sleep(for: Self.fallback)
                    let (late, present) = self.state.withLock { state -> ([CheckedContinuation<Int, Never>], Int) in
                        state.open = true
                        defer { state.waiting = [] }
                        return (state.waiting, state.present)
                    }
                    late.forEach { $0.resume(returning: present) }
                }
            }
        }
        if together < 2 {
            Issue.record("Only this case was inside its scope: Swift Testing ran the \(parties) cases one after another, so nothing overlapped.", sourceLocation: sourceLocation)
        }
    }
}
