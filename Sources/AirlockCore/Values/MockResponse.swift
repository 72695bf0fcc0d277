import AirlockBase
import Foundation
import HTTPTypes

/// A response that a mock serves instead of the network.
///
/// Build one with the static factories — ``encodable(_:status:lifetime:delivery:headers:jsonEncoder:)``,
/// ``dictionary(_:status:lifetime:delivery:headers:)``, ``plaintext(_:status:lifetime:delivery:headers:)``,
/// ``empty(status:lifetime:delivery:headers:)`` and the `file` family — and queue it for a host and path:
///
/// ```swift
/// HTTPMock.shared.addResponses(forPath: "/user", host: "api.example.com") {
///     MockResponse.encodable(User(id: 1, name: "Alice"))
///     MockResponse.empty(status: .notFound)
/// }
/// ```
///
/// A response's own headers override headers inherited from the DSL; a `Content-Type` the factory
/// sets (JSON, `text/plain`, or one inferred from a file's extension) yields to any `Content-Type`
/// you give explicitly or inherit.
public struct MockResponse: Hashable, Sendable {
    /// Two responses are equal when everything they serve is.
    public static func == (lhs: MockResponse, rhs: MockResponse) -> Bool {
        lhs.status == rhs.status && lhs.lifetime == rhs.lifetime && lhs.delivery == rhs.delivery
            && lhs.explicitHeaders == rhs.explicitHeaders && lhs.defaultContentType == rhs.defaultContentType
            && lhs.body == rhs.body && lhs.dribble == rhs.dribble
            && lhs.reasonPhrase == rhs.reasonPhrase && lhs.bodyIsDecoded == rhs.bodyIsDecoded
            && lhs.webhooks == rhs.webhooks && lhs.trailerFields == rhs.trailerFields
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(body)
        hasher.combine(explicitHeaders)
        hasher.combine(dribble?.chunks)
    }

    /// The HTTP status the response carries.
    public var status: Status { storage.status }
    /// How many times the response is served before it leaves its queue.
    public var lifetime: Lifetime { storage.lifetime }
    /// When the response is delivered to the client.
    public var delivery: Delivery { storage.delivery }
    /// The headers the response is served with: the factory's `Content-Type`, if any, overridden
    /// by explicit and inherited headers. Repeated fields (a response made with
    /// ``init(data:contentType:status:lifetime:delivery:headerFields:)`` or replayed from a HAR
    /// file) appear once, their values joined with `, `: ``headerFields`` has each of them.
    public var headers: [String: String] { storage.headers }
    /// The header fields the response is served with, in order, repeated fields (such as two
    /// `Set-Cookie`) kept apart.
    public var headerFields: HTTPFields { storage.fields }
    /// Headers set explicitly on this response (or inherited through the DSL).
    package var explicitHeaders: ExplicitHeaders { storage.explicitHeaders }
    /// The `Content-Type` the factory chose; any explicit `Content-Type` wins over it.
    package var defaultContentType: String? { storage.defaultContentType }
    /// Where the body comes from.
    package var body: Body { storage.body }
    /// How the body is paced, when it is dribbled.
    package var dribble: DribblePlan? { storage.dribble }
    /// The status line's reason phrase, when the response gives its own (WireMock's
    /// `statusMessage`); a socket sends it, a `URLSession` client has no way to see one.
    package var reasonPhrase: String? { storage.reasonPhrase }
    /// The requests sent after the response has gone out, in order (see ``webhook(_:)``).
    public var webhooks: [Webhook] { storage.webhooks }
    /// The trailer fields sent after the body (see ``withTrailers(_:)``): on HTTP/2 a `HEADERS`
    /// frame that ends the stream, on HTTP/1.1 the last chunk's fields. gRPC's `grpc-status`
    /// travels there. Empty for most responses.
    public var trailerFields: HTTPFields { storage.trailerFields }

    /// Whether the body is already decoded although ``headerFields`` name a `Content-Encoding`:
    /// a replayed HAR text or what a `URLSession` decoded while recording. A server then sends
    /// it without the coding; a `URLSession` client gets it with the fields as recorded.
    package var bodyIsDecoded: Bool { storage.bodyIsDecoded }

    /// Whether two values are the very same response (one storage), not just equal ones.
    package func isIdentical(to other: MockResponse) -> Bool { storage === other.storage }

    /// What a transport prepared once from this response for its wire (a socket's head with its
    /// `Content-Length`, the body in the transport's buffer type), made by `make` on first use and
    /// kept with the response, so that a response served again and again is converted once.
    ///
    /// One preparation per response: a transport that asks for another type replaces it. The slot
    /// costs a response one reference; the locks are shared (striped by the response's identity).
    package func prepared<Prepared: AnyObject & Sendable>(_ type: Prepared.Type = Prepared.self, _ make: () -> Prepared) -> Prepared {
        let lock = Storage.preparationLocks[Int(bitPattern: UInt(bitPattern: ObjectIdentifier(storage).hashValue) % UInt(Storage.preparationLocks.count))]
        // The exact type is compared, not cast to: a dynamic cast costs more than the lookup.
        if let kept = lock.withLock({ storage.preparation }), Swift.type(of: kept) == Prepared.self {
            return unsafeDowncast(kept, to: Prepared.self)
        }
        let made = make()
        lock.withLock { storage.preparation = made }
        return made
    }

    /// Everything above, in one immutable box: a response is copied often on the way from its
    /// queue to the transport, and a copy is then one reference instead of a dozen.
    // @unchecked Sendable: every stored property is a constant but `preparation`, which is only
    // read and written with its stripe of `preparationLocks` held.
    private final class Storage: @unchecked Sendable {
        /// Guard `preparation` of every response, by the response's identity.
        static let preparationLocks = (0..<64).map { _ in Locked<Void>() }
        /// A transport's ``MockResponse/prepared(_:_:)`` value.
        var preparation: (any AnyObject & Sendable)?
        let status: Status
        let lifetime: Lifetime
        let delivery: Delivery
        let headers: [String: String]
        let fields: HTTPFields
        let explicitHeaders: ExplicitHeaders
        let defaultContentType: String?
        let body: Body
        let dribble: DribblePlan?
        let bodyIsDecoded: Bool
        let reasonPhrase: String?
        let webhooks: [Webhook]
        let trailerFields: HTTPFields

        init(
            status: Status,
            lifetime: Lifetime,
            delivery: Delivery,
            explicitHeaders: ExplicitHeaders,
            defaultContentType: String?,
            body: Body,
            dribble: DribblePlan?,
            bodyIsDecoded: Bool = false,
            reasonPhrase: String? = nil,
            webhooks: [Webhook] = [],
            trailerFields: HTTPFields = HTTPFields()
        ) {
            self.webhooks = webhooks
            self.trailerFields = trailerFields
            self.bodyIsDecoded = bodyIsDecoded
            self.reasonPhrase = reasonPhrase
            self.status = status
            self.lifetime = lifetime
            self.delivery = delivery
            switch explicitHeaders {
            case .dictionary(let explicit) where explicit.isEmpty:
                // Most responses carry only their factory's Content-Type: one shared copy of
                // those fields (values, copied on write) instead of two allocations per response.
                (headers, fields) = MockResponse.defaultFields(contentType: defaultContentType)
            case .dictionary(let explicit):
                headers = MockResponse.served(contentType: defaultContentType, explicit: explicit)
                fields = HTTPFields(sortedDictionary: headers)
            case .fields(let explicit):
                var served = explicit
                if let defaultContentType, !explicit.contains(.contentType) {
                    served.insert(HTTPField(name: .contentType, value: defaultContentType), at: 0)
                }
                fields = served
                headers = served.joinedDictionary
            }
            self.explicitHeaders = explicitHeaders
            self.defaultContentType = defaultContentType
            self.body = body
            self.dribble = dribble
        }
    }

    private let storage: Storage

    /// Creates a response from raw bytes.
    ///
    /// Prefer the factories; use this for payloads they do not cover.
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: The `Content-Type` header, if any. An explicit `Content-Type` in `headers` wins.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers.
    public init(
        data: Data,
        contentType: String? = nil,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:]
    ) {
        self.init(
            body: .data(data),
            contentType: contentType,
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// Creates a response from raw bytes and header fields kept as given: in order, repeated
    /// names (two `Set-Cookie`) sent as separate fields.
    ///
    /// ```swift
    /// var fields = HTTPFields()
    /// fields.append(HTTPField(name: .setCookie, value: "a=1; Path=/"))
    /// fields.append(HTTPField(name: .setCookie, value: "b=2; Path=/"))
    /// MockResponse(data: Data("ok".utf8), contentType: "text/plain", headerFields: fields)
    /// ```
    ///
    /// - Parameters:
    ///   - data: The body, sent as it is. With a `Content-Encoding` field the bytes must be in
    ///     that coding, as a server sends them; a `URLSession` client gets them decoded (gzip and
    ///     deflate), as from a real server.
    ///   - contentType: The `Content-Type` header, if `headerFields` has none.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headerFields: The response's header fields.
    public init(
        data: Data,
        contentType: String? = nil,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headerFields: HTTPFields
    ) {
        self.init(body: .data(data), contentType: contentType, status: status, lifetime: lifetime, delivery: delivery, headerFields: headerFields)
    }

    /// A recorded response to replay: its fields as recorded, its body as kept.
    package init(replaying body: Data, status: Status, lifetime: Lifetime, headerFields: HTTPFields, bodyIsDecoded: Bool) {
        storage = Storage(
            status: status,
            lifetime: lifetime,
            delivery: .instant,
            explicitHeaders: .fields(headerFields),
            defaultContentType: nil,
            body: .data(body),
            dribble: nil,
            bodyIsDecoded: bodyIsDecoded && headerFields.contentCoding != nil
        )
    }

    /// A recorded stream to replay: its fields as recorded, its parts each after its pause.
    package init(replaying stream: ResponseStream, status: Status, lifetime: Lifetime, headerFields: HTTPFields) {
        storage = Storage(
            status: status,
            lifetime: lifetime,
            delivery: .instant,
            explicitHeaders: .fields(headerFields),
            defaultContentType: nil,
            body: .stream(stream),
            dribble: nil,
            bodyIsDecoded: false
        )
    }

    package init(
        body: Body,
        contentType: String?,
        status: Status,
        lifetime: Lifetime,
        delivery: Delivery,
        headers: [String: String]
    ) {
        storage = Storage(
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            explicitHeaders: .dictionary(headers),
            defaultContentType: contentType,
            body: body,
            dribble: nil
        )
    }

    /// A response whose header fields are kept as given, with `contentType` added only when they
    /// have none (`nil`: what a format that lists its fields says, a WireMock mapping's `headers`).
    /// - Parameter reasonPhrase: The status line's reason (WireMock's `statusMessage`); `nil` for
    ///   the status's own.
    package init(
        body: Body,
        contentType: String? = nil,
        status: Status,
        reasonPhrase: String? = nil,
        lifetime: Lifetime,
        delivery: Delivery,
        headerFields: HTTPFields
    ) {
        storage = Storage(
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            explicitHeaders: .fields(headerFields),
            defaultContentType: contentType,
            body: body,
            dribble: nil,
            reasonPhrase: reasonPhrase
        )
    }

    /// The header fields of a response with no headers but its factory's `Content-Type`, made
    /// once per content type (a registry of 100,000 text stubs keeps one copy).
    fileprivate static func defaultFields(contentType: String?) -> (headers: [String: String], fields: HTTPFields) {
        sharedDefaultFields.withLock { cache in
            if let shared = cache[contentType] { return shared }
            let headers = served(contentType: contentType, explicit: [:])
            let made = (headers: headers, fields: HTTPFields(sortedDictionary: headers))
            // Content types come from the factories and file extensions: a handful. The bound
            // keeps a caller that invents them from growing the cache.
            if cache.count < 256 { cache[contentType] = made }
            return made
        }
    }

    private static let sharedDefaultFields = Locked<[String?: (headers: [String: String], fields: HTTPFields)]>([:])

    fileprivate static func served(contentType: String?, explicit: [String: String]) -> [String: String] {
        guard let contentType else { return explicit }
        return HeaderFields.merging(["Content-Type": contentType], with: explicit)
    }

    private init(
        copying other: MockResponse,
        explicitHeaders: ExplicitHeaders,
        lifetime: Lifetime,
        delivery: Delivery? = nil,
        dribble: DribblePlan?,
        reasonPhrase: String?? = nil,
        body: Body? = nil,
        webhooks: [Webhook]? = nil,
        trailerFields: HTTPFields? = nil,
        status: Status? = nil
    ) {
        storage = Storage(
            status: status ?? other.status,
            lifetime: lifetime,
            delivery: delivery ?? other.delivery,
            explicitHeaders: explicitHeaders,
            defaultContentType: other.defaultContentType,
            body: body ?? other.body,
            dribble: dribble,
            bodyIsDecoded: other.bodyIsDecoded,
            reasonPhrase: reasonPhrase ?? other.reasonPhrase,
            webhooks: webhooks ?? other.webhooks,
            trailerFields: trailerFields ?? other.trailerFields
        )
    }
}

extension MockResponse {
    /// Where a response's body comes from.
    package enum Body: Hashable, Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A file read when the response is delivered.
        case file(URL)
        /// The factory could not build a body; serving the response fails with this message.
        case failure(String)
        /// The request fails with this error instead of receiving a response.
        case error(ErrorBox)
        /// The connection misbehaves instead of answering.
        case fault(Fault)
        /// The response is made from the request when it arrives.
        case computed(Computation)
        /// The request is sent on to another server, whose answer the client gets.
        case proxy(Proxy)
        /// Parts sent one after the other, each after its pause.
        case stream(ResponseStream)
        /// A WebSocket upgrade, then the script played on the connection.
        case webSocket(WebSocketScript)
    }

    /// A closure that makes a response from the request, compared by identity.
    package final class Computation: Hashable, Sendable {
        package let make: @Sendable (RecordedRequest) throws -> MockResponse

        init(_ make: @escaping @Sendable (RecordedRequest) throws -> MockResponse) {
            self.make = make
        }

        package static func == (lhs: Computation, rhs: Computation) -> Bool { lhs === rhs }

        package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    /// An error to fail a request with, compared by identity.
    package final class ErrorBox: Hashable, Sendable {
        package let error: any Error

        init(_ error: any Error) {
            self.error = error
        }

        package static func == (lhs: ErrorBox, rhs: ErrorBox) -> Bool { lhs === rhs }

        package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    /// A copy whose explicit headers sit on top of `inherited` ones.
    package func inheriting(_ inherited: [String: String]) -> MockResponse {
        guard !inherited.isEmpty else { return self }
        let merged: ExplicitHeaders
        switch explicitHeaders {
        case .dictionary(let own): merged = .dictionary(HeaderFields.merging(inherited, with: own))
        case .fields(let own): merged = .fields(own.laid(over: HTTPFields(sortedDictionary: inherited)))
        }
        return MockResponse(copying: self, explicitHeaders: merged, lifetime: lifetime, dribble: dribble)
    }

    /// A copy whose explicit header fields sit on top of `inherited` ones (a computed response's
    /// own headers over its stub's).
    package func inheriting(fields inherited: HTTPFields) -> MockResponse {
        guard !inherited.isEmpty else { return self }
        let merged: ExplicitHeaders
        switch explicitHeaders {
        case .dictionary(let own): merged = .fields(HTTPFields(sortedDictionary: own).laid(over: inherited))
        case .fields(let own): merged = .fields(own.laid(over: inherited))
        }
        return MockResponse(copying: self, explicitHeaders: merged, lifetime: lifetime, dribble: dribble)
    }

    /// Header fields as a response was given them: a dictionary (the seed's factories and the
    /// DSL, merged by name), or fields kept in order with repeated names.
    package enum ExplicitHeaders: Hashable, Sendable {
        case dictionary([String: String])
        case fields(HTTPFields)
    }

    /// The same response with its body sent in `chunks` pieces spread evenly over `seconds`, as
    /// a slow or stalling server sends it.
    ///
    /// ```swift
    /// MockResponse.plaintext(String(repeating: "x", count: 1_000)).dribbled(inChunks: 10, over: 2)
    /// ```
    ///
    /// - Parameters:
    ///   - chunks: How many pieces: from 1 to ``ResponseLimits/maximumDribbleChunks``.
    ///   - seconds: How long from the first piece to the last: from 0 to
    ///     ``ResponseLimits/maximumSeconds``. Other values are rejected when the stub is registered.
    /// - Returns: The dribbling response.
    public func dribbled(inChunks chunks: Int, over seconds: TimeInterval) -> MockResponse {
        dribbled(DribblePlan(chunks: chunks, seconds: seconds))
    }

    /// A copy with its own reason phrase on the status line.
    package func with(reasonPhrase: String?) -> MockResponse {
        MockResponse(copying: self, explicitHeaders: explicitHeaders, lifetime: lifetime, dribble: dribble, reasonPhrase: .some(reasonPhrase))
    }

    /// A copy whose body is sent as `plan` paces it.
    package func dribbled(_ plan: DribblePlan) -> MockResponse {
        MockResponse(copying: self, explicitHeaders: explicitHeaders, lifetime: lifetime, dribble: plan)
    }

    /// A copy with another lifetime (the unmocked policy's response is served as `.eternal`).
    package func with(lifetime: Lifetime) -> MockResponse {
        MockResponse(copying: self, explicitHeaders: explicitHeaders, lifetime: lifetime, dribble: dribble)
    }

    /// A copy with another lifetime and delivery.
    package func with(lifetime: Lifetime, delivery: Delivery) -> MockResponse {
        MockResponse(copying: self, explicitHeaders: explicitHeaders, lifetime: lifetime, delivery: delivery, dribble: dribble)
    }

    /// A copy that sends `webhooks` after its response, in place of any it had.
    package func with(webhooks: [Webhook]) -> MockResponse {
        MockResponse(copying: self, explicitHeaders: explicitHeaders, lifetime: lifetime, dribble: dribble, webhooks: webhooks)
    }

    /// A copy with another body (a stream paced anew).
    package func with(body: Body) -> MockResponse {
        MockResponse(copying: self, explicitHeaders: explicitHeaders, lifetime: lifetime, dribble: dribble, body: body)
    }

    /// A copy with other header fields, kept as given, and another status (a transcoder's, for
    /// its protocol's wire); the reason phrase goes with a changed status.
    package func with(headerFields: HTTPFields, status: Status) -> MockResponse {
        MockResponse(
            copying: self, explicitHeaders: .fields(headerFields), lifetime: lifetime, dribble: dribble,
            reasonPhrase: status == self.status ? .none : .some(nil), status: status
        )
    }

    /// The same response followed by trailer fields: on HTTP/2 a `HEADERS` frame that ends the
    /// stream; on HTTP/1.1 the fields of the last chunk (the body is then sent chunked, with no
    /// `Content-Length`). Fields keep their order and repeated names.
    ///
    /// ```swift
    /// var trailers = HTTPFields()
    /// trailers[HTTPField.Name("Server-Timing")!] = "db;dur=53"
    /// MockResponse.plaintext("done").withTrailers(trailers)
    /// ```
    ///
    /// A `URLSession` client has no API that shows trailers: `HTTPMock` and the journal keep them,
    /// a socket sends them.
    /// - Parameter trailers: The fields sent after the body.
    /// - Returns: The response with its trailers.
    public func withTrailers(_ trailers: HTTPFields) -> MockResponse {
        with(trailerFields: trailers)
    }

    /// A copy with these trailer fields in place of any it had.
    package func with(trailerFields: HTTPFields) -> MockResponse {
        MockResponse(copying: self, explicitHeaders: explicitHeaders, lifetime: lifetime, dribble: dribble, trailerFields: trailerFields)
    }
}
