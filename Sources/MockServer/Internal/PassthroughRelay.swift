import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Dispatch
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Sends an unmatched request to its real host through the ``Forwarder`` (the `.passthrough`
/// policy, and recording), records the outcome, and hands on what the client is sent: the real
/// host's response as received, or a `502` saying why forwarding failed.
///
/// A response whose body has a `Content-Length` (or no body) is handed on whole. One without a
/// length — chunked or ended by the server closing: server-sent events, NDJSON, any stream — is
/// relayed live: its head at once, each piece as it arrives, so that an app being recorded
/// streams as it would without Airlock. Such a stream is recorded when it ends, with its pieces
/// and the time between them (``ResponseStream``, of kind `events` for `text/event-stream`),
/// unless its body is in a content coding (the pieces of a gzip stream mean nothing apart: the
/// body is recorded whole) or passes the body limit (it is relayed whole but not recorded, and the
/// journal says why). A stream may run any time as long as the real host sends something at
/// least every 60 seconds; it goes no faster than its client reads (the client's connection not
/// writable, the real host is not read: ``Forwarder/UpstreamControl/pauseReading()``).
struct PassthroughRelay {
    /// What the client is sent, whole.
    struct Answer: Sendable {
        let status: Int
        let headers: HTTPFields
        let body: Data
    }

    /// What the client is sent, as it comes: on the client connection's event loop, in order.
    enum Delivery: Sendable {
        /// The whole answer (or a `502`), already recorded.
        case answer(Answer)
        /// The head of a stream: the body follows in pieces, without a length.
        case streamHead(status: Int, headers: HTTPFields)
        /// A piece of the stream, to send and flush at once.
        case piece(Data)
        /// The stream ended, and is recorded.
        case end(status: Int)
        /// The stream broke after its head (recorded as a failure): close the connection.
        case broken(status: Int)
    }

    let forwarder: Forwarder
    /// The largest response body accepted from the real host, in bytes (for a stream: recorded).
    let limit: Int
    /// How long a whole answer may take, and how long a stream may go without a piece.
    var timeout: TimeAmount = .seconds(60)

    /// Forwards `incoming` (whose head the client sent as `head`) and hands `deliver` what the
    /// client is sent, on `eventLoop`, as it arrives.
    ///
    /// - Parameters:
    ///   - recording: Whether a recording cassette keeps the exchange: the real host is then
    ///     offered only the content codings Airlock reads, so that secrets can be redacted.
    ///   - target: The URL to send it to instead of its own (a stub that proxies).
    ///   - streams: Whether a body without a length is relayed live (`false`: collected whole).
    /// - Returns: The control that stops the forward when the client goes away and pauses it while the client is not reading.
    @discardableResult
    func relay(
        _ incoming: IncomingRequest,
        to target: String? = nil,
        head: HTTPRequestHead,
        recording: Bool,
        recorder: ExchangeRecorder,
        on eventLoop: any EventLoop,
        streams: Bool,
        deliver: @escaping @Sendable (Delivery) -> Void
    ) -> Forwarder.UpstreamControl {
        var fields: [(name: String, value: String)] = []
        for field in head.headers where !Self.hopByHop.contains(field.name.lowercased()) {
            if recording, field.name.lowercased() == "accept-encoding" {
                fields.append((field.name, ContentCoding.readable(acceptEncoding: field.value)))
                continue
            }
            fields.append((field.name, field.value))
        }
        let url = target ?? incoming.url
        let stream = StreamRecording(limit: limit)
        return forwarder.execute(method: head.method, url: url, headers: fields, body: incoming.body, limit: limit, timeout: timeout, streams: streams) { event in
            // Recorded here, on the forwarding connection's loop, before the client is told.
            let delivery: Delivery
            switch event {
            case .whole(let response):
                let headers = Self.relayedFields(response.headers)
                let body = Data(response.body.readableBytesView)
                let status = Int(response.status.code)
                recorder.record(.response(status: status), headers: headers, body: body, bodyIsEncoded: true)
                delivery = .answer(Answer(status: status, headers: headers, body: body))
            case .streamHead(let head):
                let headers = Self.relayedFields(head.headers)
                stream.begin(status: Int(head.status.code), headers: headers)
                delivery = .streamHead(status: Int(head.status.code), headers: headers)
            case .piece(let buffer):
                let piece = Data(buffer.readableBytesView)
                stream.add(piece)
                delivery = .piece(piece)
            case .end:
                guard let status = stream.record(with: recorder, clientLeft: false) else { return }
                delivery = .end(status: status)
            case .cancelled:
                // A stream the client left is recorded as far as the client saw it, with when it left.
                guard let status = stream.record(with: recorder, clientLeft: true) else { return }
                delivery = .end(status: status)
            case .failed(let error):
                let failure = ExchangeFailure.forwardFailed(target: url, error: "\(error)")
                recorder.record(.failure(failure))
                let message = failure.description + "\n"
                if let status = stream.status {
                    delivery = .broken(status: status)
                } else {
                    delivery = .answer(Answer(status: 502, headers: [.contentType: "text/plain"], body: Data(message.utf8)))
                }
            }
            eventLoop.execute { deliver(delivery) }
        }
    }

    /// Every field in order, repeated ones apart, but those of the connection and the length: the
    /// body as received (still in any content coding the server applied) is framed anew.
    private static func relayedFields(_ headers: HTTPHeaders) -> HTTPFields {
        HTTPFields(pairs: headers.lazy
            .filter { !Self.hopByHop.contains($0.name.lowercased()) && $0.name.lowercased() != "content-length" }
            .map { (name: $0.name, value: $0.value) })
    }

    /// Connection-level fields that a proxy does not pass on.
    static let hopByHop: Set<String> = ["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"]
}

/// A stream being relayed: its head, its pieces with the time before each (up to the limit), and
/// how it ended: the time from the last piece to the upstream's end, or to the client leaving.
/// Touched by one forwarding connection's events, one at a time.
private final class StreamRecording: Sendable {
    private struct State {
        var status: Int?
        var headers = HTTPFields()
        var parts: [StreamPart] = []
        var bytes = 0
        var isOverLimit = false
        var last = DispatchTime.now()
        var isRecorded = false
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// The stream's status, once its head arrived.
    var status: Int? { state.withLock { $0.status } }

    func begin(status: Int, headers: HTTPFields) {
        state.withLock { state in
            state.status = status
            state.headers = headers
            state.last = .now()
        }
    }

    func add(_ piece: Data) {
        state.withLock { state in
            let now = DispatchTime.now()
            let pause = Double(now.uptimeNanoseconds - state.last.uptimeNanoseconds) / 1_000_000_000
            state.last = now
            guard !state.isOverLimit else { return }
            guard state.bytes + piece.count <= limit else {
                state.isOverLimit = true
                state.parts = []
                return
            }
            state.bytes += piece.count
            state.parts.append(StreamPart(bytes: piece, after: pause))
        }
    }

    /// Records the stream once (its parts and its ending, or why it is not kept); returns its
    /// status, `nil` when no stream began.
    /// - Parameter clientLeft: Whether the client left while the stream was still open (else the
    ///   upstream ended it).
    func record(with recorder: ExchangeRecorder, clientLeft: Bool) -> Int? {
        let taken = state.withLock { state -> State? in
            guard state.status != nil, !state.isRecorded else { return nil }
            state.isRecorded = true
            defer { state.parts = [] }
            return state
        }
        guard let taken, let status = taken.status else { return nil }
        if taken.isOverLimit {
            recorder.record(.failure(.notRecorded(.stream, limit: limit)))
            return status
        }
        // From the last piece (or the head) to the end: a replay waits as long before it ends.
        let wait = Double(DispatchTime.now().uptimeNanoseconds - taken.last.uptimeNanoseconds) / 1_000_000_000
        let ending: ResponseStream.Ending = clientLeft ? .clientLeft(after: wait) : .closeAfter(wait)
        let stream = ResponseStream(kind: ResponseStream.Kind(contentType: taken.headers[.contentType]), parts: taken.parts, ending: ending)
        // The pieces of a body in a content coding mean nothing apart: it is recorded whole. A
        // stream with no piece is kept as one when it stayed open: its client left, or its end
        // came a measurable while after its head (a standing stream the server closed).
        let keepsStream = taken.headers.contentCoding == nil && (!stream.parts.isEmpty || clientLeft || wait >= ResponseStream.measurableWait)
        recorder.record(.response(status: status), headers: taken.headers, body: stream.body, bodyIsEncoded: true, stream: keepsStream ? stream : nil)
        return status
    }
}
