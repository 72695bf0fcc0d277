import AirlockBase
import Foundation

extension Airgap {
    /// Has Airlock's core tell the guard of each request it refused to send on its own (a webhook
    /// to a host its policy does not allow): reported as the violation it is, although no socket
    /// was opened. Installed with the socket guard; idempotent.
    static func installRefusedRequestReporting() {
        RefusedRequests.observe { method, url in Airgap.reportRefused(method: method, url: url) }
    }

    /// Records a refused request as a blocked `request` violation when the guard would have
    /// blocked it (the host is not allowed, the guard is on for this test or thread); the
    /// reporters and the handler run off the calling thread (a transport's).
    static func reportRefused(method: String, url: String) {
        let components = URLComponents(string: url)
        let host = components?.host
        let processRules = state.withLock { $0.hostRules }
        let verdict = verdict(processAllows: host.map { processRules.allowsURLHost($0) } ?? false) { scope in
            host.map { name in scope.chainAllows { $0.allowsURLHost(name) } } ?? false
        }
        guard case .block(let delivery) = verdict else { return }
        let violation = Violation(
            testName: attributedTestName(), httpMethod: method, url: url, stack: ViolationStack(captured: CallStack.capture()),
            host: host, port: components?.port, kind: .request
        )
        let notice = store(violation, delivery: delivery)
        DispatchQueue.global().async { notice.run() }
    }
}
