import CAirgap
import Foundation

/// The Swift side of the C socket layer: installs the callbacks it calls for name decisions
/// and violations.
enum SocketGuard {
    private static let installation: Void = {
        airgap_set_callbacks(
            { name in
                guard let name else { return 0 }
                return SocketGuard.allowsName(String(cString: name)) ? 1 : 0
            },
            { event, host, port, socketType, _ in
                let host = host.map { String(cString: $0) } ?? "?"
                let (stack, location) = CallStack.captureWithUserFrame()
                let violation = SocketGuard.violation(
                    event: event, host: host, port: Int(port), socketType: socketType,
                    testName: Airgap.attributedTestName(), callStack: stack
                )
                Airgap.record(violation, message: violation.message, location: location)
            }
        )
    }()

    /// Installs the callbacks (once).
    static func install() {
        _ = installation
    }

    static func allowsName(_ name: String) -> Bool {
        Airgap.state.withLock { $0.hostRules.allowsName(name) }
    }

    /// The violation for one event of the C layer (of this process or of a child's log line).
    static func violation(event: Int32, host: String, port: Int, socketType: Int32, testName: String, callStack: [String]) -> Violation {
        switch event {
        case Int32(AIRGAP_EVENT_CONNECT.rawValue):
            let scheme = socketType == Int32(SOCK_DGRAM.rawValue) ? "udp" : "tcp"
            let authority = host.contains(":") ? "[\(host)]" : host
            return Violation(
                testName: testName, httpMethod: "CONNECT", url: "\(scheme)://\(authority):\(port)",
                callStack: callStack, host: host, port: port, kind: .connect, wasBlocked: true
            )
        case Int32(AIRGAP_EVENT_REVERSE.rawValue):
            return Violation(
                testName: testName, httpMethod: "RESOLVE", url: "dns-ptr://\(host)",
                callStack: callStack, host: host, port: port == 0 ? nil : port, kind: .resolve, wasBlocked: true
            )
        case Int32(AIRGAP_EVENT_SOCKET.rawValue):
            return Violation(
                testName: testName, httpMethod: "SOCKET", url: "raw://\(host)",
                callStack: callStack, host: nil, port: nil, kind: .connect, wasBlocked: true
            )
        default:
            return Violation(
                testName: testName, httpMethod: "RESOLVE", url: port == 0 ? "dns://\(host)" : "dns://\(host):\(port)",
                callStack: callStack, host: host, port: port == 0 ? nil : port, kind: .resolve, wasBlocked: true
            )
        }
    }
}
