import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` behind every `HTTPMock.urlSession`: a thin adapter that asks the owning mock's
/// registry for a response and delivers it.
///
/// On Linux every session's `startLoading()` runs on one process-wide serial queue, so nothing
/// here blocks: delays run on timers, files are read on a global queue, and passthrough tasks are
/// resumed asynchronously.
///
/// Sessions list a `SlottedMockURLProtocol<N>` subclass, whose ``slot`` says which mock to ask.
class MockURLProtocol: URLProtocol {
    /// The slot of the mock that answers this class's requests; overridden by each slotted subclass.
    class var slot: Int { -1 }

    private let state = Mutex(State.idle)

    override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        guard let mock = MockDirectory.shared.mock(at: Self.slot) else {
            return fail(
                URLError(
                    .unknown,
                    message: "HTTPMock: this URLSession's HTTPMock has been released. Keep the HTTPMock alive "
                        + "for as long as you use its urlSession or the sessions it made."
                )
            )
        }
        guard let incoming = IncomingRequest(request) else {
            return fail(URLError(.badURL, message: "HTTPMock: the request has no URL with a host: \(request)"))
        }
        switch mock.registry.respond(to: incoming) {
        case .matched(let response, let stub):
            deliver(response, stub: stub)
        case .unmatched(.notFound, let message):
            deliver(.plaintext(message + "\n", status: .notFound, headers: ["X-HTTPMock-Unmatched": "true"]), stub: nil)
        case .unmatched(.mock(let response), _):
            deliver(response, stub: nil)
        case .unmatched(.passthrough, _):
            forward(using: mock.passthroughSession)
        case .unmatched(.fatalError, let message):
            fatalError(message + "\n(unmockedPolicy is .fatalError)")
        }
    }

    override func stopLoading() {
        let previous = state.withLock { state in
            defer { state = .stopped }
            return state
        }
        switch previous {
        case .waiting(let work): work.item.cancel()
        case .forwarding(let task): task.cancel()
        case .idle, .stopped: break
        }
    }

    // MARK: Delivering a mocked response

    /// Delivers `response`, which came from `stub` (`nil`: from the unmocked policy).
    private func deliver(_ response: MockResponse, stub: StubDescription?) {
        let delay = response.delivery.seconds
        if delay == 0, case .data(let body) = response.body {
            // The common case: bytes in memory, no delay. Answer right away.
            return send(response, body: body)
        }
        let handle = Handle(self)
        let work = DispatchWorkItem {
            switch Self.loadBody(of: response, stub: stub) {
            case .success(let body): handle.base.send(response, body: body)
            case .failure(let error): handle.base.fail(error)
            }
        }
        let scheduled = state.withLock { state in
            guard case .idle = state else { return false }
            state = .waiting(PendingWork(item: work))
            return true
        }
        guard scheduled else { return }
        if delay > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: work)
        } else {
            DispatchQueue.global().async(execute: work)
        }
    }

    private static func loadBody(of response: MockResponse, stub: StubDescription?) -> Result<Data, URLError> {
        let stub = stub.map { "the response for \($0)" } ?? "the unmocked policy's response"
        switch response.body {
        case .data(let data):
            return .success(data)
        case .failure(let problem):
            return .failure(URLError(.cannotParseResponse, message: "HTTPMock: \(stub) cannot be served: \(problem)"))
        case .file(let url):
            do {
                return .success(try Data(contentsOf: url))
            } catch {
                let exists = FileManager.default.fileExists(atPath: url.path)
                let where_ = url.isFileURL ? url.path : url.absoluteString
                return .failure(
                    URLError(
                        exists ? .noPermissionsToReadFile : .fileDoesNotExist,
                        message: "HTTPMock: \(stub) reads the file \(where_), which "
                            + (exists ? "cannot be read (\(error.localizedDescription)). Check its permissions." :
                                "does not exist. Relative paths resolve against the working directory "
                                + "\(FileManager.default.currentDirectoryPath); for test resources, use "
                                + ".file(named:extension:in: Bundle.module).")
                    )
                )
            }
        }
    }

    private func send(_ response: MockResponse, body: Data) {
        guard claimDelivery(), let url = request.url else { return }
        guard
            let http = HTTPURLResponse(
                url: url,
                statusCode: response.status.code,
                httpVersion: "HTTP/1.1",
                headerFields: response.headers
            )
        else {
            let error = URLError(.badServerResponse, message: "HTTPMock: cannot build a response for \(url)")
            client?.urlProtocol(self, didFailWithError: error)
            return
        }
        client?.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
        if !body.isEmpty {
            client?.urlProtocol(self, didLoad: body)
        }
        client?.urlProtocolDidFinishLoading(self)
    }

    private func fail(_ error: URLError) {
        guard claimDelivery() else { return }
        client?.urlProtocol(self, didFailWithError: error)
    }

    /// Takes the right to talk to the client once; false after `stopLoading()`.
    private func claimDelivery() -> Bool {
        state.withLock { state in
            switch state {
            case .stopped: return false
            case .idle, .waiting, .forwarding:
                state = .stopped
                return true
            }
        }
    }

    // MARK: Passthrough

    private func forward(using session: URLSession) {
        // No loop is possible: a mock's passthrough session is fixed before the mock exists, so
        // it can be another mock's session (which then answers) but never its own.
        let request = request
        let handle = Handle(self)
        // Creating or resuming another task from inside startLoading() deadlocks on Linux (both
        // wait for the queue startLoading() runs on): hop off it first.
        DispatchQueue.global().async {
            let task = session.dataTask(with: request) { data, response, error in
                handle.base.finishForwarding(data: data, response: response, error: error)
            }
            let started = handle.base.state.withLock { state in
                guard case .idle = state else { return false }
                state = .forwarding(task)
                return true
            }
            if started { task.resume() }
        }
    }

    private func finishForwarding(data: Data?, response: URLResponse?, error: (any Error)?) {
        guard claimDelivery(), let client else { return }
        if let error {
            client.urlProtocol(self, didFailWithError: error)
            return
        }
        if let response {
            client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        }
        if let data, !data.isEmpty {
            client.urlProtocol(self, didLoad: data)
        }
        client.urlProtocolDidFinishLoading(self)
    }
}

extension MockURLProtocol {
    /// Carries the protocol into the timer and completion closures that finish its load.
    // @unchecked Sendable: URLProtocol is not Sendable on Linux, but the loading system sets its
    // request and client before startLoading() and never changes them; the client's methods may
    // be called from any thread; and what this class adds (`state`) sits behind a Mutex.
    struct Handle: @unchecked Sendable {
        let base: MockURLProtocol

        init(_ base: MockURLProtocol) {
            self.base = base
        }
    }

    /// A scheduled delivery, cancelled by `stopLoading()`.
    // @unchecked Sendable: DispatchWorkItem is thread-safe (cancel() may be called from any
    // thread); swift-corelibs-libdispatch just does not annotate it.
    struct PendingWork: @unchecked Sendable {
        let item: DispatchWorkItem
    }

    /// Where one load stands; `stopped` once the client has been answered or the load cancelled.
    enum State: Sendable {
        case idle
        case waiting(PendingWork)
        case forwarding(URLSessionDataTask)
        case stopped
    }
}
