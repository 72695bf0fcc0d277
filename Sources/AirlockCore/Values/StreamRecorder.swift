import Dispatch
import Foundation
import HTTPTypes

/// Collects a response as it is relayed — its head, each piece of its body with the pause before
/// it, and how it ended — and makes what is recorded of it: the body, and the
/// ``ResponseStream`` when the body was a stream.
///
/// The one collector of relayed responses: a `URLProtocol` that forwards through a data delegate
/// (HTTPMock's passthrough, HTTPLogging), the mock server's passthrough and `airlock record`, and
/// a cassette's live verification. It is a value with no lock and no clock of its own: its owner
/// keeps it where the events arrive (a channel handler on its event loop, or behind the owner's
/// lock) and tells it each event with the time it happened, so it is tested without timers.
///
/// ```swift
/// var recorder = StreamRecorder(limit: 1 << 20)
/// recorder.head(status: 200, headers: [.contentType: "text/event-stream"], isStream: true)
/// recorder.piece(Data("data: hello\n\n".utf8))
/// if let recording = recorder.end(.closed) { … recording.stream … }
/// ```
///
/// What it keeps follows the recordings Airlock has always made: each part with the pause before
/// it (the first: after the head), the wait from the last part (or the head) to the end, and
/// whether the stream ended by itself or its client left it (``ResponseStream/Ending/closeAfter(_:)``,
/// ``ResponseStream/Ending/clientLeft(after:)``). A stream whose bytes pass ``limit`` is still
/// relayed whole by its owner, but its parts are let go: ``Recording/isOverLimit`` says so.
package struct StreamRecorder: Sendable {
    /// How a relayed response ended.
    package enum End: Hashable, Sendable {
        /// The real host ended it.
        case closed
        /// Its client left while it was still open: what the client got is what is recorded.
        case clientLeft
        /// It broke after its head (the real host's connection failed): the owner records the
        /// failure, not the response.
        case broken
    }

    /// The response as collected, once it has ended: what its owner records.
    package struct Recording: Sendable {
        /// The response's status.
        package let status: Int
        /// The response's fields, as the owner gave them with its head.
        package let headers: HTTPFields
        /// The parts, each with the pause before it; empty once the body passed the limit.
        package let parts: [StreamPart]
        /// How the response ended.
        package let end: End
        /// The wait from the last part (or the head) to the end, in seconds.
        package let wait: TimeInterval
        /// Whether the body is still in the content coding its fields name (a server relaying what
        /// it received): the parts of such a body mean nothing apart.
        package let bodyIsEncoded: Bool
        /// Whether the body passed the recorder's limit: relayed whole, but not recorded.
        package let isOverLimit: Bool
        /// Whether the owner relayed the body as a stream (it had no length).
        let isStream: Bool
        /// The fields that followed the body (gRPC's status, say).
        package let trailers: HTTPFields
        /// The protocol the response came over, as its owner gave it with its head.
        package let httpVersion: String?

        /// The whole body: every part, one after the other.
        package var body: Data {
            var body = Data(capacity: parts.reduce(0) { $0 + $1.bytes.count })
            for part in parts { body.append(part.bytes) }
            return body
        }

        /// How the stream ended after its last part: by itself after ``wait``, or its client left.
        package var ending: ResponseStream.Ending {
            end == .clientLeft ? .clientLeft(after: wait) : .closeAfter(wait)
        }

        /// The body as a stream, when it is kept as one: relayed as a stream, not in a content
        /// coding, and with a part — or, with none, still open when its client left, or ended a
        /// measurable while (``ResponseStream/measurableWait``) after its head (a standing stream
        /// the server closed).
        package var stream: ResponseStream? {
            guard isStream, !isOverLimit, !(bodyIsEncoded && headers.contentCoding != nil) else { return nil }
            guard !parts.isEmpty || end == .clientLeft || wait >= ResponseStream.measurableWait else { return nil }
            return ResponseStream(kind: ResponseStream.Kind(contentType: headers[.contentType]), parts: parts, ending: ending)
        }
    }

    /// The most bytes of parts kept; past it the parts are let go.
    package let limit: Int
    private var status: Int?
    private var headers = HTTPFields()
    private var isStream = false
    private var bodyIsEncoded = false
    private var parts: [StreamPart] = []
    private var bytes = 0
    private var isOverLimit = false
    /// When the head or the last part arrived.
    private var last: DispatchTime
    private var hasEnded = false
    private var trailers = HTTPFields()
    private var httpVersion: String?

    /// A recorder for one response.
    /// - Parameters:
    ///   - limit: The most bytes of parts kept (a body past it is relayed but not recorded).
    ///   - started: When the response was asked for: the first part's pause counts from the head,
    ///     or from here when no head came.
    package init(limit: Int = .max, started: DispatchTime = .now()) {
        self.limit = limit
        last = started
    }

    /// The response's head arrived.
    /// - Parameters:
    ///   - status: Its status.
    ///   - headers: Its fields, as they are to be recorded.
    ///   - isStream: Whether its body is relayed as a stream (it has no length).
    ///   - bodyIsEncoded: Whether the body stays in the content coding its fields name.
    ///   - httpVersion: The protocol it came over (a real server's), if it is to be recorded.
    ///   - time: When the head arrived.
    package mutating func head(status: Int, headers: HTTPFields, isStream: Bool, bodyIsEncoded: Bool, httpVersion: String? = nil, at time: DispatchTime = .now()) {
        self.status = status
        self.httpVersion = httpVersion
        self.headers = headers
        self.isStream = isStream
        self.bodyIsEncoded = bodyIsEncoded
        last = time
    }

    /// A piece of the body arrived (the bytes are copied into the part kept).
    /// - Parameters:
    ///   - bytes: The piece, as it was relayed.
    ///   - time: When it arrived.
    package mutating func piece(_ bytes: some Collection<UInt8>, at time: DispatchTime = .now()) {
        let pause = Self.seconds(from: last, to: time)
        last = time
        guard !isOverLimit, !hasEnded else { return }
        guard self.bytes + bytes.count <= limit else {
            isOverLimit = true
            parts = []
            return
        }
        self.bytes += bytes.count
        parts.append(StreamPart(bytes: Data(bytes), after: pause))
    }

    /// The fields that followed the body arrived, before its end.
    package mutating func trailers(_ fields: HTTPFields) {
        trailers = fields
    }

    /// The response ended: what to record, once (`nil` when no head arrived, or it ended already).
    /// - Parameters:
    ///   - end: How it ended.
    ///   - time: When it ended.
    package mutating func end(_ end: End, at time: DispatchTime = .now()) -> Recording? {
        guard let status, !hasEnded else { return nil }
        hasEnded = true
        defer { parts = [] }
        return Recording(
            status: status, headers: headers, parts: parts, end: end, wait: Self.seconds(from: last, to: time),
            bodyIsEncoded: bodyIsEncoded, isOverLimit: isOverLimit, isStream: isStream, trailers: trailers, httpVersion: httpVersion
        )
    }

    private static func seconds(from start: DispatchTime, to end: DispatchTime) -> TimeInterval {
        end.uptimeNanoseconds >= start.uptimeNanoseconds ? Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000_000 : 0
    }
}

extension StreamRecorder.Recording {
    /// Records the response with `recorder`: its status, fields, body and stream (a recording
    /// over the limit, or a broken one, is for its owner to record as the failure it is).
    /// - Returns: The response as recorded.
    @discardableResult
    package func record(with recorder: ExchangeRecorder) -> RecordedResponse {
        recorder.record(.response(status: status), headers: headers, body: body, bodyIsEncoded: bodyIsEncoded, stream: stream, trailers: trailers, httpVersion: httpVersion)
    }
}
