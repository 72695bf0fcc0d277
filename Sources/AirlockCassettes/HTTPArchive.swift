import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation
import HTTPTypes

/// A HAR 1.2 file (HTTP Archive) as exchanges: each request with the response it got.
///
/// Any HAR file can be served as stubs — one saved from a browser's network panel, one written
/// by another tool, or a cassette Airlock recorded:
///
/// ```swift
/// try mock.registerStubs(HTTPArchive(contentsOf: URL(fileURLWithPath: "Fixtures/checkout.har")))
/// ```
///
/// Identical requests get their recorded responses in recorded order; a WebSocket's entry (status
/// `101`, its frames in Chrome's `_webSocketMessages`) replays its conversation to a server's
/// client. Entries that cannot be replayed — a URL that is not `http(s)`, or no response (status 0, as browsers record blocked
/// requests) — are left out and listed in ``skipped``.
public struct HTTPArchive: Sendable {
    /// The exchanges in the archive's order; each entry's `response` is what
    /// was answered.
    public var entries: [RecordedRequest]
    /// Entries left out, each saying which and why (`log.entries[3]: data: URL, not http(s)`).
    public private(set) var skipped: [String] = []
    /// How old the recording may grow before it is refreshed (Airlock's `_maxAge` in the `log`),
    /// if the file says.
    public var maxAge: MaxAge?
    /// When the live service last confirmed every entry (Airlock's `_verifiedAt` in the `log`,
    /// which `airlock cassette verify --update` and ``Cassette/replaceDriftedEntries(from:redaction:)``
    /// write), if the file says. A cassette's age counts from this or its oldest entry, whichever
    /// is later.
    public var verifiedAt: Date?
    /// Each entry's position in the file's `log.entries` (entries left out shift the others).
    package private(set) var positions: [Int]

    /// An archive of these exchanges, such as a mock's `requests`.
    /// - Parameters:
    ///   - entries: The requests, each with its response.
    ///   - maxAge: How old the recording may grow before it is refreshed.
    ///   - verifiedAt: When the live service last confirmed every entry.
    public init(entries: [RecordedRequest], maxAge: MaxAge? = nil, verifiedAt: Date? = nil) {
        self.entries = entries
        self.maxAge = maxAge
        self.verifiedAt = verifiedAt
        positions = Array(entries.indices)
    }

    /// Reads a HAR file.
    /// - Parameter url: The file.
    /// - Throws: `StubFileError` naming the file, the entry and field, and what was expected.
    public init(contentsOf url: URL) throws(StubFileError) {
        try self.init(data: StubFileError.contents(of: url, expected: "a readable HAR file"), source: url.path)
    }

    /// Parses HAR JSON.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - source: How errors name it.
    /// - Throws: `StubFileError` naming the source, the entry and field, and what was expected.
    public init(data: Data, source: String) throws(StubFileError) {
        // Syntax first, so that its error names the line and column.
        _ = try JSONNode.parse(data, source: source, expected: "a HAR 1.2 document ({\"log\": {\"entries\": [...]}})")
        let document: HARFormat.Document
        do {
            document = try JSONDecoder().decode(HARFormat.Document.self, from: data)
        } catch let error as DecodingError {
            throw StubFileError(decoding: error, file: source, data: data)
        } catch {
            throw StubFileError(.invalidValue, file: source, location: nil, problem: "\(error)", expected: "a HAR 1.2 document")
        }
        entries = []
        positions = []
        if let text = document.log.maxAge {
            guard let maxAge = MaxAge(text) else {
                throw StubFileError(.invalidValue, file: source, location: "log._maxAge", problem: "is \"\(text)\"", expected: MaxAge.expected)
            }
            self.maxAge = maxAge
        }
        if let text = document.log.verifiedAt {
            guard let date = HARFormat.date(text) else {
                throw StubFileError(.invalidValue, file: source, location: "log._verifiedAt", problem: "is \"\(text)\"", expected: "an ISO 8601 date such as 2026-01-31T12:00:00.000Z")
            }
            verifiedAt = date
        }
        for (index, entry) in document.log.entries.enumerated() {
            let place = "log.entries[\(index)]"
            guard let request = try Self.request(entry, at: place, source: source) else {
                skipped.append("\(place): \(entry.request.method) \(entry.request.url) is not an http(s) URL with a host")
                continue
            }
            guard entry.response.status > 0 else {
                skipped.append("\(place): \(entry.request.method) \(entry.request.url) has no response (status \(entry.response.status))")
                continue
            }
            entries.append(request)
            positions.append(index)
        }
    }

    /// The archive as a HAR 1.2 document, with credentials hidden by `redaction`.
    /// - Parameter redaction: What to hide. Defaults to `standard`.
    /// - Returns: The JSON document, pretty-printed with sorted keys (stable under version control).
    public func data(redaction: Redaction = .standard) -> Data {
        let document = HARFormat.Document(
            log: .init(
                version: "1.2",
                creator: .init(name: "Airlock", version: AirlockVersion.current),
                entries: entries.map { Self.entry(redaction.apply(to: $0), redaction: redaction) },
                maxAge: maxAge?.description,
                verifiedAt: verifiedAt.map(HARFormat.string(from:))
            )
        )
        // Every member is a plain value; encoding cannot fail.
        return (try? Self.encoder.encode(document)) ?? Data("{}".utf8)
    }

    /// How Airlock writes HAR: pretty-printed with sorted keys (stable under version control).
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    // MARK: Reading

    private static func request(_ entry: HARFormat.Entry, at place: String, source: String) throws(StubFileError) -> RecordedRequest? {
        // A WebSocket's URL (`wss://`, as browsers record it) is its opening request's (`https://`).
        var address = entry.request.url
        for (socket, web) in [("ws://", "http://"), ("wss://", "https://")] where address.prefix(socket.count).lowercased() == socket {
            address = web + address.dropFirst(socket.count)
        }
        let scheme = address.prefix(8).lowercased()
        guard scheme.hasPrefix("http://") || scheme.hasPrefix("https://"),
            var incoming = IncomingRequest(method: entry.request.method.uppercased(), absoluteURL: address)
        else { return nil }
        // HTTP/2 pseudo-headers (`:authority`, `:path`), as browsers list them, are not fields.
        incoming.headerFields = .list(entry.request.headers.filter { !$0.name.hasPrefix(":") }.map { (name: $0.name, value: $0.value) })
        if let post = entry.request.postData {
            if let text = post.text {
                guard let body = HARFormat.bytes(text, encoding: post.encoding) else {
                    throw StubFileError(.invalidValue, file: source, location: "\(place).request.postData.encoding", problem: "is \"\(post.encoding ?? "")\"", expected: "\"base64\" or no encoding")
                }
                incoming.body = body
            } else if !post.params.isEmpty {
                incoming.body = Data(FormFields.encode(post.params.map { ($0.name, $0.value ?? "") }).utf8)
            }
        }
        guard let date = HARFormat.date(entry.startedDateTime) else {
            throw StubFileError(.invalidValue, file: source, location: "\(place).startedDateTime", problem: "is \"\(entry.startedDateTime)\"", expected: "an ISO 8601 date such as 2026-01-31T12:00:00.000Z")
        }
        var recorded = RecordedRequest(sequence: 0, request: incoming, date: date)
        let content = entry.response.content
        var body = Data()
        if let text = content.text {
            guard let bytes = HARFormat.bytes(text, encoding: content.encoding) else {
                throw StubFileError(.invalidValue, file: source, location: "\(place).response.content.encoding", problem: "is \"\(content.encoding ?? "")\"", expected: "\"base64\" or no encoding")
            }
            body = bytes
        }
        var bodyIsEncoded = content.contentEncoded == true
        if let encodedBody = content.encodedBody {
            // The server's own bytes, beside the decoded text other readers use.
            guard let bytes = Data(base64Encoded: encodedBody, options: .ignoreUnknownCharacters) else {
                throw StubFileError(.invalidValue, file: source, location: "\(place).response.content._encodedBody", problem: "is not base64", expected: "the body as sent, in base64")
            }
            body = bytes
            bodyIsEncoded = true
        }
        var headers = HTTPFields()
        for (position, field) in entry.response.headers.enumerated() where !field.name.hasPrefix(":") {
            // Each field as recorded, in order: two Set-Cookie stay two.
            let place = "\(place).response.headers[\(position)]"
            if let problem = ResponseLimits.headerProblem(name: field.name, value: field.value) {
                throw StubFileError(.invalidHeader, file: source, location: place, problem: problem, expected: ResponseLimits.headerFix)
            }
            guard let name = HTTPField.Name(field.name) else {
                throw StubFileError(.invalidHeader, file: source, location: "\(place).name", problem: "is \"\(field.name)\"", expected: "a header name (an RFC 9110 token)")
            }
            headers.append(HTTPField(name: name, value: field.value))
        }
        if !headers.contains(.contentType), !content.mimeType.isEmpty, !body.isEmpty {
            headers[.contentType] = content.mimeType
        }
        var trailers = HTTPFields()
        for (position, field) in (entry.response._trailers ?? []).enumerated() {
            let place = "\(place).response._trailers[\(position)]"
            if let problem = ResponseLimits.headerProblem(name: field.name, value: field.value) {
                throw StubFileError(.invalidHeader, file: source, location: place, problem: problem, expected: ResponseLimits.headerFix)
            }
            guard let name = HTTPField.Name(field.name) else {
                throw StubFileError(.invalidHeader, file: source, location: "\(place).name", problem: "is \"\(field.name)\"", expected: "a header name (an RFC 9110 token)")
            }
            trailers.append(HTTPField(name: name, value: field.value))
        }
        recorded.response = RecordedResponse(
            outcome: .response(status: entry.response.status),
            headers: headers,
            body: body,
            bodyIsEncoded: bodyIsEncoded,
            duration: max(0, entry.time) / 1000,
            stream: try stream(content.parts, end: content.end, headers: headers, at: "\(place).response.content", source: source),
            trailers: trailers,
            httpVersion: entry.response.httpVersion
        )
        recorded.webSocketFrames = try webSocketFrames(entry.webSocketMessages, at: "\(place)._webSocketMessages", source: source)
        return recorded
    }

    /// The stream `_parts` and `_end` spell, if they are there: each part's bytes after its wait,
    /// then the end after its own.
    private static func stream(_ parts: [HARFormat.Part]?, end: HARFormat.End?, headers: HTTPFields, at place: String, source: String) throws(StubFileError) -> ResponseStream? {
        let parts = parts ?? []
        guard !parts.isEmpty || end != nil else { return nil }
        var stream: [StreamPart] = []
        for (index, part) in parts.enumerated() {
            guard let bytes = HARFormat.bytes(part.text, encoding: part.encoding) else {
                throw StubFileError(.invalidValue, file: source, location: "\(place)._parts[\(index)].encoding", problem: "is \"\(part.encoding ?? "")\"", expected: "\"base64\" or no encoding")
            }
            guard part.wait.isFinite, part.wait >= 0 else {
                throw StubFileError(.invalidValue, file: source, location: "\(place)._parts[\(index)].wait", problem: "is \(part.wait)", expected: "the milliseconds before the part, 0 or more")
            }
            stream.append(StreamPart(bytes: bytes, after: part.wait / 1000))
        }
        var ending = ResponseStream.Ending.close
        if let end {
            // At most a day, as any wait of a response.
            guard end.wait.isFinite, end.wait >= 0, end.wait <= ResponseLimits.maximumSeconds * 1000 else {
                throw StubFileError(
                    .invalidValue, file: source, location: "\(place)._end.wait", problem: "is \(end.wait)",
                    expected: "the milliseconds from the last part to the stream's end, 0 to \(Int(ResponseLimits.maximumSeconds * 1000))"
                )
            }
            ending = end.clientLeft == true ? .clientLeft(after: end.wait / 1000) : .closeAfter(end.wait / 1000)
        }
        return ResponseStream(kind: ResponseStream.Kind(contentType: headers[.contentType]), parts: stream, ending: ending)
    }

    // MARK: Writing

    static func entry(_ recorded: RecordedRequest, redaction: Redaction) -> HARFormat.Entry {
        let milliseconds = (recorded.response?.duration ?? 0) * 1000
        // HAR's mimeType is the Content-Type as sent: empty when there was none, so that a reader
        // does not give the replay a Content-Type the server never sent.
        let requestType = recorded.header("Content-Type") ?? ""
        var request = HARFormat.Request(
            method: recorded.method,
            url: recorded.url,
            headers: recorded.headers.map { .init(name: $0.name, value: $0.value) },
            queryString: recorded.queryItems.map { .init(name: $0.name, value: $0.value ?? "") },
            postData: recorded.body.map { body in
                let text = HARFormat.text(body)
                return HARFormat.PostData(mimeType: requestType, text: text.text, encoding: text.encoding)
            },
            bodySize: recorded.body?.count ?? 0
        )
        // The protocol the client used (a server's request over HTTP/2 keeps `HTTP/2`); one made
        // in-process is written as HTTP/1.1, as before.
        request.httpVersion = recorded.httpVersion ?? "HTTP/1.1"
        let response = recorded.response
        let headers = response?.headerFields ?? HTTPFields()
        let responseType = headers[.contentType] ?? ""
        let wireBody = response?.body ?? Data()
        // A body kept in its content coding is written decoded as HAR 1.2 asks (what browsers,
        // mitmproxy and haralyzer read), with the server's bytes beside it for Airlock's replay.
        // A coding Airlock cannot read (br, zstd) leaves only the bytes, marked as encoded.
        var encoded = response?.bodyIsEncoded == true
        var encodedBody: String?
        var body = wireBody
        if encoded, let coding = headers.contentCoding, let decoded = ContentCoding.decode(wireBody, coding: coding) {
            encodedBody = wireBody.base64EncodedString()
            body = decoded
            encoded = false
        }
        let text = encoded ? (text: body.base64EncodedString(), encoding: "base64") : HARFormat.text(body)
        // A stream's parts beside the whole body, unless the body is in a content coding (whose
        // pieces mean nothing apart).
        let stream = response?.bodyIsEncoded == true ? nil : response?.stream
        let parts = stream.map { stream in
            stream.parts.map { part in
                let text = HARFormat.text(part.bytes)
                return HARFormat.Part(wait: HARFormat.milliseconds(part.delay), text: text.text, encoding: text.encoding)
            }
        }
        let end = stream.flatMap { stream -> HARFormat.End? in
            switch stream.ending {
            case .closeAfter(let seconds): HARFormat.End(wait: HARFormat.milliseconds(seconds), clientLeft: nil)
            case .clientLeft(let seconds): HARFormat.End(wait: HARFormat.milliseconds(seconds), clientLeft: true)
            case .close, .keepOpen, .gate: nil
            }
        }
        let location = headers[.location]
        return HARFormat.Entry(
            startedDateTime: HARFormat.string(from: recorded.date),
            time: milliseconds,
            request: request,
            response: HARFormat.Response(
                status: response?.status ?? 0,
                // The protocol the answer came over: the real server's, when it differs from the
                // client's (a recording proxy's upstream); otherwise the request's.
                httpVersion: response?.httpVersion ?? request.httpVersion,
                headers: headers.map { .init(name: $0.name.rawName, value: $0.value) },
                content: .init(
                    size: body.count,
                    mimeType: responseType,
                    text: body.isEmpty ? nil : text.text,
                    encoding: text.encoding,
                    contentEncoded: encoded ? true : nil,
                    encodedBody: encodedBody,
                    compression: encodedBody == nil ? nil : body.count - wireBody.count,
                    parts: parts,
                    end: end
                ),
                redirectURL: location.map(redaction.url) ?? "",
                error: response?.error,
                trailers: response.flatMap { $0.trailerFields.isEmpty ? nil : $0.trailerFields.map { .init(name: $0.name.rawName, value: $0.value) } }
            ),
            cache: .init(),
            timings: .init(send: 0, wait: milliseconds, receive: 0),
            operationID: recorded.operationID,
            webSocketMessages: webSocketMessages(recorded.webSocketFrames)
        )
    }
}
