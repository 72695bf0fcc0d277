import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import OpenAPIRuntime
import URLProtocolSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `ClientTransport` that answers a swift-openapi-generator client from an Airlock mock, in the
/// test's process: no `URLSession`, no socket.
///
/// ```swift
/// let mock = HTTPMock()
/// mock.addResponses(forOperation: "showPetById") {
///     MockResponse.dictionary(["id": 1, "name": "Rex"])
/// }
/// let client = Client(serverURL: try Servers.Server1.url(), transport: AirlockTransport(mock: mock))
/// let pet = try await client.showPetById(path: .init(petId: "1"))
/// ```
///
/// Everything the mock does for a `URLSession` it does here, decided by the same core: stubs and
/// their lifetimes, delays, dribbled bodies (streamed to the client's `HTTPBody` piece by piece),
/// faults and errors (thrown as the `URLError` a `URLSession` would give), redirects (followed,
/// as `URLSession` and AsyncHTTPClient do), cassettes (replayed; recorded through
/// `passthroughSession`), the unmocked policy, and the journal — where each request keeps the
/// `operationId` the client named (`RecordedRequest.operationID`), which stubs can match
/// (``AirlockCore/RequestMatcher/operation(_:)``, `addResponses(forOperation:)`).
///
/// With `mock.validate(against:)`, the checks run on the calling task before the response
/// returns: a violation is an issue of the test that made the call.
public struct AirlockTransport: ClientTransport {
    private let registry: MockRegistry
    private let passthroughSession: URLSession
    /// Webhooks still waiting for their delay: not sent once the last copy of the transport is
    /// released.
    private let waitingWebhooks = WaitingWebhooks(notSent: "not sent: the transport was released before its delay had passed")

    /// A transport that asks `mock`.
    /// - Parameters:
    ///   - mock: The mock that answers: an `HTTPMock`, a `MockServer`, any `Mocking`.
    ///   - passthroughSession: What requests go through when the mock forwards them (the
    ///     `.passthrough` policy, a recording cassette, a stub that proxies). Defaults to an
    ///     ephemeral session.
    public init(mock: some Mocking, passthroughSession: URLSession = URLSession(configuration: .ephemeral)) {
        registry = mock.registry
        self.passthroughSession = passthroughSession
    }

    /// Answers one request of the generated client from the mock.
    /// - Throws: `URLError` where a `URLSession` would fail (a fault, a stub's error, a missing
    ///   file, a replay miss); `CancellationError` when the calling task is cancelled while
    ///   the answer waits (a delay).
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var bytes: Data?
        if let body { bytes = try await Data(collecting: body, upTo: .max) }
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let address = base + (request.path ?? "/")
        guard var incoming = IncomingRequest(method: request.method.rawValue, absoluteURL: address) else {
            throw URLError(.badURL, message: "AirlockTransport: \(address) is not a URL with a host")
        }
        incoming.headerFields = .list(request.headerFields.map { (name: $0.name.rawName, value: $0.value) })
        incoming.body = bytes
        incoming.operationID = operationID
        let delivery = Delivery(registry: registry, passthroughSession: passthroughSession, waitingWebhooks: waitingWebhooks)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delivery.start(incoming, answering: continuation)
            }
        } onCancel: {
            delivery.cancel()
        }
    }
}

extension AirlockTransport {
    /// One request's delivery: the core's plan mapped onto the continuation the client awaits,
    /// then onto the stream of its response body.
    final class Delivery: ExchangeSink, Sendable {
        typealias Kind = URLSessionTransport
        typealias Answer = (HTTPResponse, HTTPBody?)

        private enum State {
            case idle
            /// The client awaits the response head.
            case waiting(CheckedContinuation<Answer, any Error>, request: IncomingRequest, hops: Int)
            /// The client has the head and reads the body.
            case streaming(AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.Continuation)
            case over
        }

        private let registry: MockRegistry
        private let passthroughSession: URLSession
        private let waitingWebhooks: WaitingWebhooks
        private let state = Locked(State.idle)
        /// The exchange of the current hop, once started.
        private let machine = Locked<ExchangeStateMachine<URLSessionTransport>?>(nil)

        init(registry: MockRegistry, passthroughSession: URLSession, waitingWebhooks: WaitingWebhooks) {
            self.registry = registry
            self.passthroughSession = passthroughSession
            self.waitingWebhooks = waitingWebhooks
        }

        func start(_ request: IncomingRequest, answering continuation: CheckedContinuation<Answer, any Error>) {
            let started = state.withLock { state -> Bool in
                // Over already: the task was cancelled before the exchange began.
                guard case .idle = state else { return false }
                state = .waiting(continuation, request: request, hops: 0)
                return true
            }
            guard started else { return continuation.resume(throwing: CancellationError()) }
            begin(request)
        }

        /// Resolves one hop of the exchange and starts it.
        private func begin(_ request: IncomingRequest) {
            var exchange = registry.resolve(request, for: .urlSession)
            let action = exchange.start(idleTimeout: nil, takesBodyInPieces: true)
            machine.withLock { $0 = exchange }
            run(action)
        }

        /// The client's task was cancelled: it gets `CancellationError`, and nothing scheduled
        /// for the exchange runs.
        func cancel() {
            end(with: CancellationError())
        }

        /// Ends the exchange with an error: the continuation's, or the body stream's.
        private func end(with error: any Error) {
            let previous = state.withLock { state -> State in
                defer { state = .over }
                return state
            }
            switch previous {
            case .waiting(let continuation, _, _): continuation.resume(throwing: error)
            case .streaming(let body): body.finish(throwing: error)
            case .idle, .over: break
            }
        }

        private var isOver: Bool {
            state.withLock { if case .over = $0 { return true } else { return false } }
        }

        // MARK: ExchangeSink

        func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
            DispatchQueue.global().asyncAfter(deadline: .now() + max(seconds, 0)) { [weak self] in
                guard let self, !self.isOver else { return }
                work()
            }
        }

        func withMachine(_ event: (inout ExchangeStateMachine<URLSessionTransport>) -> ExchangeStateMachine<URLSessionTransport>.Action) -> ExchangeStateMachine<URLSessionTransport>.Action {
            machine.withLock { machine in
                guard var exchange = machine else { return .none }
                defer { machine = exchange }
                return event(&exchange)
            }
        }

        /// Carries out what the exchange asks for: the head and body onto the continuation and
        /// the body's stream, an error thrown to the client, a forward, a redirect followed.
        func carry(_ delivery: ExchangeStateMachine<URLSessionTransport>.Delivery) {
            switch delivery {
            case .write(let write):
                if let (response, bodySize) = write.head, !respond(response, bodySize: bodySize) { return }
                write.pieces.forEach { send($0, isLast: false) }
                if write.ends {
                    send(Data(), isLast: true)
                    sendWebhooks(write.webhooks)
                }
            case .fail(let failure):
                end(with: URLError(failure.urlErrorCode, message: failure.description))
            case .failCarrying(let error):
                end(with: error.error)
            case .fault(let fault, let webhooks):
                end(with: fault.urlError(reportedBy: "AirlockTransport"))
                sendWebhooks(webhooks)
            case .forward(_, let target, _, let webhooks, _):
                guard let recorder = machine.withLock({ $0?.recorder }) else { return }
                forward(to: target, recorder: recorder, then: webhooks)
            case .stop(let message):
                fatalError(message)
            case .openWebSocket:
                // A client transport carries no WebSocket: the core fails such an exchange instead.
                break
            case .follow(let redirect, _):
                follow(redirect)
            }
        }

        /// Hands the client the response's head and a stream for its body.
        private func respond(_ response: MockResponse, bodySize: Int?) -> Bool {
            var head = HTTPResponse(status: .init(code: response.status.code, reasonPhrase: response.reasonPhrase ?? ""))
            head.headerFields = response.headerFields
            let (stream, body) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
            let continuation = state.withLock { state -> CheckedContinuation<Answer, any Error>? in
                guard case .waiting(let continuation, _, _) = state else { return nil }
                state = .streaming(body)
                return continuation
            }
            guard let continuation else { return false }
            continuation.resume(returning: (head, HTTPBody(stream, length: bodySize.map { .known(Int64($0)) } ?? .unknown, iterationBehavior: .single)))
            return true
        }

        private func send(_ piece: Data, isLast: Bool) {
            let body = state.withLock { state -> AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.Continuation? in
                guard case .streaming(let body) = state else { return nil }
                if isLast { state = .over }
                return body
            }
            guard let body else { return }
            if !piece.isEmpty { body.yield(ArraySlice(piece)) }
            if isLast { body.finish() }
        }

        /// Sends the request — to `target` instead of its own URL when a stub proxies — through
        /// the passthrough session, and hands the client the answer.
        /// Sends the webhooks the core attached to the answer's end, now that it has gone.
        private func sendWebhooks(_ webhooks: [WebhookRequest], recorder known: ExchangeRecorder? = nil) {
            guard !webhooks.isEmpty, let recorder = known ?? machine.withLock({ $0?.recorder }) else { return }
            WebhookSending.send(webhooks, through: passthroughSession, recorder: recorder, redaction: registry.journal.redaction, waiting: waitingWebhooks)
        }

        private func forward(to target: ForwardTarget?, recorder: ExchangeRecorder, then webhooks: [WebhookRequest]) {
            guard case .waiting(_, let request, _) = state.withLock({ $0 }) else { return }
            guard let url = URL(string: target?.url ?? request.url) else {
                let failure = ExchangeFailure.invalidProxyTarget(target?.url ?? request.url)
                recorder.record(.failure(failure))
                end(with: URLError(.badURL, message: failure.description))
                return sendWebhooks(webhooks, recorder: recorder)
            }
            var forwarded = URLRequest(url: url)
            forwarded.httpMethod = request.method
            // A stub that proxies: the fields the core decided (its header edits made, no Host).
            for field in target?.headers ?? request.headerFields.fields {
                forwarded.addValue(field.value, forHTTPHeaderField: field.name)
            }
            forwarded.httpBody = request.body
            passthroughSession.dataTask(with: forwarded) { [self] data, response, error in
                defer { sendWebhooks(webhooks, recorder: recorder) }
                guard let http = response as? HTTPURLResponse, error == nil else {
                    let failure = error ?? URLError(.badServerResponse, message: "AirlockTransport: \(url) gave no HTTP response")
                    recorder.record(.failure(.forwardFailed(target: url.absoluteString, error: "\(failure)")))
                    return end(with: failure)
                }
                let fields = http.recordedFields
                let body = data ?? Data()
                recorder.record(.response(status: http.statusCode), headers: fields, body: body)
                var head = HTTPResponse(status: .init(code: http.statusCode))
                head.headerFields = fields
                let continuation = state.withLock { state -> CheckedContinuation<Answer, any Error>? in
                    guard case .waiting(let continuation, _, _) = state else { return nil }
                    state = .over
                    return continuation
                }
                continuation?.resume(returning: (head, HTTPBody(body)))
            }.resume()
        }

        /// Follows a mocked redirect: the next hop is resolved by the mock and recorded, and the
        /// client receives the last response.
        private func follow(_ redirect: RedirectRule) {
            let next = state.withLock { state -> IncomingRequest? in
                guard case .waiting(let continuation, let request, let hops) = state else { return nil }
                guard hops < RedirectRule.maximumHops, var next = IncomingRequest(method: redirect.method, absoluteURL: redirect.location) else { return nil }
                next.headerFields = request.headerFields
                next.body = redirect.dropsBody ? nil : request.body
                next.operationID = request.operationID
                state = .waiting(continuation, request: next, hops: hops + 1)
                return next
            }
            guard let next else {
                return end(with: URLError(.httpTooManyRedirects, message: "AirlockTransport: more than \(RedirectRule.maximumHops) redirects, or a redirect to \(redirect.location), which is not a URL"))
            }
            begin(next)
        }
    }
}

extension RequestMatcher {
    /// Requests of the API operation `id`: those a swift-openapi-generator client sends through
    /// ``AirlockTransport`` for that `operationId`.
    public static func operation(_ id: String) -> RequestMatcher {
        RequestMatcher(description: "operation \(id)") { request in
            request.operationID == id ? [] : ["operation \(request.operationID ?? "none") vs \(id)"]
        }
    }
}

extension Mocking {
    /// Answers the requests of one API operation, whatever their host and path: the calls a
    /// generated client makes through ``AirlockTransport`` for that `operationId`.
    ///
    /// ```swift
    /// mock.addResponses(forOperation: "showPetById") {
    ///     MockResponse.dictionary(["id": 7, "name": "Rex"])
    /// }
    /// ```
    /// Stubs registered by path for the same requests are more specific, and win.
    /// - Parameters:
    ///   - id: The operation's `operationId`.
    ///   - responses: The responses, in order.
    public func addResponses(forOperation id: String, @MockResponseBuilder _ responses: () -> [MockResponse]) {
        addResponses(forPath: "/**", host: "**", requiring: .operation(id), responses)
    }
}
