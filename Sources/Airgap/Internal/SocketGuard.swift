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
            { event, host, port, socketType, blocked in
                let host = host.map { String(cString: $0) } ?? "?"
                SocketGuard.report(event: event, host: host, port: Int(port), socketType: socketType, blocked: blocked != 0)
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

    /// Called by the hooks, on the thread that called `connect` / `getaddrinfo`, with the
    /// thread's bypass mark set so nothing here can recurse into the hooks.
    static func report(event: Int32, host: String, port: Int, socketType: Int32, blocked: Bool) {
        let violation: Violation
        if event == Int32(AIRGAP_EVENT_CONNECT.rawValue) {
            let scheme = socketType == Int32(SOCK_DGRAM.rawValue) ? "udp" : "tcp"
            let authority = host.contains(":") ? "[\(host)]" : host
            violation = Violation(
                testName: Airgap.attributedTestName(),
                httpMethod: "CONNECT",
                url: "\(scheme)://\(authority):\(port)",
                callStack: CallStack.capture(),
                host: host,
                port: port,
                kind: .connect,
                wasBlocked: blocked
            )
        } else {
            violation = Violation(
                testName: Airgap.attributedTestName(),
                httpMethod: "RESOLVE",
                url: port == 0 ? "dns://\(host)" : "dns://\(host):\(port)",
                callStack: CallStack.capture(),
                host: host,
                port: port == 0 ? nil : port,
                kind: .resolve,
                wasBlocked: blocked
            )
        }
        Airgap.record(violation, message: violation.message)
    }
}
