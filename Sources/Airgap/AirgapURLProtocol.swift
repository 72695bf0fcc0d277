import AirlockBase
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession layer of Airgap: a `URLProtocol` that answers blocked requests with
/// ``Airgap/errorCode``.
///
/// Airgap registers it with `URLProtocol.registerClass` ahead of the built-in HTTP protocol, which
/// reaches `URLSession.shared` (also when it or other sessions were used before
/// ``Airgap/activate()``): on Linux when the library loads, elsewhere at the first activation. It
/// stays registered. On
/// Linux a session made from `.default` or `.ephemeral` never asks registered classes, so put
/// the guard into such configurations with ``Airgap/protect(_:)``; the socket layer catches
/// them anyway, but only this layer sees the method, URL and `Content-Type`.
///
/// While the guard is active it accepts (and blocks) every `http`, `https`, `ws` and `wss`
/// request except those to ``Airgap/allowedHosts``, those a ``Airgap/passthroughProtocols``
/// class accepts, and all requests after ``Airgap/allowNetworkAccess()``. For those it declines
/// `canInit(with:)` and the next protocol (normally the built-in HTTP one) handles them.
/// Inactive, it declines everything.
public final class AirgapURLProtocol: URLProtocol {

    private static let guardedSchemes: Set<String> = ["http", "https", "ws", "wss"]

    private let isStopped = Locked(false)

    /// Whether the guard intercepts requests: the same as ``Airgap/isActive``.
    ///
    /// Public, and read-only outside Airgap, as in swift-airgap (whose setters are internal too),
    /// so that code written against it compiles. Prefer ``Airgap/isActive``.
    public static var isActive: Bool {
        Airgap.isActive
    }

    /// Whether ``Airgap/allowNetworkAccess()`` lets every request through until the next
    /// ``Airgap/activate()``.
    ///
    /// Public and read-only, as in swift-airgap, for code written against it.
    public static var isAllowed: Bool {
        Airgap.state.withLock { $0.isAllowed }
    }

    /// The test that violations are attributed to now (`""` when none is known), as in
    /// swift-airgap; read-only.
    public static var currentTestName: String {
        let name = Airgap.attributedTestName()
        return name == "<unknown test>" ? "" : name
    }

    /// Whether the guard intercepts `request`. Runs on the process-wide URLProtocol queue, so it
    /// only reads a snapshot of the state and matches hosts.
    override public class func canInit(with request: URLRequest) -> Bool {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), guardedSchemes.contains(scheme) else {
            return false
        }
        let (blocking, rules, passthrough) = Airgap.state.withLock { state in
            (state.isActive && !state.isAllowed, state.hostRules, state.passthroughProtocols)
        }
        guard blocking else { return false }
        if let host = url.host, rules.allowsURLHost(host) { return false }
        for protocolClass in passthrough where protocolClass != AirgapURLProtocol.self {
            if protocolClass.canInit(with: request) { return false }
        }
        return true
    }

    /// Returns `request` unchanged.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Records the violation, then fails the request, off the URLProtocol queue: the violation is
    /// in ``Airgap/violations`` and reported (reporter, handler, scope) before the client hears
    /// of the failure.
    override public func startLoading() {
        let request = self.request
        let testName = Airgap.attributedTestName()
        let (code, delay) = Airgap.state.withLock { ($0.errorCode, $0.responseDelay) }
        #if canImport(Darwin) && canImport(ObjectiveC)
        // Where the user's code resumed the task, when it was seen (unbuilt and unverified).
        let stack = ViolationStack(captured: DarwinInjection.takeResumeStack(for: request.url) ?? CallStack.capture())
        #else
        let stack = ViolationStack(captured: CallStack.capture())
        #endif
        let box = ProtocolBox(instance: self)
        // Off the process-wide URLProtocol queue: a handler or reporter that is slow, or that
        // starts another request, must not stall (or deadlock) every session of the process.
        DispatchQueue.global().async {
            let url = request.url?.absoluteString ?? "<no URL>"
            let violation = Violation(
                testName: testName,
                httpMethod: request.httpMethod ?? "GET",
                url: url,
                stack: stack,
                contentType: request.value(forHTTPHeaderField: "Content-Type"),
                host: request.url?.host,
                port: request.url?.port,
                kind: .request
            )
            Airgap.record(violation)
            let error = URLError(
                URLError.Code(rawValue: code) ?? .notConnectedToInternet,
                userInfo: [
                    NSLocalizedDescriptionKey: "Airgap blocked \(violation.httpMethod) \(url): tests must not make real network calls.",
                    NSURLErrorFailingURLErrorKey: request.url as Any,
                ]
            )
            if delay > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { box.instance.fail(with: error) }
            } else {
                box.instance.fail(with: error)
            }
        }
    }

    /// Cancels a failure that has not been delivered yet.
    override public func stopLoading() {
        isStopped.withLock { $0 = true }
    }

    private func fail(with error: URLError) {
        guard !isStopped.withLock({ $0 }) else { return }
        client?.urlProtocol(self, didFailWithError: error)
    }
}

/// Carries the protocol instance to the queue that delivers its failure.
private struct ProtocolBox: @unchecked Sendable {
    // @unchecked Sendable: the instance's own state is behind a Locked (pthread mutex), and its client is only
    // used once, to deliver the failure, which URLSession accepts from any thread.
    let instance: AirgapURLProtocol
}
