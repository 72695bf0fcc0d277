import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` behind every `HTTPMock.urlSession`: a thin adapter that asks the owning mock's
/// registry for a response and delivers it.
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
                journal: nil
            )
        }
        withRequestBody { loader, body in
            (loader as! MockURLProtocol).respond(to: Load(mock: mock, request: loader.request, body: body, hops: 0))
        }
    }

    /// Asks the registry about one request — the client's, or a redirect's next hop — and acts on the answer.
    private func respond(to load: Load) {
        guard var incoming = IncomingRequest(load.request) else {
            return fail(URLError(.badURL, message: "HTTPMock: the request has no URL with a host: \(load.request)"), journal: nil)
        }
        incoming.body = load.body
        let started = Date()
        let registry = load.mock.registry
        switch registry.respond(to: incoming, at: started) {
        case .matched(let response, let stub, let sequence):
            deliver(response, stub: stub, load: load, journal: JournalEntry(registry: registry, sequence: sequence, started: started))
        case .unmatched(.notFound, let message, let sequence):
            deliver(.unmatched(message), stub: nil, load: load, journal: JournalEntry(registry: registry, sequence: sequence, started: started))
        case .unmatched(.mock(let response), _, let sequence):
            deliver(response, stub: nil, load: load, journal: JournalEntry(registry: registry, sequence: sequence, started: started))
        case .unmatched(.passthrough, _, let sequence):
            forward(load, journal: JournalEntry(registry: registry, sequence: sequence, started: started))
        case .unmatched(.fatalError, let message, _):
            fatalError(message + "\n(unmockedPolicy is .fatalError)")
        }
    }

    // MARK: Delivering a mocked response

    /// Delivers `response`, which came from `stub` (`nil`: from the unmocked policy).
    private func deliver(_ response: MockResponse, stub: StubDescription?, load: Load, journal: JournalEntry) {
        let delay = response.delivery.seconds
        if delay == 0, case .data(let body) = response.body {
            // The common case: bytes in memory, no delay. Answer right away.
            return send(response, body: body, load: load, journal: journal)
        }
        let handle = Handle(self)
        schedule(after: delay) {
            let loader = handle.base as! MockURLProtocol
            switch Self.loadBody(of: response, stub: stub) {
            case .success(let body): loader.send(response, body: body, load: load, journal: journal)
            case .failure(let error): loader.fail(error, journal: journal)
            }
        }
    }

    private static func loadBody(of response: MockResponse, stub: StubDescription?) -> Result<Data, any Error> {
        let stub = stub.map { "the response for \($0)" } ?? "the unmocked policy's response"
        switch response.body {
        case .data(let data):
            return .success(data)
        case .error(let box):
            return .failure(box.error)
        case .fault(let fault):
            return .failure(fault.urlError)
        case .failure(let problem):
            return .failure(URLError(.cannotParseResponse, message: "HTTPMock: \(stub) cannot be served: \(problem)"))
        case .file(let url):
            do {
                return .success(try Data(contentsOf: url))
            } catch {
                let exists = FileManager.default.fileExists(atPath: url.path)
                let location = url.isFileURL ? url.path : url.absoluteString
                return .failure(
                    URLError(
                        exists ? .noPermissionsToReadFile : .fileDoesNotExist,
                        message: "HTTPMock: \(stub) reads the file \(location), which "
                            + (exists ? "cannot be read (\(error.localizedDescription)). Check its permissions." :
                                "does not exist. Relative paths resolve against the working directory "
                                + "\(FileManager.default.currentDirectoryPath); for test resources, use "
                                + ".file(named:extension:in: Bundle.module).")
                    )
                )
            }
        }
    }

    private func send(_ response: MockResponse, body: Data, load: Load, journal: JournalEntry) {
        switch response.body {
        case .error(let box): return fail(box.error, journal: journal)
        case .fault(let fault): return fail(fault.urlError, journal: journal)
        default: break
        }
        guard let url = load.request.url else { return }
        guard
            let http = HTTPURLResponse(
                url: url,
                statusCode: response.status.code,
                httpVersion: "HTTP/1.1",
                headerFields: response.headers
            )
        else {
            return fail(URLError(.badServerResponse, message: "HTTPMock: cannot build a response for \(url)"), journal: journal)
        }
        journal.record(status: http.statusCode, headers: response.headers, body: body)
        if let next = Redirect.request(following: http, from: load.request) {
            return follow(next, after: http, load: load)
        }
        if let dribble = response.dribble, body.count > 1 {
            return dribbleBody(body, response: http, chunks: dribble.chunks, over: dribble.seconds)
        }
        guard claimDelivery(), let client else { return }
        client.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
        if !body.isEmpty {
            client.urlProtocol(self, didLoad: body)
        }
        client.urlProtocolDidFinishLoading(self)
    }

    private func fail(_ error: any Error, journal: JournalEntry?) {
        guard claimDelivery() else { return }
        journal?.record(failure: "\(error)")
        client?.urlProtocol(self, didFailWithError: error)
    }

    /// Sends the response head at once and the body in `chunks` pieces spread over `seconds`,
    /// one timer after another; a cancelled load stops receiving pieces.
    ///
    /// swift-corelibs-foundation keeps only the last `didLoad` chunk for tasks with a completion
    /// handler (including `data(for:)`), so on Linux the head goes at once and the whole body
    /// when the spread has passed.
    private func dribbleBody(_ body: Data, response: HTTPURLResponse, chunks: Int, over seconds: TimeInterval) {
        guard !isStopped, let client else { return }
        client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        #if canImport(FoundationNetworking)
        let handle = Handle(self)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            let loader = handle.base
            guard loader.claimDelivery(), let client = loader.client else { return }
            client.urlProtocol(loader, didLoad: body)
            client.urlProtocolDidFinishLoading(loader)
        }
        #else
        let pieces = Swift.min(chunks, body.count)
        let size = (body.count + pieces - 1) / pieces
        let interval = pieces > 1 ? seconds / Double(pieces - 1) : 0
        sendPiece(0, of: pieces, size: size, from: body, every: interval)
        #endif
    }

    #if !canImport(FoundationNetworking)
    private func sendPiece(_ index: Int, of pieces: Int, size: Int, from body: Data, every interval: TimeInterval) {
        let piece = body.subdata(in: index * size..<Swift.min(body.count, (index + 1) * size))
        if index == pieces - 1 {
            guard claimDelivery(), let client else { return }
            client.urlProtocol(self, didLoad: piece)
            client.urlProtocolDidFinishLoading(self)
            return
        }
        guard !isStopped, let client else { return }
        client.urlProtocol(self, didLoad: piece)
        let handle = Handle(self)
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) {
            (handle.base as! MockURLProtocol).sendPiece(index + 1, of: pieces, size: size, from: body, every: interval)
        }
    }
    #endif

    /// Follows a mocked redirect. Apple's URL loading system follows what a protocol reports;
    /// swift-corelibs-foundation stops the process instead ("doesn't currently handle redirects
    /// directly"), so on Linux the mock follows the chain itself: each hop is asked of the
    /// registry and recorded, and the client receives the last response, whose URL is the final
    /// location.
    private func follow(_ next: URLRequest, after response: HTTPURLResponse, load: Load) {
        #if canImport(FoundationNetworking)
        guard load.hops < Redirect.maximumHops else {
            let error = URLError(.httpTooManyRedirects, message: "HTTPMock: more than \(Redirect.maximumHops) redirects, from \(load.request.url?.absoluteString ?? "?")")
            return fail(error, journal: nil)
        }
        let body = next.httpBody
        respond(to: Load(mock: load.mock, request: next, body: body, hops: load.hops + 1))
        #else
        guard claimDelivery(), let client else { return }
        client.urlProtocol(self, wasRedirectedTo: next, redirectResponse: response)
        #endif
    }

    // MARK: Passthrough

    private func forward(_ load: Load, journal: JournalEntry) {
        // No loop is possible: a mock's passthrough session is fixed before the mock exists, so
        // it can be another mock's session (which then answers) but never its own.
        forward(load.request, body: load.body, using: load.mock.passthroughSession) { data, response, error in
            if let error {
                journal.record(failure: "\(error)")
            } else if let http = response as? HTTPURLResponse {
                journal.record(status: http.statusCode, headers: http.headerDictionary, body: data ?? Data())
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
