import Foundation
import HTTPTypes
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
class MockURLProtocol: LoadingURLProtocol {
    /// The slot of the mock that answers this class's requests; overridden by each slotted subclass.
    class var slot: Int { -1 }

    override func startLoading() {
        guard let mock = Directories.mocks.owner(at: Self.slot) else {
            return fail(
                URLError(
                    .unknown,
                    message: "HTTPMock: this URLSession's HTTPMock has been released. Keep the HTTPMock alive "
                        + "for as long as you use its urlSession or the sessions it made."
                ),
                recording: nil
            )
        }
        withRequestBody { loader, body in
            (loader as! MockURLProtocol).answer(Load(mock: mock, request: loader.request, body: body, hops: 0))
        }
    }

    /// Resolves one request — the client's, or a redirect's next hop — and carries out the plan.
    private func answer(_ load: Load) {
        guard var incoming = IncomingRequest(load.request) else {
            return fail(URLError(.badURL, message: "HTTPMock: the request has no URL with a host: \(load.request)"), recording: nil)
        }
        incoming.body = load.body
        let exchange = load.mock.registry.resolve(incoming, for: .urlSession)
        if exchange.delay == 0, case .respond(let planned) = exchange.action, let body = planned.body.bytesInMemory {
            // The common case: bytes in memory, no delay. Answer right away.
            return deliver(planned, body: body, load: load, exchange: exchange)
        }
        switch exchange.action {
        case .forward:
            forward(load, recorder: exchange.recorder)
        case .stop(let message):
            fatalError(message)
        case .respond, .fail, .fault:
            if let timeout = timeout(reachedBy: exchange.delay) {
                return timeOut(after: timeout, because: "its mocked response is delayed \(Self.seconds(exchange.delay)) s", recorder: exchange.recorder)
            }
            let handle = Handle(self)
            // On a global queue once the delay has passed (reading a file there blocks no one).
            schedule(after: exchange.delay) { (handle.base as! MockURLProtocol).carryOut(exchange, load: load) }
        }
    }

    private func carryOut(_ exchange: ResolvedExchange, load: Load) {
        switch exchange.action {
        case .respond(let planned):
            switch planned.body.load(for: exchange.stub) {
            case .success(let body): deliver(planned, body: body, load: load, exchange: exchange)
            case .failure(let failure): fail(URLError(failure.urlErrorCode, message: failure.description), recording: (exchange.recorder, .failure(failure.description)))
            }
        case .fail(let box):
            fail(box.error, recording: (exchange.recorder, .failure(box.summary)))
        case .fault(let fault):
            fail(fault.urlError, recording: (exchange.recorder, .fault(fault)))
        case .forward, .stop:
            preconditionFailure("answer(_:) carries these out itself")
        }
    }

    // MARK: Delivering a response

    private func deliver(_ planned: PlannedResponse, body wireBody: Data, load: Load, exchange: ResolvedExchange) {
        guard let url = load.request.url,
            let http = HTTPURLResponse(url: url, statusCode: planned.status, httpVersion: "HTTP/1.1", headerFields: planned.headerDictionary)
        else {
            return fail(URLError(.badServerResponse, message: "HTTPMock: cannot build a response for \(load.request)"), recording: nil)
        }
        exchange.recorder.record(.response(status: planned.status), headers: planned.headers, body: wireBody, bodyIsEncoded: !planned.bodyIsDecoded)
        // A URLSession decodes gzip and deflate bodies for its callers; so does the mock.
        let body = planned.bodyIsDecoded ? wireBody : planned.headers.contentCoding.flatMap { ContentCoding.decode(wireBody, coding: $0) } ?? wireBody
        if let redirect = planned.redirect {
            return follow(redirect, after: http, load: load)
        }
        if let dribble = planned.dribble, body.count > 1 {
            return dribbleBody(body, response: http, plan: dribble, recorder: exchange.recorder)
        }
        guard claimDelivery(), let client else { return }
        client.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
        if !body.isEmpty {
            client.urlProtocol(self, didLoad: body)
        }
        client.urlProtocolDidFinishLoading(self)
    }

    private func fail(_ error: any Error, recording: (ExchangeRecorder, RecordedResponse.Outcome)?) {
        guard claimDelivery() else { return }
        if let (recorder, outcome) = recording { recorder.record(outcome) }
        client?.urlProtocol(self, didFailWithError: error)
    }

    /// Sends the response head at once and the body in the plan's pieces, one timer after another;
    /// a cancelled load stops receiving pieces.
    ///
    /// swift-corelibs-foundation keeps only the last `didLoad` chunk for tasks with a completion
    /// handler (including `data(for:)`), so on Linux the head goes at once and the whole body
    /// when the spread has passed. When the time between two pieces reaches the request's
    /// timeout, the load times out instead, as a real body that stalls that long would.
    private func dribbleBody(_ body: Data, response: HTTPURLResponse, plan: DribblePlan, recorder: ExchangeRecorder) {
        guard !isStopped, let client else { return }
        client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        let gap = plan.pieces(of: body).interval
        if let timeout = timeout(reachedBy: gap) {
            return timeOut(after: timeout, because: "its mocked body is dribbled with \(Self.seconds(gap)) s between pieces", recorder: recorder)
        }
        #if canImport(FoundationNetworking)
        sendPiece(0, of: [body], every: plan.seconds)
        #else
        let (pieces, interval) = plan.pieces(of: body)
        sendPiece(0, of: pieces, every: interval)
        #endif
    }

    private func sendPiece(_ index: Int, of pieces: [Data], every interval: TimeInterval) {
        let handle = Handle(self)
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) {
            let loader = handle.base as! MockURLProtocol
            if index == pieces.count - 1 {
                guard loader.claimDelivery(), let client = loader.client else { return }
                client.urlProtocol(loader, didLoad: pieces[index])
                client.urlProtocolDidFinishLoading(loader)
                return
            }
            guard !loader.isStopped, let client = loader.client else { return }
            client.urlProtocol(loader, didLoad: pieces[index])
            loader.sendPiece(index + 1, of: pieces, every: interval)
        }
    }

    /// Follows a mocked redirect. Apple's URL loading system follows what a protocol reports;
    /// swift-corelibs-foundation stops the process instead ("doesn't currently handle redirects
    /// directly"), so on Linux the mock follows the chain itself: each hop is resolved by the
    /// registry and recorded, and the client receives the last response, whose URL is the final
    /// location.
    private func follow(_ redirect: RedirectRule, after response: HTTPURLResponse, load: Load) {
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
            return fail(error, recording: nil)
        }
        answer(Load(mock: load.mock, request: next, body: redirect.dropsBody ? nil : load.body, hops: load.hops + 1))
        #else
        guard claimDelivery(), let client else { return }
        client.urlProtocol(self, wasRedirectedTo: next, redirectResponse: response)
        #endif
    }

    // MARK: Passthrough

    private func forward(_ load: Load, recorder: ExchangeRecorder) {
        // No loop is possible: a mock's passthrough session is fixed before the mock exists, so
        // it can be another mock's session (which then answers) but never its own.
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
    /// One request being answered: the client's, or the next hop of a redirect.
    struct Load: Sendable {
        let mock: HTTPMock
        let request: URLRequest
        let body: Data?
        let hops: Int
    }
}

extension ExchangeFailure {
    /// The `URLError` code a URLSession client sees for this failure.
    var urlErrorCode: URLError.Code {
        switch kind {
        case .fileMissing: .fileDoesNotExist
        case .fileUnreadable: .noPermissionsToReadFile
        case .responseUnavailable: .cannotParseResponse
        }
    }
}

extension MockResponse.Fault {
    /// What a URLSession client sees for this fault (a URLProtocol has no socket to misbehave on).
    var urlError: URLError {
        switch kind {
        case .connectionReset:
            URLError(.networkConnectionLost, message: "HTTPMock: fault connectionReset — the connection was reset")
        case .emptyResponse:
            URLError(.badServerResponse, message: "HTTPMock: fault emptyResponse — the server closed the connection without a response")
        case .malformedChunkedBody:
            URLError(.cannotParseResponse, message: "HTTPMock: fault malformedChunkedBody — the chunked body could not be parsed")
        case .randomBytesThenClose:
            URLError(.badServerResponse, message: "HTTPMock: fault randomBytesThenClose — the server sent bytes that are not HTTP")
        }
    }
}
