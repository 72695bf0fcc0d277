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
/// While the guard is active (or an `.airgapped` scope is open) it accepts (and blocks) every
/// `http`, `https`, `ws` and `wss` request except those to ``Airgap/allowedHosts``, those a
/// ``Airgap/passthroughProtocols`` class accepts, and all requests after
/// ``Airgap/allowNetworkAccess()``. For those it declines `canInit(with:)` and the next protocol
/// (normally the built-in HTTP one) handles them. Inactive, it declines everything. It decides in
/// `canInit(with:)`, which runs on the thread that resumed the task: inside a scope, with that
/// scope's rules, and the violation is that scope's test's.
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
    /// ``Airgap/activate()`` (inside a scope, the scope's).
    ///
    /// Public and read-only, as in swift-airgap, for code written against it.
    public static var isAllowed: Bool {
        if let scope = GuardScope.innermostOpen { return scope.overrides.withLock { $0.isAllowed } }
        return Airgap.state.withLock { $0.isAllowed }
    }

    /// The test that violations are attributed to now (`""` when none is known), as in
    /// swift-airgap; read-only.
    public static var currentTestName: String {
        let name = Airgap.attributedTestName()
        return name == "<unknown test>" ? "" : name
    }

    /// Whether the guard intercepts `request`, decided where the request starts: this runs on the
    /// thread that resumed the task, inside the caller's task, so the caller's scope (its rules,
    /// its test) decides. A blocked request is recorded here, once, cheaply (the stack's return
    /// addresses); ``startLoading()`` only reports it and fails the request. It runs under the
    /// process-wide URLProtocol queue, so it only reads state, matches hosts and stores.
    override public class func canInit(with request: URLRequest) -> Bool {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), guardedSchemes.contains(scheme) else {
            return false
        }
        let host = url.host
        let processRules = Airgap.state.withLock { $0.hostRules }
        let verdict = Airgap.verdict(processAllows: host.map { processRules.allowsURLHost($0) } ?? false) { scope in
            host.map { name in scope.chainAllows { $0.allowsURLHost(name) } } ?? false
        }
        guard case .block(let delivery) = verdict else { return false }
        for protocolClass in Airgap.passthroughProtocols where protocolClass != AirgapURLProtocol.self {
            if protocolClass.canInit(with: request) { return false }
        }
        #if canImport(Darwin) && canImport(ObjectiveC)
        // Where the user's code resumed the task, when it was seen (unbuilt and unverified).
        let stack = ViolationStack(captured: DarwinInjection.takeResumeStack(for: request.url) ?? CallStack.capture())
        #else
        let stack = ViolationStack(captured: CallStack.capture())
        #endif
        let violation = Self.violation(for: request, testName: Airgap.attributedTestName(), stack: stack)
        let notice = Airgap.store(violation, delivery: delivery)
        BlockedRequests.add(
            BlockedRequest(key: BlockedRequests.key(request), violation: violation, notice: notice, errorCode: Airgap.errorCode, responseDelay: Airgap.responseDelay)
        )
        return true
    }

    /// Returns `request` unchanged.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Reports the violation recorded when the request started (reporters, handler), then fails
    /// the request, off the URLProtocol queue: the violation is in ``Airgap/violations`` and
    /// reported before the client hears of the failure.
    override public func startLoading() {
        let request = self.request
        let blocked = BlockedRequests.take(BlockedRequests.key(request)) ?? {
            // Not seen by canInit(with:) (a class asked directly): recorded now, for the threads
            // no test owns.
            let violation = Self.violation(for: request, testName: Airgap.attributedTestName(), stack: ViolationStack(captured: CallStack.capture()))
            let (code, delay) = Airgap.state.withLock { ($0.errorCode, $0.responseDelay) }
            return BlockedRequest(
                key: BlockedRequests.key(request), violation: violation,
                notice: Airgap.store(violation, delivery: ViolationPipeline.unownedDelivery()), errorCode: code, responseDelay: delay
            )
        }()
        let box = ProtocolBox(instance: self)
        // Off the process-wide URLProtocol queue: a handler or reporter that is slow, or that
        // starts another request, must not stall (or deadlock) every session of the process.
        DispatchQueue.global().async {
            blocked.notice.run()
            let violation = blocked.violation
            let error = URLError(
                URLError.Code(rawValue: blocked.errorCode) ?? .notConnectedToInternet,
                userInfo: [
                    NSLocalizedDescriptionKey: "Airgap blocked \(violation.httpMethod) \(violation.url): tests must not make real network calls.",
                    NSURLErrorFailingURLErrorKey: request.url as Any,
                ]
            )
            if blocked.responseDelay > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + blocked.responseDelay) { box.instance.fail(with: error) }
            } else {
                box.instance.fail(with: error)
            }
        }
    }

    /// The violation for a blocked request.
    private static func violation(for request: URLRequest, testName: String, stack: ViolationStack) -> Violation {
        Violation(
            testName: testName,
            httpMethod: request.httpMethod ?? "GET",
            url: request.url?.absoluteString ?? "<no URL>",
            stack: stack,
            contentType: request.value(forHTTPHeaderField: "Content-Type"),
            host: request.url?.host,
            port: request.url?.port,
            kind: .request
        )
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

/// A request ``AirgapURLProtocol/canInit(with:)`` blocked and recorded, waiting for its
/// `startLoading()` to report it and fail it with the settings of the scope it started in.
struct BlockedRequest: Sendable {
    let key: String
    let violation: Violation
    let notice: ViolationNotice
    let errorCode: Int
    let responseDelay: TimeInterval
}

/// The requests blocked in `canInit(with:)` whose `startLoading()` has not run yet, oldest first.
///
/// URLSession hands the protocol instance a copy of the request, so the two meet by method and
/// URL. Two identical requests in flight at once may swap what their `startLoading()` delivers
/// (the error code, the reporter's call); each violation was already attributed in `canInit`.
enum BlockedRequests {
    /// At most this many wait (a request cancelled before it started never takes its entry).
    static let capacity = 512

    private static let waiting = Locked<[BlockedRequest]>([])

    static func key(_ request: URLRequest) -> String {
        "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")"
    }

    static func add(_ request: BlockedRequest) {
        waiting.withLock { waiting in
            if waiting.count >= capacity { waiting.removeFirst(waiting.count - capacity + 1) }
            waiting.append(request)
        }
    }

    static func take(_ key: String) -> BlockedRequest? {
        waiting.withLock { waiting in
            guard let index = waiting.firstIndex(where: { $0.key == key }) else { return nil }
            return waiting.remove(at: index)
        }
    }
}
