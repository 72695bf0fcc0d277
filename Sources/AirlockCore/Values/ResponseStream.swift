import AirlockBase
import Foundation

/// A body sent in parts, each after a pause of its own: server-sent events, NDJSON lines, any
/// chunked body an app reads as it arrives.
///
/// A server sends a stream with no `Content-Length` (chunked) and flushes each part as it goes;
/// a `URLSession` data delegate receives each part in its own `urlSession(_:dataTask:didReceive:)`.
/// Make one with ``MockResponse/events(_:status:lifetime:delivery:headers:ending:)`` or
/// ``MockResponse/stream(_:contentType:status:lifetime:delivery:headers:ending:)``.
public struct ResponseStream: Hashable, Sendable {
    /// What the body's parts are: the stream's kind, which picks its default `Content-Type` and
    /// how a recording shows it.
    public enum Kind: String, Hashable, Sendable {
        /// Server-sent events (`text/event-stream`).
        case events
        /// Parts of any body: NDJSON lines, a chunked download.
        case chunks

        /// The kind of a body of this `Content-Type`: ``events`` for `text/event-stream`,
        /// ``chunks`` for any other (or none).
        /// - Parameter contentType: The `Content-Type` field's value, parameters and all.
        public init(contentType: String?) {
            let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            self = type == "text/event-stream" ? .events : .chunks
        }
    }

    /// What happens after the last part.
    public enum Ending: Hashable, Sendable {
        /// The response ends: the default.
        case close
        /// The response stays open until the client goes away, as a live feed does.
        case keepOpen
        /// The response stays open until the test opens the gate (or the client goes away).
        case gate(StreamGate)
        /// The response ends this many seconds after the last part (after the head, when there
        /// is none): how a recorded stream ends whose server waited before ending it.
        case closeAfter(TimeInterval)
        /// The recording's client left this many seconds after the last part (after the head,
        /// when there is none), while the stream was still open: a replay keeps the stream open
        /// as long — or until its own client leaves — and then ends it, so that a client that
        /// listens (an `EventSource`, an MCP client's standing stream) is not told to reconnect.
        case clientLeft(after: TimeInterval)

        /// How long after the last part the response ends by itself, for the endings that say.
        public var wait: TimeInterval? {
            switch self {
            case .close: 0
            case .closeAfter(let seconds), .clientLeft(let seconds): seconds
            case .keepOpen, .gate: nil
            }
        }
    }

    /// The stream's kind.
    public let kind: Kind
    /// The parts, in the order they are sent.
    public let parts: [StreamPart]
    /// What happens after the last part.
    public let ending: Ending

    /// A stream of `parts`.
    /// - Parameters:
    ///   - kind: What the parts are.
    ///   - parts: The parts, each with the pause before it.
    ///   - ending: What happens after the last part. Defaults to ``Ending/close``.
    public init(kind: Kind, parts: [StreamPart], ending: Ending = .close) {
        self.kind = kind
        self.parts = parts
        self.ending = ending
    }

    /// The whole body: every part, one after the other.
    public var body: Data {
        var body = Data(capacity: parts.reduce(0) { $0 + $1.bytes.count })
        for part in parts { body.append(part.bytes) }
        return body
    }

    /// The least wait between a stream's head and its end that a recording of a stream with no
    /// part keeps as a stream (1 ms): below it, the body was empty and the end came at once.
    package static let measurableWait: TimeInterval = 0.001

    /// From the head to the last part, in seconds (the ending's own wait not counted).
    public var duration: TimeInterval { parts.reduce(0) { $0 + $1.delay } }

    /// The same stream with every pause multiplied by `factor`: `0` sends every part at once,
    /// `2` at half the speed. The parts keep their bytes and boundaries.
    public func paced(by factor: Double) -> ResponseStream {
        let factor = factor.isFinite ? Swift.max(0, factor) : 1
        let paced: Ending =
            switch ending {
            case .closeAfter(let seconds): .closeAfter(seconds * factor)
            case .clientLeft(let seconds): .clientLeft(after: seconds * factor)
            case .close, .keepOpen, .gate: ending
            }
        return ResponseStream(kind: kind, parts: parts.map { StreamPart(bytes: $0.bytes, after: $0.delay * factor) }, ending: paced)
    }
}

/// One part of a ``ResponseStream``: its bytes, sent after a pause.
public struct StreamPart: Hashable, Sendable {
    /// The part's bytes, sent as they are.
    public let bytes: Data
    /// The pause before the part, in seconds: after the previous part, or after the head for the
    /// first.
    public let delay: TimeInterval

    /// A part of raw bytes.
    /// - Parameters:
    ///   - bytes: What the part sends.
    ///   - delay: The pause before it, in seconds, from 0 to ``ResponseLimits/maximumSeconds``.
    public init(bytes: Data, after delay: TimeInterval = 0) {
        self.bytes = bytes
        self.delay = delay
    }

    /// A part of UTF-8 text, such as one NDJSON line with its `\n`.
    /// - Parameters:
    ///   - text: What the part sends, as UTF-8.
    ///   - delay: The pause before it, in seconds.
    public init(_ text: String, after delay: TimeInterval = 0) {
        self.init(bytes: Data(text.utf8), after: delay)
    }
}

/// One server-sent event, as the `text/event-stream` format spells it: `event`, `id`, `retry`
/// and `data` fields (one `data:` line per line of ``data``), or a comment, then a blank line.
///
/// ```swift
/// MockResponse.events([
///     ServerSentEvent(#"{"delta":"Hel"}"#, id: "1"),
///     ServerSentEvent(#"{"delta":"lo"}"#, id: "2", after: 0.05),
///     ServerSentEvent("[DONE]", after: 0.05),
/// ])
/// ```
public struct ServerSentEvent: Hashable, Sendable {
    /// The event's data; each line becomes a `data:` field. `nil` sends none (an event that only
    /// sets `retry`, say).
    public let data: String?
    /// The event's type (`event:`); `nil` for the default, `message`.
    public let event: String?
    /// The event's id (`id:`), which a client sends back as `Last-Event-ID` when it reconnects.
    public let id: String?
    /// How long a client waits before it reconnects, in milliseconds (`retry:`).
    public let retry: Int?
    /// A comment line (`: …`), which clients ignore: a keep-alive.
    public let comment: String?
    /// The pause before the event, in seconds.
    public let delay: TimeInterval

    /// An event.
    /// - Parameters:
    ///   - data: The event's data; each line becomes a `data:` field.
    ///   - event: The event's type, if not `message`.
    ///   - id: The event's id.
    ///   - retry: The reconnection time to set, in milliseconds.
    ///   - delay: The pause before the event, in seconds.
    public init(_ data: String? = nil, event: String? = nil, id: String? = nil, retry: Int? = nil, after delay: TimeInterval = 0) {
        self.init(data: data, event: event, id: id, retry: retry, comment: nil, delay: delay)
    }

    /// A comment, which clients ignore (a keep-alive).
    /// - Parameters:
    ///   - text: The comment's text.
    ///   - delay: The pause before it, in seconds.
    public static func comment(_ text: String, after delay: TimeInterval = 0) -> ServerSentEvent {
        ServerSentEvent(data: nil, event: nil, id: nil, retry: nil, comment: text, delay: delay)
    }

    package init(data: String?, event: String?, id: String?, retry: Int?, comment: String?, delay: TimeInterval) {
        self.data = data
        self.event = event
        self.id = id
        self.retry = retry
        self.comment = comment
        self.delay = delay
    }

    /// The event as the stream sends it: its fields, then the blank line that ends it.
    public var encoded: Data {
        var text = ""
        if let comment {
            for line in Self.lines(comment) { text += ":\(line.isEmpty ? "" : " ")\(line)\n" }
        }
        if let event { text += "event: \(event)\n" }
        if let id { text += "id: \(id)\n" }
        if let retry { text += "retry: \(retry)\n" }
        if let data {
            for line in Self.lines(data) { text += "data: \(line)\n" }
        }
        text += "\n"
        return Data(text.utf8)
    }

    /// The part the event is sent as.
    public var part: StreamPart { StreamPart(bytes: encoded, after: delay) }

    /// Why the event cannot be sent as it is, if it cannot: a field the format cannot carry.
    package var problem: String? {
        if let event, event.contains(where: \.isNewline) { return "the event type \(event.debugDescription) holds a line break, which would end the field" }
        if let id, id.contains(where: { $0.isNewline || $0 == "\0" }) {
            return "the event id \(id.debugDescription) holds a line break or NUL, which clients reject"
        }
        if let retry, retry < 0 { return "the retry \(retry) is negative; give milliseconds ≥ 0" }
        return ResponseLimits.durationProblem(delay, named: "the pause before an event")
    }

    /// `text` split at `\r\n`, `\r` and `\n`, as the format splits lines.
    private static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }
}

/// A gate a test opens to end a stream that stays open (``ResponseStream/Ending/gate(_:)``):
/// every response waiting on it ends when it opens, and one that reaches it later ends at once.
///
/// ```swift
/// let done = StreamGate()
/// HTTPMock.shared.registerResponses {
///     Host("api.example.com") {
///         Path("/feed") { MockResponse.events([ServerSentEvent("hello")], ending: .gate(done)) }
///     }
/// }
/// // … the app reads "hello" and waits for more …
/// done.open()
/// ```
public final class StreamGate: Hashable, Sendable {
    private let state = Locked<(isOpen: Bool, waiting: [@Sendable () -> Void])>((false, []))

    /// A closed gate.
    public init() {}

    /// Opens the gate: every stream waiting on it ends now, and every later one at once.
    public func open() {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for work in waiting { work() }
    }

    /// Whether the gate is open.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Runs `work` when the gate opens: now, when it is open already.
    package func whenOpen(_ work: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.isOpen { return true }
            state.waiting.append(work)
            return false
        }
        if runNow { work() }
    }

    /// Gates are equal when they are the same gate.
    public static func == (lhs: StreamGate, rhs: StreamGate) -> Bool { lhs === rhs }

    /// Hashes the gate's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
