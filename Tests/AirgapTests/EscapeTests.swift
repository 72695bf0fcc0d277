import Foundation
import Testing

/// One case per route by which a process can reach the network. Each runs in a fresh
/// `AirgapProbe` process (the guard is process-wide, and several routes would disturb other
/// tests), aimed at loopback listeners this test starts: a TCP listener, and a UDP socket that is
/// also the probe's DNS server for resolver routes.
///
/// Every case runs twice: without the guard, where the route must reach a listener (so the
/// guarded run proves something), and in fail mode with nothing allowed, where the listeners
/// must receive nothing and the probe must have recorded the violation.
@Suite(.aloneAmongGuardedTests)
struct EscapeTests {
    struct Route: Sendable, CustomTestStringConvertible {
        let name: String
        /// What the guarded probe must have recorded, given the TCP and UDP ports.
        let violation: @Sendable (_ tcp: Int, _ udp: Int) -> String
        /// Whether the route reaches the listeners without the guard. Some cannot: packet sockets
        /// need an interface-level frame, a ping runs in a network namespace of its own, and
        /// getaddrinfo_a resolves on a thread of glibc's own, whose resolver still asks the
        /// system's DNS server.
        var reachesListenersUnguarded = true

        var testDescription: String { name }
    }

    static let lookup = "airgap-escape.test"

    static let routes: [Route] = {
        let tcp: @Sendable (Int, Int) -> String = { port, _ in "tcp://127.0.0.1:\(port)" }
        let udp: @Sendable (Int, Int) -> String = { _, port in "udp://127.0.0.1:\(port)" }
        let name: @Sendable (Int, Int) -> String = { _, _ in "dns://\(lookup)" }
        var routes: [Route] = [
            Route(name: "connect", violation: tcp),
            Route(name: "connect-v6-24", violation: tcp),
            Route(name: "connect-v6-25", violation: tcp),
            Route(name: "connect-v6-26", violation: tcp),
            Route(name: "connect-v6-27", violation: tcp),
            Route(name: "connect-v4-mapped", violation: tcp),
            Route(name: "__connect", violation: tcp),
            Route(name: "tcp-fastopen", violation: tcp),
            Route(name: "udp-sendto", violation: udp),
            Route(name: "udp-sendmsg", violation: udp),
            Route(name: "udp-sendmmsg", violation: udp),
            Route(name: "syscall-connect", violation: tcp),
            Route(name: "syscall-sendto", violation: udp),
            Route(name: "fork-connect", violation: tcp),
            Route(name: "packet-socket", violation: { _, _ in "raw://AF_PACKET" }, reachesListenersUnguarded: false),
            // glibc's private aliases and versioned names, looked up with dlvsym.
            Route(name: "dlvsym-sendmmsg", violation: udp),
            Route(name: "dlvsym-socket", violation: { _, _ in "raw://AF_PACKET" }, reachesListenersUnguarded: false),
            Route(name: "dlvsym-connect", violation: tcp),
            Route(name: "getaddrinfo", violation: { _, _ in "dns://\(lookup):80" }),
            Route(name: "getaddrinfo_a", violation: name, reachesListenersUnguarded: false),
            Route(name: "gethostbyaddr", violation: { _, _ in "dns-ptr://192.0.2.1" }),
            Route(name: "getnameinfo", violation: { _, _ in "dns-ptr://192.0.2.1" }),
            Route(name: "res_querydomain", violation: { _, _ in "dns://airgap-escape" }),
        ]
        for resolver in ["gethostbyname", "gethostbyname_r", "gethostbyname2", "gethostbyname2_r", "res_query", "res_search",
                         "__res_query", "__res_search", "res_nquery", "res_nsearch"] {
            routes.append(Route(name: resolver, violation: name))
        }
        for sender in ["res_send", "__res_send", "res_nsend"] {
            routes.append(Route(name: sender, violation: { _, _ in "dns://\(lookup):53" }))
        }
        // Raw IP sockets need CAP_NET_RAW; without it the kernel refuses them anyway.
        if getuid() == 0 {
            routes.append(Route(name: "raw-socket", violation: { _, _ in "raw://AF_INET/SOCK_RAW" }))
            routes.append(Route(name: "sock-packet", violation: { _, _ in "raw://AF_INET/SOCK_PACKET" }, reachesListenersUnguarded: false))
            // In a network namespace of the probe's own (where ping sockets are allowed): an ICMP
            // echo is labelled as one, not as UDP to port 0.
            routes.append(Route(name: "icmp-ping", violation: { _, _ in "icmp://127.0.0.1" }, reachesListenersUnguarded: false))
        }
        return routes
    }()

    /// Short resolver time-outs: the listener never answers.
    private static let resolverOptions = ["RES_OPTIONS": "timeout:1 attempts:1"]

    @Test(arguments: routes)
    func routeIsBlockedBeforeAnythingLeaves(route: Route) async throws {
        let listeners = try LoopbackListeners()
        let target = "route=\(route.name):\(listeners.tcpPort):\(listeners.udpPort)"
        let nameserver = "nameserver=\(listeners.udpPort)"

        let control = try await Probe.run([nameserver, target], environment: Self.resolverOptions)
        if route.reachesListenersUnguarded {
            #expect(!listeners.received().isEmpty, "without the guard the route must reach a listener, or the guarded run proves nothing: \(control)")
        } else {
            _ = listeners.received()
            if ["packet-socket", "dlvsym-socket", "sock-packet", "icmp-ping"].contains(route.name), getuid() == 0 {
                #expect(control.result("route=") == "ok", "without the guard the route opens its socket: \(control)")
            }
        }

        let guarded = try await Probe.run([nameserver, "mode=fail", "activate", target, "violations"], environment: Self.resolverOptions)
        #expect(listeners.received() == [], "the guarded route reached a listener: \(guarded)")
        #expect(guarded.result("route=")?.hasPrefix("failed:") == true, "\(guarded)")
        let expected = route.violation(listeners.tcpPort, listeners.udpPort)
        let recorded = guarded.result("violations") ?? ""
        #expect(recorded.contains(" \(expected)]"), "expected \(expected) in: \(guarded)")
    }

    @Test func warnModeBlocksTheSameRoutesAndOnlyReportsDifferently() async throws {
        let listeners = try LoopbackListeners()
        let output = try await Probe.run(["mode=warn", "activate", "route=connect:\(listeners.tcpPort):\(listeners.udpPort)", "route=udp-sendto:\(listeners.tcpPort):\(listeners.udpPort)", "violations"])
        #expect(listeners.received() == [], "\(output)")
        #expect(output.lines.filter { $0.hasPrefix("route=") }.allSatisfy { $0.hasSuffix("-> failed:111") }, "\(output)")
        #expect(output.result("violations") == "2 [CONNECT tcp://127.0.0.1:\(listeners.tcpPort)] [CONNECT udp://127.0.0.1:\(listeners.udpPort)]", "\(output)")
        #expect(output.status == 0, "\(output)")
    }
}
