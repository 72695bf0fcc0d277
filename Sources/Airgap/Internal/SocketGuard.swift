import CAirgap
import Foundation

#if canImport(Glibc)
import Glibc
#endif

#if os(Linux) && !AIRGAP_NO_SOCKET_LAYER
/// The Swift side of the C socket layer: installs the callback it asks about each call that the
/// process-wide rules deny.
enum SocketGuard {
    private static let installation: Void = {
        airgap_set_violation_callback { event, host, port, socketType, socketProtocol in
            // Runs on the calling thread before the call proceeds or fails. The scope of the
            // calling task (if any) decides; a violation is reported here, capturing only what is
            // cheap (the stack's return addresses); the stack is symbolicated when someone reads it.
            let host = host.map { String(cString: $0) } ?? "?"
            let verdict = Airgap.verdict(processAllows: false) { scope in
                scope.chainAllows { SocketGuard.rules($0, allow: event, host: host) }
            }
            guard case .block(let delivery) = verdict else { return 1 }
            let stack = ViolationStack(captured: CallStack.capture())
            let violation = SocketGuard.violation(
                event: event, host: host, port: Int(port), socketType: socketType, protocol: socketProtocol,
                testName: Airgap.attributedTestName(), stack: stack
            )
            Airgap.record(violation, delivery: delivery)
            return 0
        }
    }()

    /// Whether `rules` allow what an event of the C layer reached for: a name for a lookup, an
    /// address for a connection or a reverse lookup; never a raw socket.
    static func rules(_ rules: HostRules, allow event: Int32, host: String) -> Bool {
        switch event {
        case Int32(AIRGAP_EVENT_CONNECT.rawValue), Int32(AIRGAP_EVENT_REVERSE.rawValue):
            return rules.allowsAddress(host)
        case Int32(AIRGAP_EVENT_SOCKET.rawValue):
            return false
        default:
            return rules.allowsName(host)
        }
    }

    /// Installs the callback (once), and reads what capturing a stack needs.
    static func install() {
        _ = installation
        CallStack.prepare()
        Airgap.installRefusedRequestReporting()
    }

    /// The violation for one event of the C layer (of this process or of a child's log line).
    static func violation(
        event: Int32, host: String, port: Int, socketType: Int32, protocol socketProtocol: Int32, testName: String, stack: ViolationStack
    ) -> Violation {
        switch event {
        case Int32(AIRGAP_EVENT_CONNECT.rawValue):
            let authority = host.contains(":") ? "[\(host)]" : host
            if socketProtocol == Int32(IPPROTO_ICMP) || socketProtocol == Int32(IPPROTO_ICMPV6) {
                // A ping socket: ICMP echo has no port.
                return Violation(
                    testName: testName, httpMethod: "CONNECT", url: "icmp://\(authority)",
                    stack: stack, host: host, port: nil, kind: .connect, wasBlocked: true
                )
            }
            let scheme = socketType == Int32(SOCK_DGRAM.rawValue) ? "udp" : "tcp"
            return Violation(
                testName: testName, httpMethod: "CONNECT", url: "\(scheme)://\(authority):\(port)",
                stack: stack, host: host, port: port, kind: .connect, wasBlocked: true
            )
        case Int32(AIRGAP_EVENT_REVERSE.rawValue):
            return Violation(
                testName: testName, httpMethod: "RESOLVE", url: "dns-ptr://\(host)",
                stack: stack, host: host, port: port == 0 ? nil : port, kind: .resolve, wasBlocked: true
            )
        case Int32(AIRGAP_EVENT_SOCKET.rawValue):
            return Violation(
                testName: testName, httpMethod: "SOCKET", url: "raw://\(host)",
                stack: stack, host: nil, port: nil, kind: .connect, wasBlocked: true
            )
        default:
            return Violation(
                testName: testName, httpMethod: "RESOLVE", url: port == 0 ? "dns://\(host)" : "dns://\(host):\(port)",
                stack: stack, host: host, port: port == 0 ? nil : port, kind: .resolve, wasBlocked: true
            )
        }
    }
}
#else
/// Without a socket layer (not Linux, or built with `AIRGAP_NO_SOCKET_LAYER`) there is no hook
/// to call back: the URLSession layer is the whole guard.
enum SocketGuard {
    /// Nothing to install.
    static func install() {
        CallStack.prepare()
        Airgap.installRefusedRequestReporting()
    }
}
#endif
