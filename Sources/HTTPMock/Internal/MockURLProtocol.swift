import Foundation
import Synchronization
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
        let started = Date()
        withRequestBody { loader, body in
            (loader as! MockURLProtocol).respond(with: mock, body: body, started: started)
        }
    }

    private func respond(with mock: HTTPMock, body: Data?, started: Date) {
        guard var incoming = IncomingRequest(request) else {
            return fail(URLError(.badURL, message: "HTTPMock: the request has no URL with a host: \(request)"), journal: nil)
        }
        incoming.body = body
        switch mock.registry.respond(to: incoming, at: started) {
        case .matched(let response, let stub, let sequence):
            deliver(response, stub: stub, journal: JournalEntry(registry: mock.registry, sequence: sequence, started: started))
        case .unmatched(.notFound, let message, let sequence):
            let notFound = MockResponse.plaintext(message + "\n", status: .notFound, headers: ["X-HTTPMock-Unmatched": "true"])
            deliver(notFound, stub: nil, journal: JournalEntry(registry: mock.registry, sequence: sequence, started: started))
        case .unmatched(.mock(let response), _, let sequence):
            deliver(response, stub: nil, journal: JournalEntry(registry: mock.registry, sequence: sequence, started: started))
        case .unmatched(.passthrough, _, let sequence):
            forward(using: mock.passthroughSession, body: body, journal: JournalEntry(registry: mock.registry, sequence: sequence, started: started))
        case .unmatched(.fatalError, let message, _):
            fatalError(message + "\n(unmockedPolicy is .fatalError)")
        }
    }

    // MARK: Delivering a mocked response

    /// Delivers `response`, which came from `stub` (`nil`: from the unmocked policy).
    private func deliver(_ response: MockResponse, stub: StubDescription?, journal: JournalEntry) {
        let delay = response.delivery.seconds
        if delay == 0, case .data(let body) = response.body {
            // The common case: bytes in memory, no delay. Answer right away.
            return send(response, body: body, journal: journal)
        }
        let handle = Handle(self)
        schedule(after: delay) {
            let loader = handle.base as! MockURLProtocol
            switch Self.loadBody(of: response, stub: stub) {
            case .success(let body): loader.send(response, body: body, journal: journal)
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

    private func send(_ response: MockResponse, body: Data, journal: JournalEntry) {
        if case .error(let box) = response.body {
            return fail(box.error, journal: journal)
        }
        guard claimDelivery(), let url = request.url, let client else { return }
        guard
            let http = HTTPURLResponse(
                url: url,
                statusCode: response.status.code,
                httpVersion: "HTTP/1.1",
                headerFields: response.headers
            )
        else {
            let error = URLError(.badServerResponse, message: "HTTPMock: cannot build a response for \(url)")
            journal.record(error: error)
            client.urlProtocol(self, didFailWithError: error)
            return
        }
        journal.record(status: http.statusCode, headers: response.headers, body: body)
        if let redirect = Redirect.request(following: http, from: request) {
            client.urlProtocol(self, wasRedirectedTo: redirect, redirectResponse: http)
            return
        }
        client.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
        if !body.isEmpty {
            client.urlProtocol(self, didLoad: body)
        }
        client.urlProtocolDidFinishLoading(self)
    }

    private func fail(_ error: any Error, journal: JournalEntry?) {
        guard claimDelivery() else { return }
        journal?.record(error: error)
        client?.urlProtocol(self, didFailWithError: error)
    }

    // MARK: Passthrough

    private func forward(using session: URLSession, body: Data?, journal: JournalEntry) {
        // No loop is possible: a mock's passthrough session is fixed before the mock exists, so
        // it can be another mock's session (which then answers) but never its own.
        forward(body: body, using: session) { data, response, error in
            if let error {
                journal.record(error: error)
            } else if let http = response as? HTTPURLResponse {
                journal.record(status: http.statusCode, headers: http.headerDictionary, body: data ?? Data())
            }
        }
    }
}

extension MockURLProtocol {
    /// The journal entry a load reports its outcome to.
    struct JournalEntry: Sendable {
        let registry: MockRegistry
        let sequence: Int
        let started: Date

        func record(status: Int, headers: [String: String], body: Data) {
            registry.record(
                RecordedResponse(status: status, headers: headers, body: body, error: nil, duration: Date().timeIntervalSince(started)),
                forSequence: sequence
            )
        }

        func record(error: any Error) {
            registry.record(
                RecordedResponse(status: nil, headers: [:], body: Data(), error: "\(error)", duration: Date().timeIntervalSince(started)),
                forSequence: sequence
            )
        }
    }
}
