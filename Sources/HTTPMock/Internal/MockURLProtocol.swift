@_spi(AirlockTransport) import AirlockCore
import AirlockBase
import Foundation
import HTTPTypes
import URLProtocolSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` behind every `HTTPMock.urlSession`: it asks the owning mock's registry to
/// resolve the request and delivers the plan through the `URLProtocolClient`. Every decision —
/// the policy, the response, its body source, delay, dribble plan, fault and redirect rule — is
/// the core's; this file only maps it onto client calls.
///
/// On Linux every session's `startLoading()` runs on one process-wide serial queue, so nothing
/// here blocks: body streams and upload files are read, delays waited out and response files read
/// on other queues, and passthrough tasks are created and resumed asynchronously.
///
/// Sessions list a `SlottedMockURLProtocol<N>` subclass, whose ``slot`` says which mock to ask.
class MockURLProtocol: LoadingURLProtocol, RequestBodyReading {
    /// The slot of the mock that answers this class's requests; overridden by each slotted subclass.
    class var slot: Int { -1 }

    /// The thread `startLoading()` runs on while it runs: what it resolves is on the session's
    /// work queue.
    private let startingThread = Locked<pthread_t?>(nil)

    /// The mock that answers this load: the one holding the class's slot, if it is alive.
    var owningMock: HTTPMock? {
        Directories.mocks.owner(at: Self.slot) as? HTTPMock
    }

    /// Why the load fails when ``owningMock`` is `nil`.
    var missingMockMessage: String {
        "HTTPMock: this URLSession's HTTPMock has been released. Keep the HTTPMock alive "
            + "for as long as you use its urlSession or the sessions it made."
    }

    override func startLoading() {
        startingThread.withLock { $0 = pthread_self() }
        defer { startingThread.withLock { $0 = nil } }
        guard let mock = owningMock else {
            return fail(URLError(.unknown, message: missingMockMessage))
        }
        withRequestBody { loader, body in
            loader.answer(Hop(mock: mock, request: loader.request, body: body, hops: 0))
        }
    }

    /// Resolves one request — the client's, or a redirect's next hop — and carries out what
    /// its exchange asks for on this load: at once when it answers at once, else in a ``Sink``.
    private func answer(_ load: Hop) {
        guard var incoming = IncomingRequest(load.request) else {
            return fail(URLError(.badURL, message: "HTTPMock: the request has no URL with a host: \(load.request)"))
        }
        incoming.body = load.body
        var machine = load.mock.registry.resolve(incoming, for: .urlSession)
        // The client's timeout is read only when the answer waits, and which kind of task this is
        // only for a body sent in pieces (reading either costs a look into the session); both
        // are read now, while on the session's queue if this is startLoading().
        let action = machine.start(
            idleTimeout: effectiveTimeout,
            takesBodyInPieces: clientTakesBodyInPieces(onWorkQueue: startingThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false })
        )
        guard case .none = action.next else {
            return Sink(self, load: load, machine: machine).run(action)
        }
        if let delivery = action.delivery {
            carry(delivery, load: load, recorder: machine.recorder)
        }
    }

    /// Carries out what the exchange asks for, through the client. Returns `false` when the
    /// load has stopped.
    @discardableResult
    private func carry(_ delivery: ExchangeStateMachine<URLSessionTransport>.Delivery, load: Hop, recorder: ExchangeRecorder) -> Bool {
        switch delivery {
        case .write(let write):
            // The last piece claims the delivery, so that a timeout or stopLoading() cannot answer too.
            guard write.ends ? claimDelivery() : !isStopped, let client else { return false }
            if let (response, _) = write.head {
                guard let http = httpResponse(response, for: load) else { return false }
                client.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
            }
            write.pieces.forEach { piece in
                if !piece.isEmpty { client.urlProtocol(self, didLoad: piece) }
            }
            if write.ends {
                client.urlProtocolDidFinishLoading(self)
                Self.sendWebhooks(write.webhooks, mock: load.mock, recorder: recorder)
            }
        case .fail(let failure):
            fail(URLError(failure.urlErrorCode, message: failure.description))
        case .failCarrying(let error):
            fail(error.error)
        case .fault(let fault, let webhooks):
            fail(fault.urlError(reportedBy: "HTTPMock"))
            Self.sendWebhooks(webhooks, mock: load.mock, recorder: recorder)
        case .forward(_, let target, let inPieces, let webhooks, _):
            forward(load, to: target, inPieces: inPieces, recorder: recorder, then: webhooks)
        case .stop(let message):
            fatalError(message)
        case .openWebSocket:
            // A URLProtocol carries no WebSocket: the core fails such an exchange instead.
            break
        case .follow(let redirect, let response):
            guard let http = httpResponse(response, for: load) else { return false }
            follow(redirect, after: http, load: load)
        }
        return true
    }

    /// Sends the webhooks the core attached to the answer's end, now that it has gone.
    private static func sendWebhooks(_ webhooks: [WebhookRequest], mock: HTTPMock, recorder: ExchangeRecorder) {
        guard !webhooks.isEmpty else { return }
        WebhookSending.send(webhooks, through: mock.passthroughSession, recorder: recorder, redaction: mock.journal.redaction, waiting: mock.waitingWebhooks)
    }

    /// The response as the client gets it, or `nil` (and the load failed) when none can be made.
    private func httpResponse(_ response: MockResponse, for load: Hop) -> HTTPURLResponse? {
        guard let url = load.request.url,
            let http = HTTPURLResponse(url: url, statusCode: response.status.code, httpVersion: "HTTP/1.1", headerFields: response.headers)
        else {
            fail(URLError(.badServerResponse, message: "HTTPMock: cannot build a response for \(load.request)"))
            return nil
        }
        return http
    }

    private func fail(_ error: any Error) {
        guard claimDelivery() else { return }
        client?.urlProtocol(self, didFailWithError: error)
    }

    /// Follows a mocked redirect. Apple's URL loading system follows what a protocol reports;
    /// swift-corelibs-foundation stops the process instead ("doesn't currently handle redirects
    /// directly"), so on Linux the mock follows the chain itself: each hop is resolved by the
    /// registry and recorded, and the client receives the last response, whose URL is the final
    /// location.
    private func follow(_ redirect: RedirectRule, after response: HTTPURLResponse, load: Hop) {
        var next = load.request
        next.url = URL(string: redirect.location)
        next.httpMethod = redirect.method
        if redirect.dropsBody {
            next.httpBody = nil
            next.httpBodyStream = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        #if canImport(FoundationNetworking)
        guard load.hops < RedirectRule.maximumHops else {
            let error = URLError(.httpTooManyRedirects, message: "HTTPMock: more than \(RedirectRule.maximumHops) redirects, from \(load.request.url?.absoluteString ?? "?")")
            return fail(error)
        }
        answer(Hop(mock: load.mock, request: next, body: redirect.dropsBody ? nil : load.body, hops: load.hops + 1))
        #else
        guard claimDelivery(), let client else { return }
        client.urlProtocol(self, wasRedirectedTo: next, redirectResponse: response)
        #endif
    }

    // MARK: Passthrough

    /// Sends the request — to `target` instead of its own URL when a stub proxies — to the
    /// real network, and relays the answer.
    private func forward(_ load: Hop, to target: ForwardTarget?, inPieces: Bool, recorder: ExchangeRecorder, then webhooks: [WebhookRequest]) {
        var request = load.request
        if let target {
            guard let url = URL(string: target.url) else {
                let failure = ExchangeFailure.invalidProxyTarget(target.url)
                recorder.record(.failure(failure))
                fail(URLError(.badURL, message: failure.description))
                return Self.sendWebhooks(webhooks, mock: load.mock, recorder: recorder)
            }
            request.url = url
            // The fields the core decided (the stub's header edits made, no Host), and no others.
            request.allHTTPHeaderFields = nil
            for field in target.headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
        }
        let forwarded = request
        // No loop is possible: a mock's passthrough session is fixed before the mock exists, so
        // it can be another mock's session (which then answers) but never its own.
        let mock = load.mock
        if inPieces {
            // A data delegate gets each piece as the network hands it over, and a stream is
            // recorded with its pieces (a body without a length; the session decoded any coding).
            forward(forwarded, body: load.body, inPiecesThrough: mock.pieceForwarders.forwarder) { answer in
                withExtendedLifetime(mock) { answer.record(with: recorder, forwarding: forwarded) }
                Self.sendWebhooks(webhooks, mock: mock, recorder: recorder)
            }
            return
        }
        forward(forwarded, body: load.body, using: mock.passthroughSession) { data, response, error in
            if let error {
                recorder.record(.failure(.forwarding(forwarded, failedWith: error)))
            } else if let http = response as? HTTPURLResponse {
                recorder.record(.response(status: http.statusCode), headers: http.recordedFields, body: data ?? Data())
            }
            Self.sendWebhooks(webhooks, mock: mock, recorder: recorder)
        }
    }
}

extension MockURLProtocol {
    /// An exchange that waits (a delay, a dribble, a stream, a file): its machine, behind a lock,
    /// and the load's timers (which do nothing once `stopLoading()` ran).
    // @unchecked Sendable: the protocol's request and client are set before startLoading() and
    // never change; the machine sits behind a lock.
    final class Sink: ExchangeSink, @unchecked Sendable {
        typealias Kind = URLSessionTransport

        private let loader: MockURLProtocol
        private let load: Hop
        private let recorder: ExchangeRecorder
        private let machine: Locked<ExchangeStateMachine<URLSessionTransport>>

        init(_ loader: MockURLProtocol, load: Hop, machine: ExchangeStateMachine<URLSessionTransport>) {
            self.loader = loader
            self.load = load
            recorder = machine.recorder
            self.machine = Locked(machine)
        }

        func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
            loader.schedule(after: seconds, work)
        }

        func withMachine(_ event: (inout ExchangeStateMachine<URLSessionTransport>) -> ExchangeStateMachine<URLSessionTransport>.Action) -> ExchangeStateMachine<URLSessionTransport>.Action {
            machine.withLock { event(&$0) }
        }

        func carry(_ delivery: ExchangeStateMachine<URLSessionTransport>.Delivery) {
            if !loader.carry(delivery, load: load, recorder: recorder) {
                machine.withLock { $0.clientLeft() }
            }
        }
    }
}

extension MockURLProtocol {
    /// One request being answered: the client's, or the next hop of a redirect.
    struct Hop: Sendable {
        let mock: HTTPMock
        let request: URLRequest
        let body: Data?
        let hops: Int
    }
}
