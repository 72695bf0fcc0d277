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

    /// Resolves one request — the client's, or a redirect's next hop — and has the core carry
    /// the plan out on this load.
    private func answer(_ load: Hop) {
        guard var incoming = IncomingRequest(load.request) else {
            return fail(URLError(.badURL, message: "HTTPMock: the request has no URL with a host: \(load.request)"))
        }
        incoming.body = load.body
        let exchange = load.mock.registry.resolve(incoming, for: .urlSession)
        // Only a body sent in pieces asks which kind of task this is (reading it costs a look into
        // the session); it is read now, while on the session's queue if this is startLoading().
        let takesPieces = exchange.sendsBodyInPieces
            ? clientTakesBodyInPieces(onWorkQueue: startingThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false })
            : false
        exchange.deliver(to: Sink(self, load: load, takesBodyInPieces: takesPieces))
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

    private func forward(_ load: Hop, recorder: ExchangeRecorder, inPieces: Bool) {
        // No loop is possible: a mock's passthrough session is fixed before the mock exists, so
        // it can be another mock's session (which then answers) but never its own.
        if inPieces {
            // A data delegate gets each piece as the network hands it over, and a stream is
            // recorded with its pieces (a body without a length; the session decoded any coding).
            let mock = load.mock
            forward(load.request, body: load.body, inPiecesThrough: mock.pieceForwarders.forwarder) { forwarded in
                withExtendedLifetime(mock) { forwarded.record(with: recorder) }
            }
            return
        }
        forward(load.request, body: load.body, using: load.mock.passthroughSession) { data, response, error in
            if let error {
                recorder.record(.failure("\(error)"))
            } else if let http = response as? HTTPURLResponse {
                recorder.record(.response(status: http.statusCode), headers: http.recordedFields, body: data ?? Data())
            }
        }
    }
}

extension MockURLProtocol {
    /// One load as the core's delivery sees it: the client calls, the load's timers (cancelled by
    /// `stopLoading()`), and the request's timeout.
    // @unchecked Sendable: see `LoadReference` — the protocol's request and client are set before
    // startLoading() and never change; its own state sits behind a lock.
    //
    // `takesBodyInPieces`: swift-corelibs-foundation keeps only the last `didLoad` piece for
    // tasks with a completion handler (including `data(for:)`): those get the whole body at once
    // when its time has passed; a data delegate gets each piece as it is sent.
    final class Sink: ExchangeSink, @unchecked Sendable {
        typealias Kind = URLSessionTransport

        private let loader: MockURLProtocol
        private let load: Hop
        let takesBodyInPieces: Bool

        init(_ loader: MockURLProtocol, load: Hop, takesBodyInPieces: Bool) {
            self.loader = loader
            self.load = load
            self.takesBodyInPieces = takesBodyInPieces
        }

        func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
            loader.schedule(after: seconds, work)
        }

        var idleTimeout: TimeInterval? { loader.effectiveTimeout }

        func timeOut(after seconds: TimeInterval, because reason: String, recorder: ExchangeRecorder) {
            loader.timeOut(after: seconds, because: reason, recorder: recorder)
        }

        func begin(_ planned: PlannedResponse, bodySize: Int?) -> Bool {
            guard let url = load.request.url,
                let http = HTTPURLResponse(url: url, statusCode: planned.response.status.code, httpVersion: "HTTP/1.1", headerFields: planned.response.headers)
            else {
                loader.fail(URLError(.badServerResponse, message: "HTTPMock: cannot build a response for \(load.request)"))
                return false
            }
            if let redirect = planned.redirect {
                loader.follow(redirect, after: http, load: load)
                return false
            }
            guard !loader.isStopped, let client = loader.client else { return false }
            client.urlProtocol(loader, didReceive: http, cacheStoragePolicy: .notAllowed)
            return true
        }

        func send(_ piece: Data, isLast: Bool, of planned: PlannedResponse) {
            guard isLast ? loader.claimDelivery() : !loader.isStopped, let client = loader.client else { return }
            if !piece.isEmpty {
                client.urlProtocol(loader, didLoad: piece)
            }
            if isLast {
                client.urlProtocolDidFinishLoading(loader)
            }
        }

        func fail(_ failure: ExchangeFailure) {
            loader.fail(URLError(failure.urlErrorCode, message: failure.description))
        }

        func fail(carrying error: MockResponse.ErrorBox) {
            loader.fail(error.error)
        }

        func perform(_ fault: MockResponse.Fault) {
            loader.fail(fault.urlError(reportedBy: "HTTPMock"))
        }

        func forward(recording: Bool, to target: String?, recorder: ExchangeRecorder) {
            guard let target else { return loader.forward(load, recorder: recorder, inPieces: takesBodyInPieces) }
            guard let url = URL(string: target) else {
                recorder.record(.failure("the proxy target \(target) is not a URL"))
                return loader.fail(URLError(.badURL, message: "Airlock: the proxy target \(target) is not a URL"))
            }
            var request = load.request
            request.url = url
            request.setValue(nil, forHTTPHeaderField: "Host")
            loader.forward(Hop(mock: load.mock, request: request, body: load.body, hops: load.hops), recorder: recorder, inPieces: takesBodyInPieces)
        }

        func stop(_ message: String) -> Never {
            fatalError(message)
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
