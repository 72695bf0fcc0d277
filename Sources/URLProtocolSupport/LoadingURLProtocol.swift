import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the mock and logging protocols share: answering the client exactly once (never after
/// `stopLoading()`), reading bodies that travel outside the request, timers, and forwarding to a
/// real session — all without blocking the process-wide queue `startLoading()` runs on.
open class LoadingURLProtocol: URLProtocol {
    private let state = Locked(State.idle)

    override open class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme else { return false }
        // Case-insensitive "http" or "https", without allocating a lowercased copy.
        let utf8 = scheme.utf8
        guard utf8.count == 4 || utf8.count == 5 else { return false }
        return zip(utf8, "https".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    override open class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override open func stopLoading() {
        let previous = state.withLock { state in
            defer { state = .stopped }
            return state
        }
        switch previous {
        case .waiting(let work): work.item.cancel()
        case .forwarding(let task):
            // Off this queue: stopLoading() runs on the process-wide queue every session's work
            // queue targets, and cancel() waits for the forwarding session's (a client that
            // cancels its task mid-stream crashed the process in __DISPATCH_WAIT_FOR_QUEUE__).
            DispatchQueue.global().async { task.cancel() }
        case .idle, .stopped: break
        }
    }

    /// Runs `work` on a global queue after `delay` seconds, unless the load stops first.
    package func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        let item = DispatchWorkItem(block: work)
        let scheduled = state.withLock { state in
            switch state {
            case .idle, .waiting:
                // A redirect's next hop may schedule again after a delayed first hop.
                state = .waiting(PendingWork(item: item))
                return true
            case .forwarding, .stopped:
                return false
            }
        }
        guard scheduled else { return }
        if delay > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: item)
        } else {
            DispatchQueue.global().async(execute: item)
        }
    }

    /// Whether the load was stopped or already answered.
    package var isStopped: Bool {
        state.withLock { state in
            if case .stopped = state { return true }
            return false
        }
    }

    /// Takes the right to talk to the client once; false after `stopLoading()`.
    package func claimDelivery() -> Bool {
        state.withLock { state in
            switch state {
            case .stopped: return false
            case .idle, .waiting, .forwarding:
                state = .stopped
                return true
            }
        }
    }

    /// The request to send on: with `body` in place of a stream that was read for the journal.
    private static func sending(_ request: URLRequest, body: Data?) -> URLRequest {
        var request = request
        if request.httpBody == nil, let body {
            // The stream was read for the journal; send the bytes it held.
            request.httpBodyStream = nil
            request.httpBody = body
        }
        return request
    }

    /// Sends the request (with `body` when it had to be read from a stream or task) through
    /// `session`, reports the outcome, and relays it to the client.
    package func forward(
        _ request: URLRequest,
        body: Data?,
        using session: URLSession,
        report: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        let request = Self.sending(request, body: body)
        let reference = LoadReference(self)
        // The client's own session must outlive the forward: corelibs reads it, unchecked, when
        // the answer is relayed, and a test that drops its session (or its mock) while the real
        // server is still answering would otherwise crash the process there.
        let owner = SessionReference(owningSession)
        // Creating or resuming another task from inside startLoading() deadlocks on Linux (both
        // wait for the queue startLoading() runs on): hop off it first.
        DispatchQueue.global().async { [request] in
            let task = session.dataTask(with: request) { data, response, error in
                let loader = reference.load
                guard loader.claimDelivery() else { return }
                report(data, response, error)
                withExtendedLifetime(owner) {
                    loader.relay(data: data, response: response, error: error)
                }
            }
            let started = reference.load.state.withLock { state in
                switch state {
                case .idle, .waiting:
                    // (Waiting: the delayed work that forwards is what runs now.)
                    state = .forwarding(task)
                    return true
                case .forwarding, .stopped:
                    return false
                }
            }
            if started { task.resume() }
        }
    }

    /// Sends the request (with `body` when it had to be read from a stream or task) through
    /// `forwarder`, hands the client the response and each piece of the body as it arrives (for
    /// a client that takes pieces: a data delegate), and reports the outcome once it ends (see
    /// ``ForwardedInPieces``) — also when the client leaves first (cancels its task): then what
    /// it got is reported, as a stream its client left.
    package func forward(
        _ request: URLRequest,
        body: Data?,
        inPiecesThrough forwarder: PieceForwarder,
        report: @escaping @Sendable (ForwardedInPieces) -> Void
    ) {
        let request = Self.sending(request, body: body)
        let reference = LoadReference(self)
        let owner = SessionReference(owningSession)
        // The session's delegate queue tells one event at a time; the lock hands the recorder
        // from one of its threads to the next.
        let received = Locked<(response: HTTPURLResponse?, stream: StreamRecorder)>((nil, StreamRecorder()))
        let handlers = PieceForwarder.Handlers(
            response: { response in
                if let http = response as? HTTPURLResponse {
                    // The session has decoded any content coding: the parts are the body's own.
                    let isStream = http.value(forHTTPHeaderField: "Content-Length") == nil
                    received.withLock {
                        $0.response = http
                        $0.stream.head(status: http.statusCode, headers: http.recordedFields, isStream: isStream, bodyIsEncoded: false)
                    }
                }
                let loader = reference.load
                guard let client = loader.client, !loader.isStopped, loader.task?.state == .running else { return }
                client.urlProtocol(loader, didReceive: response, cacheStoragePolicy: .notAllowed)
            },
            piece: { data in
                received.withLock { $0.stream.piece(data) }
                let loader = reference.load
                guard let client = loader.client, !loader.isStopped, loader.task?.state == .running else { return }
                client.urlProtocol(loader, didLoad: data)
            },
            end: { error in
                let loader = reference.load
                let claimed = loader.claimDelivery()
                // The client left (its task was cancelled, which stopped this load and the
                // forward): what it got is reported, when a response had begun.
                let end: StreamRecorder.End = claimed ? (error == nil ? .closed : .broken) : .clientLeft
                let (response, recording) = received.withLock { ($0.response, $0.stream.end(end)) }
                guard claimed else {
                    guard let response, let recording else { return }
                    return report(ForwardedInPieces(response: response, recording: recording, error: nil))
                }
                report(ForwardedInPieces(response: response, recording: recording, error: error))
                withExtendedLifetime(owner) {
                    guard let client = loader.client, loader.task?.state == .running else { return }
                    if let error {
                        client.urlProtocol(loader, didFailWithError: error)
                    } else {
                        client.urlProtocolDidFinishLoading(loader)
                    }
                }
            }
        )
        // Creating or resuming another task from inside startLoading() deadlocks on Linux: hop off it first.
        DispatchQueue.global().async { [request] in
            let task = forwarder.dataTask(with: request, handlers: handlers)
            let started = reference.load.state.withLock { state in
                switch state {
                case .idle, .waiting:
                    state = .forwarding(task)
                    return true
                case .forwarding, .stopped:
                    return false
                }
            }
            if started { task.resume() } else { task.cancel() }
        }
    }

    private func relay(data: Data?, response: URLResponse?, error: (any Error)?) {
        // A task that is no longer running (cancelled, or its session torn down) has nobody to
        // relay to: corelibs would look up its session unchecked.
        guard let client, task?.state == .running else { return }
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

extension LoadingURLProtocol {
    /// Carries the protocol into the timer and completion closures that finish its load.
    // @unchecked Sendable: URLProtocol is not Sendable on Linux, but the loading system sets its
    // request and client before startLoading() and never changes them; the client's methods may
    // be called from any thread; and what these classes add (`state`) sits behind a Locked (pthread mutex).
    package struct LoadReference<Load: LoadingURLProtocol>: @unchecked Sendable {
        package let load: Load

        package init(_ load: Load) {
            self.load = load
        }
    }

    /// The client's session, held while a forward is under way.
    // @unchecked Sendable: only kept alive, never used.
    struct SessionReference: @unchecked Sendable {
        let session: URLSession?

        init(_ session: URLSession?) {
            self.session = session
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

extension HTTPURLResponse {
    /// The header fields as `HTTPURLResponse` keeps them: one dictionary, so repeated fields
    /// arrive joined and in no order of their own (sorted by name here, for stable files).
    package var recordedFields: HTTPFields {
        var headers: [String: String] = [:]
        for (name, value) in allHeaderFields {
            headers["\(name)"] = "\(value)"
        }
        return HTTPFields(sortedDictionary: headers)
    }
}

/// A load that reads its request's body before it answers: `withRequestBody` hands the body to
/// the load as the subclass it is (a protocol extension's `Self`), so no caller casts it back.
package protocol RequestBodyReading: LoadingURLProtocol {}

extension RequestBodyReading {
    /// Calls `body` with the complete request body: at once when it is `httpBody` or absent, on a
    /// global queue when it is a stream or an upload task's body (reading may block).
    package func withRequestBody(_ body: @escaping @Sendable (Self, Data?) -> Void) {
        guard request.httpBody == nil, RequestBody.travelsOutsideTheRequest(request, task: task) else {
            return body(self, request.httpBody)
        }
        let reference = LoadReference(self)
        DispatchQueue.global().async {
            let loader = reference.load
            body(loader, RequestBody.read(loader.request, task: loader.task))
        }
    }
}

/// What a forward in pieces ended with: the real host's response, what the ``StreamRecorder``
/// made of its body (its pieces with the pause before each, and how it ended), or the error. The
/// one place a URLSession load turns what it relayed into what is recorded.
// @unchecked Sendable: HTTPURLResponse is an immutable value object once a task hands it over;
// swift-corelibs-foundation just does not annotate it.
package struct ForwardedInPieces: @unchecked Sendable {
    /// The real host's response, once its head arrived.
    package let response: HTTPURLResponse?
    /// The response as recorded: its body's parts and how it ended (the host ended it, or the
    /// client left).
    package let recording: StreamRecorder.Recording?
    /// Why the forward failed, if it did (never when the client left).
    package let error: (any Error)?

    /// The whole body; `nil` after an error.
    package var data: Data? { error == nil ? recording?.body ?? Data() : nil }

    /// The body as a stream, when it was one: it had no `Content-Length` and came in pieces (or
    /// its client left it open). The session has already decoded any content coding.
    package var stream: ResponseStream? { recording?.stream }

    /// Records the outcome: the failure, or the response with its body and stream.
    /// - Parameter request: The request that was forwarded, which a failure names.
    package func record(with recorder: ExchangeRecorder, forwarding request: URLRequest) {
        if let error {
            recorder.record(.failure(.forwarding(request, failedWith: error)))
        } else if let recording {
            recording.record(with: recorder)
        }
    }
}
