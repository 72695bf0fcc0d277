import AirlockBase
import Foundation
import HTTPTypes

/// A request a mock received, as the journal keeps it: what the app sent, when, and which stub
/// (if any) answered.
///
/// ```swift
/// let posts = mock.requests(matching: .post && .path("/users"))
/// #expect(posts.first?.bodyText == #"{"name":"Alice"}"#)
/// ```
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// A query parameter; repeated names stay separate items, in order.
    public struct QueryItem: Hashable, Sendable {
        /// The parameter's name, percent-decoded.
        public let name: String
        /// The parameter's value, percent-decoded; `nil` for a bare `?flag`.
        public let value: String?

        /// Creates a query item.
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// A header field as sent.
    public struct Header: Hashable, Sendable {
        /// The field name, as the client spelled it.
        public let name: String
        /// The field value.
        public let value: String

        /// Creates a header field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The request's position in its mock's journal, from 1.
    public internal(set) var sequence: Int {
        get { storage.sequence }
        set { writable.sequence = newValue }
    }
    /// The HTTP method, uppercased.
    public var method: String { storage.request.method }
    /// The absolute URL.
    public internal(set) var url: String {
        get { storage.request.url }
        set { writable.request.url = newValue }
    }
    /// The host, lowercased.
    public var host: String { storage.request.host }
    /// The percent-decoded path.
    public var path: String { storage.request.path }
    /// The query parameters in order.
    public internal(set) var queryItems: [QueryItem] {
        get { storage.request.queryItems }
        set { writable.request.queryItems = newValue }
    }
    /// The query as lists of values per name, each list sorted so that order does not matter.
    var queryValues: [String: [String]] {
        QueryConstraint.lists(queryItems.lazy.map { (name: $0.name, value: $0.value) })
    }

    /// The header fields: in the order the client set them where the transport keeps an order,
    /// sorted by name where it keeps a dictionary (`URLRequest`). Settable, for a cassette's
    /// `beforeRecord` closure.
    public var headers: [Header] {
        get { storage.request.headerFields.fields.map { Header(name: $0.name, value: $0.value) } }
        set { writable.request.headerFields = .list(newValue.map { (name: $0.name, value: $0.value) }) }
    }
    /// The complete body, however it was sent (`httpBody`, a body stream, or an upload task);
    /// `nil` when there was none. When the journal's capacity limits body sizes, a longer body
    /// keeps its first bytes only (see ``bodySize`` and ``bodyDigest``). Settable, for a
    /// cassette's `beforeRecord` closure.
    public var body: Data? {
        get { storage.request.body }
        set { writable.request.body = newValue }
    }
    /// The body's full length in bytes, also when only a prefix is kept.
    public var bodySize: Int { storage.truncatedBody?.size ?? body?.count ?? 0 }
    /// For a body kept as a prefix: a digest of the whole body (64-bit FNV-1a, hexadecimal), to
    /// tell two long bodies apart. `nil` when the body is kept whole.
    public var bodyDigest: String? { storage.truncatedBody?.digest }
    /// When the request reached the mock.
    public var date: Date { storage.date }
    /// The stub that answered, such as `host "api.example.com", path "/users"`; `nil` when no
    /// stub matched and the unmocked policy answered.
    public var stub: String? { answeredBy?.shown(by: .standard) }
    /// The id a format gave the stub that answered (``Registration/stubID``), if it had one.
    package var stubID: UUID? { answeredBy?.stubID }
    /// The API operation the request belongs to: the one a generated client named (through
    /// `AirlockTransport`), or the one a contract checking the mock (`validate(against:)`) found
    /// once the exchange ended (its `operationId`, or `GET /pets/{petId}`). HAR exports keep it
    /// as `_operationId`.
    public internal(set) var operationID: String? {
        get { storage.operationID ?? storage.request.operationID }
        set { writable.operationID = newValue }
    }

    /// What the journal's observers found wrong with the exchange once it ended — a contract's
    /// violations, each with its JSON pointer — one line each; empty when nothing was.
    package var problems: [String] {
        get { storage.problems }
        set { writable.problems = newValue }
    }

    /// The frames of the WebSocket this request opened, in the order they were sent, with their
    /// times; empty for any other request. The journal adds each frame as it passes (a copy taken
    /// earlier keeps the frames it had).
    public package(set) var webSocketFrames: [RecordedWebSocketFrame] {
        get { storage.webSocketFrames }
        set {
            let storage = writable
            storage.webSocketFrames = newValue
            storage.webSocketFrameBytes = newValue.reduce(0) { $0 + $1.size }
        }
    }

    /// How many frames of the WebSocket this request opened the journal did not keep: those that
    /// came once the frames kept had reached the journal's limit for one body
    /// (``JournalCapacity/bodyBytes``, 1 MiB in `airlock serve`). `0` when every frame was kept;
    /// the conversation itself went on, and the client got every frame.
    public package(set) var webSocketFramesDropped: Int {
        get { storage.webSocketFramesDropped }
        set { writable.webSocketFramesDropped = newValue }
    }

    /// The webhooks the stub that answered sent (or was refused), in the order they ended, each
    /// with its outcome: the receiver's status, a failure, or why Airlock refused it. The journal
    /// adds each as it ends, after the response (a copy taken earlier keeps those it had).
    public package(set) var webhooks: [RecordedWebhook] {
        get { storage.webhooks }
        set { writable.webhooks = newValue }
    }

    /// The bytes of the frames in ``webSocketFrames``, as ``RecordedWebSocketFrame/size`` counts them.
    package var webSocketFrameBytes: Int { storage.webSocketFrameBytes }

    /// Adds a frame to ``webSocketFrames``, or counts it in ``webSocketFramesDropped`` when the
    /// frames kept would pass `limit` bytes. Returns whether it was kept.
    package mutating func appendWebSocketFrame(_ frame: RecordedWebSocketFrame, limit: Int?) -> Bool {
        let storage = writable
        if let limit, storage.webSocketFrameBytes + frame.size > limit {
            storage.webSocketFramesDropped += 1
            return false
        }
        storage.webSocketFrames.append(frame)
        storage.webSocketFrameBytes += frame.size
        return true
    }

    /// The bytes the journal counts for this entry toward ``JournalCapacity/bytes``: its body (as
    /// kept), its response's body and, for a stream, its parts (kept apart from the body), and
    /// its WebSocket frames.
    package var journalBytes: Int {
        var bytes = (body?.count ?? 0) + storage.webSocketFrameBytes
        if let response = storage.response {
            bytes += response.body.count
            if let stream = response.stream { bytes += stream.parts.reduce(0) { $0 + $1.bytes.count } }
        }
        return bytes
    }

    /// The messages of the WebSocket this request opened that the client sent, in order.
    public var webSocketMessagesFromClient: [WebSocketMessage] {
        webSocketFrames.lazy.filter { $0.direction == .fromClient }.compactMap(\.message)
    }

    /// The stub that answered, described only when someone asks.
    var answeredBy: StubDescription? {
        get { storage.answeredBy }
        set { writable.answeredBy = newValue }
    }
    /// What the client got back, once it has been delivered. Settable, for a cassette's
    /// `beforeRecord` closure.
    public var response: RecordedResponse? {
        get { storage.response }
        set { writable.response = newValue }
    }

    /// The request as its transport read it, with what the journal adds, behind one reference:
    /// every request is recorded, and an entry travels through the journal, the transports and
    /// the tests' queries by copies — each one a single retain. Changes copy the storage first
    /// unless this value is its only owner (copy on write).
    private var storage: Storage

    /// The storage, made this value's own before it is changed.
    private var writable: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    // @unchecked Sendable: a storage is changed only through `writable`, by the one value that
    // owns it; shared storages are never changed.
    private final class Storage: @unchecked Sendable {
        var sequence: Int
        /// The request exactly as the transport read it, once: the journal keeps this value
        /// rather than a copy of its fields (the query is parsed, and a header dictionary ordered,
        /// only when someone reads them).
        var request: IncomingRequest
        /// The length and digest of a body kept as a prefix.
        var truncatedBody: (size: Int, digest: String)?
        let date: Date
        var answeredBy: StubDescription?
        var response: RecordedResponse?
        var operationID: String?
        var problems: [String] = []
        var webSocketFrames: [RecordedWebSocketFrame] = []
        var webSocketFrameBytes = 0
        var webSocketFramesDropped = 0
        var webhooks: [RecordedWebhook] = []

        init(sequence: Int, request: IncomingRequest, date: Date) {
            self.sequence = sequence
            self.request = request
            self.date = date
        }

        func copy() -> Storage {
            let copy = Storage(sequence: sequence, request: request, date: date)
            copy.truncatedBody = truncatedBody
            copy.answeredBy = answeredBy
            copy.response = response
            copy.operationID = operationID
            copy.problems = problems
            copy.webSocketFrames = webSocketFrames
            copy.webSocketFrameBytes = webSocketFrameBytes
            copy.webSocketFramesDropped = webSocketFramesDropped
            copy.webhooks = webhooks
            return copy
        }
    }

    package init(sequence: Int, request: IncomingRequest, date: Date) {
        storage = Storage(sequence: sequence, request: request, date: date)
    }

    /// The request as its transport read it.
    package var incoming: IncomingRequest { storage.request }

    /// The protocol the request came in with over a socket (`MockServer`, `airlock serve`):
    /// `HTTP/1.1`, `HTTP/1.0` or `HTTP/2`, as HAR's `httpVersion` and WireMock's journal write it;
    /// `nil` for a request made in-process (`URLSession` through HTTPMock, a generated client),
    /// whose protocol the mock does not see.
    public var httpVersion: String? { storage.request.httpVersion }

    /// The IP address of the client that sent the request over a socket (`airlock serve`,
    /// `MockServer`); `nil` for one made in-process.
    package var clientAddress: String? { storage.request.clientAddress }

    /// The header fields as swift-http-types' `HTTPFields`, in the order sent, repeated names
    /// kept (the fields whose names are not RFC 9110 tokens are left out).
    public var headerFields: HTTPFields {
        HTTPFields(pairs: storage.request.headerFields.fields)
    }

    /// The value of the first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body decoded as UTF-8, if there is one and it is valid UTF-8.
    public var bodyText: String? {
        body.flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The path's segments, percent-decoded: `/users/42/posts` → `["users", "42", "posts"]`.
    public var pathSegments: [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// Keeps the body's first `limit` bytes, with its length and digest.
    mutating func truncateBody(to limit: Int) {
        guard let body, body.count > limit else { return }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        writable.truncatedBody = (body.count, String(hash, radix: 16))
        self.body = body.prefix(limit)
    }

    /// What fills a dropped entry's slot until the journal compacts.
    static let dropped = RecordedRequest(sequence: 0, request: IncomingRequest(method: "GET", url: "", host: "", path: "", query: nil), date: Date(timeIntervalSince1970: 0))

    /// The first value of a query parameter, if the request has it.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The JSON body decoded as `type`, with a default `JSONDecoder`.
    /// - Throws: `DecodingError` when the body is missing or is not `type` in JSON.
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: body ?? Data())
    }

    /// Whether a stub answered the request.
    public var wasMatched: Bool { answeredBy != nil }

    /// One line: `#3 POST https://api.example.com/users (stub host "api.example.com", path "/users")`.
    public var description: String {
        "#\(sequence) \(method) \(url) (\(stub.map { "stub \($0)" } ?? "no stub matched"))"
    }
}

/// What a mock delivered for a recorded request.
public struct RecordedResponse: Sendable {
    /// How the exchange ended.
    public enum Outcome: Sendable, Equatable {
        /// A response with this status was delivered.
        case response(status: Int)
        /// The request failed: the failure says why, and its description is the message.
        case failure(ExchangeFailure)
        /// The connection misbehaved instead of answering.
        case fault(MockResponse.Fault)
    }

    /// How the exchange ended.
    public let outcome: Outcome
    /// The response header fields, in the order they were sent, repeated fields (two
    /// `Set-Cookie`) kept apart.
    public private(set) var headerFields: HTTPFields
    /// The response headers as a dictionary: repeated fields appear once, their values joined
    /// with `, ` (as `HTTPURLResponse` shows them). ``headerFields`` keeps each field.
    public var headers: [String: String] { headerFields.joinedDictionary }
    /// The size of the body in bytes.
    public let bodySize: Int
    /// The body as it was received: decoded when the client that recorded it decoded it (a
    /// `URLSession` decodes gzip, deflate and br), or still in its `Content-Encoding` when
    /// ``bodyIsEncoded`` says so (what `airlock record` receives from the server).
    public let body: Data
    /// Whether ``body`` holds the bytes as the server sent them in the content coding the
    /// `Content-Encoding` header names; `false` when they are decoded (or there was no coding).
    public let bodyIsEncoded: Bool
    /// From the request reaching the mock to the response being delivered.
    public let duration: TimeInterval
    /// The body's parts and the pauses between them, when it was a stream (server-sent events,
    /// NDJSON, any chunked body relayed as it arrived); ``body`` is then every part, one after
    /// the other.
    public let stream: ResponseStream?
    /// The trailer fields that followed the body (an HTTP/2 stream's closing `HEADERS`, the last
    /// chunk of an HTTP/1.1 one): gRPC's `grpc-status`, say. Empty for most responses.
    public var trailerFields: HTTPFields { rare?.trailerFields ?? Self.noFields }
    /// The protocol the answer came over (`HTTP/1.1`, `HTTP/2`) when a real server sent it — a
    /// recording proxy's upstream may answer over HTTP/1.1 a request its client sent over HTTP/2
    /// — or as a cassette recorded it. `nil` for a mock's own answer: the request's protocol.
    public var httpVersion: String? {
        get { rare?.httpVersion }
        set { rare = Rare.unlessEmpty(trailerFields: trailerFields, httpVersion: newValue) }
    }

    /// What most responses lack, out of line: every journal entry holds a response, and each
    /// field inline makes every copy of one (and of the exchange's values that carry it) longer.
    /// Measured (ServerPipeline, BENCHMARKS.md "Issue 50: HTTP/2 under TLS"): an inline
    /// `httpVersion` cost a mocked HTTP/1.1 request about 0.3 µs of the server's own 3.4; out of
    /// line with the trailers, 0.1.
    private final class Rare: Sendable {
        let trailerFields: HTTPFields
        let httpVersion: String?

        private init(trailerFields: HTTPFields, httpVersion: String?) {
            self.trailerFields = trailerFields
            self.httpVersion = httpVersion
        }

        /// `nil` when there is nothing to keep.
        static func unlessEmpty(trailerFields: HTTPFields, httpVersion: String?) -> Rare? {
            trailerFields.isEmpty && httpVersion == nil ? nil : Rare(trailerFields: trailerFields, httpVersion: httpVersion)
        }
    }

    private var rare: Rare?
    private static let noFields = HTTPFields()

    /// The same response without the fields named `names` (lowercase), every other value kept:
    /// for fields that describe one transfer, not the body's coding.
    package func removingFields(named names: Set<String>) -> RecordedResponse {
        var copy = self
        copy.headerFields = headerFields.removing(names: names)
        return copy
    }

    /// The HTTP status; `nil` when the request failed or a fault was acted out instead.
    public let status: Int?
    /// What went wrong, when no response was delivered: the error, or `fault <name>`.
    public let error: String?

    /// A response, such as a cassette's `beforeRecord` closure makes from the one recorded.
    ///
    /// ```swift
    /// var fields = recorded.headerFields
    /// fields[.server] = nil
    /// let edited = RecordedResponse(status: recorded.status ?? 200, headerFields: fields, body: recorded.body, duration: recorded.duration)
    /// ```
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - headerFields: The fields, in order.
    ///   - body: The body.
    ///   - bodyIsEncoded: Whether `body` is still in the coding `Content-Encoding` names.
    ///   - duration: How long the exchange took, in seconds.
    ///   - stream: The body's parts and pauses, when it was a stream; `body` is then ignored and
    ///     the parts, one after the other, are the body.
    ///   - trailerFields: The fields that followed the body, if any.
    public init(
        status: Int, headerFields: HTTPFields, body: Data, bodyIsEncoded: Bool = false, duration: TimeInterval = 0, stream: ResponseStream? = nil,
        trailerFields: HTTPFields = HTTPFields()
    ) {
        self.init(
            outcome: .response(status: status), headers: headerFields, body: body, bodyIsEncoded: bodyIsEncoded, duration: duration, stream: stream, trailers: trailerFields
        )
    }

    package init(
        outcome: Outcome, headers: HTTPFields, body: Data, bodyIsEncoded: Bool = false, duration: TimeInterval, stream: ResponseStream? = nil, trailers: HTTPFields = HTTPFields(),
        httpVersion: String? = nil
    ) {
        let body = stream?.body ?? body
        rare = Rare.unlessEmpty(trailerFields: trailers, httpVersion: httpVersion)
        self.stream = stream
        self.outcome = outcome
        switch outcome {
        case .response(let status):
            self.status = status
            self.error = nil
        case .failure(let failure):
            self.status = nil
            self.error = failure.description
        case .fault(let fault):
            self.status = nil
            self.error = "fault \(fault)"
        }
        self.headerFields = headers
        self.bodySize = body.count
        self.body = body
        self.bodyIsEncoded = bodyIsEncoded && headers.contentCoding != nil
        self.duration = duration
    }
}
