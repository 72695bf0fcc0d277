import AirlockBase
import Foundation
import HTTPTypes

/// Which credentials to hide in recorded traffic, logs, messages and exports, and how.
///
/// On by default everywhere output is made — unmatched-request messages and their near misses,
/// verification failures, ``Journaling/redactedRequests``, HAR exports and cassettes, logs,
/// the `airlock` console and the admin API. The journal's ``Journaling/requests`` keep the real
/// values for assertions.
///
/// Names compare case-insensitively and across `camelCase`, `snake_case` and `kebab-case`
/// (`accessToken`, `access_token` and `Access-Token` are one name). Values are replaced, names are
/// kept, so a message still shows that a credential was sent. Hidden:
/// - **headers** in ``headerNames``, and any name containing `api-key` / `apikey`, in requests
///   and responses: the whole value — but a cookie's name and attributes stay
///   (`Set-Cookie: sid=[REDACTED]; Path=/; HttpOnly`, `Cookie: a=[REDACTED]; b=[REDACTED]`);
/// - in **URLs** — the request's, and the value of a URL-valued header of the request or the
///   response (`Referer`, `Origin`, `Location`, `Content-Location`, `Refresh`, or any value
///   starting with `http://` or `https://`) — the values of query items and fragment items
///   (`#access_token=…`) in ``queryItemNames``, and the user-info password (`https://user:…@host`);
/// - in **request bodies**, fields in ``jsonFields`` or ``queryItemNames`` (an OAuth form's `code`
///   is a credential), at any depth: JSON (arrays, NDJSON, with or without a byte-order mark),
///   form-encoded and multipart bodies. JSON string values and other text also get the pattern
///   pass: the value of `name=value`, `name: value` and `"name": "value"` pairs whose name is one
///   of those fields or a header name, and URL passwords (a GraphQL
///   `"query": "mutation { login(password: \"…\") }"`);
/// - in **response bodies**, only fields in ``responseFields`` — unambiguous credentials such as
///   `access_token` or `client_secret` — in the same formats, and the pattern pass for those
///   names in other response text (plain text, multipart parts, a body that is not valid JSON;
///   not inside JSON string values). Everyday names (`code`, `key`, `auth`, `sig`, `pin`, `otp`,
///   `token`) are never hidden in responses by default;
/// - in a failed exchange's **error text**, the URLs it quotes (as URLs, above) and the pattern
///   pass for ``responseFields`` names — so `Code=-1004` keeps its code;
/// - a **secret value the request carried**, wherever else it appears in the exchange (echoed in a
///   response header or body, quoted in error text, in a URL): a credential header's value
///   without its scheme word (`Bearer`, `Basic`; with it when what follows is shorter than four
///   characters), cookie values, secret query and fragment items, the URL password, the secret
///   items of URL-valued request headers, and secret request body fields — each of four
///   characters or more, and only where it stands as a whole token: the characters just before
///   and after it must not be ASCII letters, digits, `_` or `-` (checked on each side where the
///   value's own edge character is one). In JSON it is looked for only inside string values
///   (decoded, so `\n` next to it counts as a line break), never in keys, numbers or booleans.
///   Its percent-encoded form is looked for the same way. With the secret `date`, `updated_date`
///   stays; with `abcd1234`, `"Bearer abcd1234"` becomes `"Bearer [REDACTED]"`.
///
/// Only the hidden values' own bytes change: everything else in a body (key order, white space,
/// number spelling, escapes, a byte-order mark, NDJSON lines, form and multipart structure) is
/// kept byte for byte, and a body with nothing to hide comes back as the same bytes. A secret
/// JSON string keeps its quotes and gets ``replacement`` (JSON-escaped) as its content; a secret
/// number, boolean, object or array becomes the quoted ``replacement``; `null` and empty values
/// are left as they are. A form value becomes the percent-encoded ``replacement``, a multipart
/// part's content the ``replacement``. A body that is not valid JSON gets the pattern pass;
/// binary bodies (not UTF-8) are left as they are. ``replacement`` is the same text every run,
/// and replaying a cassette treats it as matching any value. ``none`` hides nothing (not even URL
/// passwords).
///
/// ```swift
/// mock.redaction.jsonFields.insert("pin")
/// mock.redaction.responseFields.insert("session_key")
/// mock.redaction = .none   // show everything (never in shared logs)
/// ```
public struct Redaction: Sendable, Hashable {
    /// Header names whose values are hidden, in addition to API-key style names.
    public var headerNames: Set<String> {
        didSet { cachedNames.value = Names(self) }
    }
    /// Query item names whose values are hidden (also fragment items, and fields of request bodies).
    public var queryItemNames: Set<String> {
        didSet { cachedNames.value = Names(self) }
    }
    /// Request body field names, at any depth, whose values are hidden (JSON, form and multipart
    /// fields).
    public var jsonFields: Set<String> {
        didSet { cachedNames.value = Names(self) }
    }
    /// Response body field names, at any depth, whose values are hidden (JSON, form and multipart
    /// fields, and `name=value` pairs in other response text and in error text). Unambiguous
    /// credentials only, so that a recorded response replays as it was.
    public var responseFields: Set<String> {
        didSet { cachedNames.value = Names(self) }
    }
    /// What replaces a hidden value.
    public var replacement: String
    /// Whether API-key style header names (containing `api-key`, `api_key` or `apikey`) are hidden.
    public var redactsAPIKeyHeaders: Bool {
        didSet { cachedNames.value = Names(self) }
    }

    /// Creates a redaction policy.
    /// - Parameters:
    ///   - headerNames: Headers whose values are hidden.
    ///   - queryItemNames: Query and fragment items whose values are hidden; request body fields too.
    ///   - jsonFields: Request body fields whose values are hidden.
    ///   - responseFields: Response body fields whose values are hidden; by default the unambiguous
    ///     credentials of ``standard``.
    ///   - replacement: What replaces a hidden value.
    ///   - redactsAPIKeyHeaders: Whether API-key style header names are hidden too.
    public init(
        headerNames: Set<String>,
        queryItemNames: Set<String>,
        jsonFields: Set<String>,
        responseFields: Set<String> = Redaction.credentialResponseFields,
        replacement: String = Redaction.standardReplacement,
        redactsAPIKeyHeaders: Bool = true
    ) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.queryItemNames = Set(queryItemNames.map { $0.lowercased() })
        self.jsonFields = Set(jsonFields.map { $0.lowercased() })
        self.responseFields = Set(responseFields.map { $0.lowercased() })
        self.replacement = replacement
        self.redactsAPIKeyHeaders = redactsAPIKeyHeaders
        self.namedValues = [:]
        cachedNames.value = Names(self)
    }

    /// The lists normalized once, when they are set, for every pass: building them costs more
    /// than most passes (a URL with no query). Not part of the policy's identity.
    private var cachedNames = CachedNames()

    /// ``Names`` kept beside the lists they are made from; always equal, hashed as nothing.
    struct CachedNames: Sendable, Hashable {
        var value: Names?

        static func == (lhs: CachedNames, rhs: CachedNames) -> Bool { true }

        func hash(into hasher: inout Hasher) {}
    }

    /// Values you name, each hidden behind a placeholder of its own wherever it stands as a whole
    /// token (URLs, header values, bodies, messages) — VCR's `filter_sensitive_data`. Keyed by
    /// placeholder. On replay, a recorded placeholder matches any value, as ``replacement`` does.
    public var namedValues: [String: String]

    /// Hides `value` behind `placeholder` wherever it stands as a whole token, so the file says
    /// what was there:
    ///
    /// ```swift
    /// var redaction = Redaction.standard
    /// redaction.filter(ProcessInfo.processInfo.environment["ACCOUNT_ID"] ?? "", as: "<ACCOUNT_ID>")
    /// ```
    ///
    /// - Parameters:
    ///   - value: The secret; an empty value is ignored.
    ///   - placeholder: What the file shows instead, the same every run.
    public mutating func filter(_ value: String, as placeholder: String) {
        guard !value.isEmpty else { return }
        namedValues[placeholder] = value
    }

    /// Every text redaction leaves in place of a value: ``replacement`` and the named placeholders.
    package var placeholders: Set<String> { Set(namedValues.keys).union([replacement]) }

    /// The default: credential headers, token-like query items and secret request body fields,
    /// including the signing parameters of the common cloud providers, and unambiguous credential
    /// fields in responses.
    public static var standard: Redaction { standardPolicy }

    /// The response fields hidden by default: names that only ever hold a credential.
    /// What replaces a hidden value unless told otherwise.
    @usableFromInline
    static var standardReplacement: String { StandardSecretNames.replacement }

    @usableFromInline
    static var credentialResponseFields: Set<String> { StandardSecretNames.responseFields }

    private static let standardPolicy = Redaction(
        headerNames: StandardSecretNames.headers,
        queryItemNames: StandardSecretNames.queryItems,
        jsonFields: StandardSecretNames.requestFields,
        responseFields: credentialResponseFields
    )

    /// Hides nothing.
    public static var none: Redaction {
        Redaction(headerNames: [], queryItemNames: [], jsonFields: [], responseFields: [], redactsAPIKeyHeaders: false)
    }

    /// A name as compared: lowercased, without `_`, `-`, `.` and spaces (`accessToken`,
    /// `access_token` and `Access-Token` are all `accesstoken`).
    package static func normalize(_ name: some StringProtocol) -> String {
        NameSet.normalize(name)
    }

    /// Which side of an exchange a body or text belongs to: the request's secret names are not
    /// the response's.
    enum Side {
        case request
        case response
    }

    /// The lists, normalized once.
    struct Names: Sendable {
        let headers: Set<String>
        let queryItems: NameSet
        /// Request body fields: ``Redaction/jsonFields`` and ``Redaction/queryItemNames``.
        let fields: NameSet
        let responseFields: NameSet
        let apiKeyHeaders: Bool
        /// Whether URL passwords are hidden: unless the policy hides nothing at all (``Redaction/none``).
        let passwords: Bool

        init(_ redaction: Redaction) {
            headers = Set(redaction.headerNames.map(Redaction.normalize))
            queryItems = NameSet(redaction.queryItemNames)
            fields = NameSet(redaction.jsonFields).union(queryItems)
            responseFields = NameSet(redaction.responseFields)
            apiKeyHeaders = redaction.redactsAPIKeyHeaders
            passwords = !(headers.isEmpty && queryItems.names.isEmpty && fields.names.isEmpty && responseFields.names.isEmpty && !apiKeyHeaders)
        }

        func header(_ name: some StringProtocol) -> Bool {
            let normalized = Redaction.normalize(name)
            return headers.contains(normalized) || (apiKeyHeaders && normalized.contains("apikey"))
        }

        func queryItem(_ name: some StringProtocol) -> Bool { queryItems.contains(name) }

        func field(_ name: some StringProtocol) -> Bool { fields.contains(name) }

        func responseField(_ name: some StringProtocol) -> Bool { responseFields.contains(name) }

        /// Any kind of request-side secret name, for text where the kind is unknown.
        func any(_ name: some StringProtocol) -> Bool {
            fields.contains(name) || header(name)
        }
    }

    var names: Names { cachedNames.value ?? Names(self) }

    /// Whether a header's value is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        names.header(name)
    }

    /// Whether a query item's (or fragment item's) value is hidden.
    public func hidesQueryItem(_ name: String) -> Bool {
        names.queryItem(name)
    }

    /// Whether a request body field's value is hidden (JSON, form, multipart).
    public func hidesField(_ name: String) -> Bool {
        names.field(name)
    }

    /// Whether a response body field's value is hidden (JSON, form, multipart, and `name=value`
    /// pairs in response text).
    public func hidesResponseField(_ name: String) -> Bool {
        names.responseField(name)
    }

    /// The value to show for a header: hidden when its name is secret (a cookie keeps its names
    /// and attributes), redacted as a URL when it holds one (`Referer`, `Location`, …).
    public func header(_ name: String, _ value: String) -> String {
        headerValue(name: name, value: value, names: names, secrets: scrubber(for: []))
    }

    /// The URL with hidden query and fragment items and the user-info password replaced.
    public func url(_ url: String) -> String {
        self.url(url, names: names)
    }

    func url(_ url: String, names: Names) -> String {
        URLRedaction.redacting(url, passwords: names.passwords, replacement: encodedReplacement, isSecretItem: names.queryItem)
    }

    /// The replacement in a URL.
    var encodedReplacement: String {
        URLRedaction.encoded(replacement)
    }

    /// The replacement in a form body (and as text passes recognise it, already hidden).
    var formEncodedReplacement: String {
        replacement.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? replacement
    }

    /// Headers whose value is a URL (and any whose value starts with `http://` or `https://`).
    private static let urlHeaders: Set<String> = ["referer", "origin", "location", "content-location", "refresh"]

    static func isURLValued(name: String, value: String) -> Bool {
        if urlHeaders.contains(name.lowercased()) { return true }
        let start = value.utf8.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return start.starts(with: "http://".utf8) || start.starts(with: "https://".utf8)
    }

    /// The request body with hidden fields replaced; the kind is guessed from its first bytes.
    public func body(_ data: Data) -> Data {
        body(data, contentType: nil)
    }

    /// The request body with hidden fields (``jsonFields`` and ``queryItemNames``) replaced, read
    /// as its content type says: JSON (nested, arrays, NDJSON, with a byte-order mark),
    /// form-encoded, multipart; other UTF-8 text gets the pattern pass; binary bodies are returned
    /// unchanged. Only the hidden values' bytes change.
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: Its `Content-Type`, if known.
    public func body(_ data: Data, contentType: String?) -> Data {
        BodyRedactor(redaction: self, names: names, side: .request).redact(data, contentType: contentType)
    }

    /// The response body with hidden fields (``responseFields``) replaced, read as ``body(_:contentType:)``
    /// reads a request body. Only the hidden values' bytes change.
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: Its `Content-Type`, if known.
    public func responseBody(_ data: Data, contentType: String?) -> Data {
        BodyRedactor(redaction: self, names: names, side: .response).redact(data, contentType: contentType)
    }

    /// A copy of a recorded request with its credentials hidden: header values, query and
    /// fragment items, the URL's password, URL-valued headers, body fields by content type, the
    /// response's hidden headers, URL-valued headers and credential fields, its error text, the
    /// frames of a WebSocket it opened (each message read as a body of its side) — and every
    /// secret value the request carried, wherever else in the exchange it stands as a token.
    public func apply(to request: RecordedRequest) -> RecordedRequest {
        let names = self.names
        // `none`: nothing to look for, and every byte stays.
        guard names.passwords || !namedValues.isEmpty else { return request }
        let secrets = scrubber(for: secretValues(in: request, names: names))
        var copy = request
        copy.url = scrub(url(request.url, names: names), with: secrets)
        copy.queryItems = request.queryItems.map { item in
            guard let value = item.value else { return item }
            return RecordedRequest.QueryItem(name: item.name, value: names.queryItem(item.name) ? replacement : scrub(value, with: secrets))
        }
        copy.headers = request.headers.map { field in
            RecordedRequest.Header(name: field.name, value: requestHeaderValue(name: field.name, value: field.value, names: names, secrets: secrets))
        }
        copy.body = request.body.map {
            BodyRedactor(redaction: self, names: names, side: .request).redact($0, contentType: request.header("Content-Type"), scrubbing: secrets)
        }
        if let response = request.response {
            var headers = HTTPFields()
            for field in response.headerFields {
                var redacted = field
                redacted.value = responseHeaderValue(name: field.name.rawName, value: field.value, names: names, secrets: secrets)
                headers.append(redacted)
            }
            let contentType = response.headerFields[.contentType]
            let outcome: RecordedResponse.Outcome
            switch response.outcome {
            case .failure(let failure): outcome = .failure(failure.mapText { errorText($0, names: names, secrets: secrets) })
            default: outcome = response.outcome
            }
            let (body, isEncoded) = redactedBody(of: response, contentType: contentType) {
                BodyRedactor(redaction: self, names: names, side: .response).redact($0, contentType: contentType, scrubbing: secrets)
            }
            // A stream's parts are redacted as one body (a secret may start in one part and end
            // in the next), each keeping its boundary and its pause: the redacted parts, one
            // after the other, are the redacted body.
            let stream = response.stream.map { stream in
                let redacted = BodyRedactor(redaction: self, names: names, side: .response)
                    .redact(parts: stream.parts.map(\.bytes), contentType: contentType, scrubbing: secrets)
                return ResponseStream(
                    kind: stream.kind,
                    parts: zip(stream.parts, redacted).map { StreamPart(bytes: $1, after: $0.delay) },
                    ending: stream.ending
                )
            }
            copy.response = RecordedResponse(
                outcome: outcome,
                headers: headers,
                body: body,
                bodyIsEncoded: isEncoded,
                duration: response.duration,
                stream: stream,
                // Trailers are redacted as the head's fields are (a secret may ride in either).
                trailers: HTTPFields(response.trailerFields.map { field in
                    var redacted = field
                    redacted.value = responseHeaderValue(name: field.name.rawName, value: field.value, names: names, secrets: secrets)
                    return redacted
                }),
                httpVersion: response.httpVersion
            )
        }
        copy.webSocketFrames = request.webSocketFrames.map { redacted($0, names: names, secrets: secrets) }
        if !request.webhooks.isEmpty {
            // A webhook's URL and message may carry what its templates took from the request.
            copy.webhooks = request.webhooks.map { webhook in
                webhook.mapText(url: { scrub(url($0, names: names), with: secrets) }, message: { errorText($0, names: names, secrets: secrets) })
            }
        }
        return copy
    }

    /// A WebSocket frame with its secrets hidden, by the pass a body of its side gets: a message
    /// read as JSON, a form or text (sniffed; the frame has no content type), and the secret
    /// values the exchange carried; a close's reason as text. Only the secrets' bytes change.
    private func redacted(_ frame: RecordedWebSocketFrame, names: Names, secrets: SecretScrubber) -> RecordedWebSocketFrame {
        let redactor = BodyRedactor(redaction: self, names: names, side: frame.direction == .fromClient ? .request : .response)
        let content: RecordedWebSocketFrame.Content
        switch frame.content {
        case .message(.text(let text)):
            content = .message(.text(String(decoding: redactor.redact(Data(text.utf8), contentType: nil, scrubbing: secrets), as: UTF8.self)))
        case .message(.binary(let data)):
            content = .message(.binary(redactor.redact(data, contentType: nil, scrubbing: secrets)))
        case .close(let code, let reason):
            content = .close(code: code, reason: scrub(reason, with: secrets))
        }
        return RecordedWebSocketFrame(direction: frame.direction, content: content, date: frame.date)
    }

    /// A request header's value as shown: hidden, a URL redacted, or the text with the request's
    /// secret values (as whole tokens) replaced.
    func requestHeaderValue(name: String, value: String, names: Names, secrets: SecretScrubber) -> String {
        headerValue(name: name, value: value, names: names, secrets: secrets)
    }

    /// A response header's value as shown, by the rules of ``requestHeaderValue(name:value:names:secrets:)``.
    func responseHeaderValue(name: String, value: String, names: Names, secrets: SecretScrubber) -> String {
        headerValue(name: name, value: value, names: names, secrets: secrets)
    }

    private func headerValue(name: String, value: String, names: Names, secrets: SecretScrubber) -> String {
        if names.header(name) { return hiddenValue(ofHeader: name, value) }
        if Self.isURLValued(name: name, value: value) { return scrub(url(value, names: names), with: secrets) }
        return scrub(value, with: secrets)
    }

    // MARK: Free text

    /// Text meant for people — a message, a log line, an error — with every credential hidden:
    /// values marked by Airlock's matchers, `name=value`, `name: value` and `"name": "value"`
    /// pairs of secret names (request-side: headers, query items, request body fields), URL
    /// passwords, and the given secret values (those of the request the text is about) where they
    /// stand as whole tokens.
    /// - Parameters:
    ///   - text: The text.
    ///   - secrets: Values to remove wherever they stand as whole tokens.
    /// - Returns: The text, safe to show.
    public func text(_ text: String, secrets: [String] = []) -> String {
        let names = self.names
        return redactText(render(text, names: names), names: names, side: .request, quotesURLs: false, secrets: scrubber(for: secrets))
    }

    /// The error text of a failed exchange, as ``apply(to:)`` shows it (for a log line about the
    /// same failure): see ``errorText(_:names:secrets:)``.
    package func errorText(_ text: String, secrets: [String]) -> String {
        errorText(text, names: names, secrets: scrubber(for: secrets))
    }

    /// The error text of a failed exchange: the URLs it quotes redacted as URLs, pairs of
    /// ``responseFields`` names, URL passwords and the request's secret values as whole tokens
    /// (so `Code=-1004` keeps its code).
    func errorText(_ text: String, names: Names, secrets: SecretScrubber) -> String {
        redactText(text, names: names, side: .response, quotesURLs: true, secrets: secrets)
    }

    private func redactText(_ text: String, names: Names, side: Side, quotesURLs: Bool, secrets: SecretScrubber) -> String {
        var text = text
        let edits = text.withUTF8 { bytes in
            var edits = ByteEdits()
            let all = 0..<bytes.count
            let replacement = Array(self.replacement.utf8)
            for value in TextRedactor(redaction: self, names: names, side: side).ranges(in: bytes, all) {
                edits.replace(value, with: replacement)
            }
            if quotesURLs {
                let encoded = Array(encodedReplacement.utf8)
                for url in URLParts.urls(in: bytes, all) {
                    for value in URLParts.secretRanges(in: bytes, url, passwords: names.passwords, isSecretItem: names.queryItem) { edits.replace(value, with: encoded) }
                }
            }
            secrets.edits(in: bytes, all, into: &edits)
            return edits
        }
        return edits.applied(to: text)
    }

    /// The secret values a request carries — header credentials (without their scheme word,
    /// such as `Bearer`), cookie values, query and fragment items, the URL's password, the secret
    /// parts of URL-valued headers (`Referer: …?access_token=…`), body fields — so that they can
    /// be removed wherever else they appear. Values shorter than four characters are left out:
    /// replacing them everywhere would mangle unrelated text.
    package func secretValues(in request: RecordedRequest) -> [String] {
        secretValues(in: request, names: names)
    }

    /// The secret values of several requests, for a message about all of them.
    package func secretValues(in requests: [RecordedRequest]) -> [String] {
        let names = self.names
        return Array(Set(requests.flatMap { secretValues(in: $0, names: names) })).sorted { $0.count > $1.count }
    }

    private func secretValues(in request: RecordedRequest, names: Names) -> [String] {
        var values: [String] = []
        for field in request.headers {
            if names.header(field.name) {
                values += Self.credentials(in: field.value)
            } else if Self.isURLValued(name: field.name, value: field.value) {
                values += urlSecrets(in: field.value, names: names)
            }
        }
        for item in request.queryItems where names.queryItem(item.name) {
            if let value = item.value { values.append(value) }
        }
        values += urlSecrets(in: request.url, names: names)
        if let body = request.body {
            values += BodyRedactor(redaction: self, names: names, side: .request).secrets(in: body, contentType: request.header("Content-Type"))
        }
        // What the client sent on the WebSocket it opened, read as bodies are.
        for frame in request.webSocketFrames where frame.direction == .fromClient {
            if let message = frame.message {
                values += BodyRedactor(redaction: self, names: names, side: .request).secrets(in: message.bytes, contentType: nil)
            }
        }
        return Array(Set(values.filter { $0.count >= 4 && $0 != replacement })).sorted { $0.count > $1.count }
    }

    /// A credential header's secret values: the value without its scheme word (`Bearer`, `Basic`:
    /// an echoed `Bearer abcd1234` becomes `Bearer [REDACTED]`), or the whole value when it has
    /// none or what follows the scheme word is too short to be looked for on its own, and the
    /// value of each `name=value` pair (cookies).
    private static func credentials(in value: String) -> [String] {
        var values: [String] = []
        if let space = value.firstIndex(of: " "), value.startIndex < space, value[..<space].allSatisfy({ $0.isASCII && $0.isLetter }) {
            let credential = String(value[value.index(after: space)...]).trimmingCharacters(in: .whitespaces)
            values.append(credential)
            if credential.count < 4 { values.append(value) }
        } else {
            values.append(value)
        }
        for pair in value.split(separator: ";") {
            if let equals = pair.firstIndex(of: "=") {
                values.append(String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
            }
        }
        return values
    }

    /// A URL's password and the values of its secret query and fragment items, percent-decoded.
    private func urlSecrets(in url: String, names: Names) -> [String] {
        var url = url
        return url.withUTF8 { bytes in
            URLParts.secretRanges(in: bytes, 0..<bytes.count, passwords: names.passwords, isSecretItem: names.queryItem).map {
                PercentDecoding.decode(Substring(String(decoding: bytes[$0], as: UTF8.self)))
            }
        }
    }

    func scrubber(for secrets: [String]) -> SecretScrubber {
        SecretScrubber(secrets: secrets, replacement: replacement, encodedReplacement: encodedReplacement, named: namedValues)
    }

    /// `text` with every secret value, and its percent-encoded form, replaced where it stands as
    /// a whole token.
    package func scrub(_ text: String, secrets: [String]) -> String {
        guard !secrets.isEmpty else { return text }
        return scrub(text, with: scrubber(for: secrets))
    }

    func scrub(_ text: String, with secrets: SecretScrubber) -> String {
        guard !secrets.isEmpty else { return text }
        var text = text
        let edits = text.withUTF8 { bytes in
            var edits = ByteEdits()
            secrets.edits(in: bytes, 0..<bytes.count, into: &edits)
            return edits
        }
        return edits.applied(to: text)
    }

    /// A body with every secret value replaced where it stands as a whole token, when it is UTF-8
    /// text; other bodies unchanged.
    package func scrub(_ data: Data, secrets: [String]) -> Data {
        guard !secrets.isEmpty else { return data }
        let scrubber = scrubber(for: secrets)
        let edits = data.withUnsafeBytes { raw -> ByteEdits in
            let bytes = raw.bindMemory(to: UInt8.self)
            var edits = ByteEdits()
            if RedactionBytes.isValidUTF8(bytes) { scrubber.edits(in: bytes, 0..<bytes.count, into: &edits) }
            return edits
        }
        return edits.applied(to: data)
    }

    // MARK: Marked values

    /// A header value in a message, marked so that the output pass shows it only if the header is
    /// not secret. Matchers describe expected and actual values this way.
    package static func markHeader(_ name: String, _ value: String) -> String {
        "\u{1}\(name)\u{2}\(value)\u{3}"
    }

    /// A query item or body field value in a message, marked like ``markHeader(_:_:)``.
    package static func markField(_ name: String, _ value: String) -> String {
        "\u{4}\(name)\u{2}\(value)\u{3}"
    }

    /// Marked values shown or replaced, as their names say.
    package func render(_ text: String) -> String {
        render(text, names: names)
    }

    func render(_ text: String, names: Names) -> String {
        guard text.contains(where: { $0 == "\u{1}" || $0 == "\u{4}" }) else { return text }
        var result = ""
        var index = text.startIndex
        while let start = text[index...].firstIndex(where: { $0 == "\u{1}" || $0 == "\u{4}" }) {
            result += text[index..<start]
            guard let separator = text[start...].firstIndex(of: "\u{2}"), let end = text[separator...].firstIndex(of: "\u{3}") else {
                index = text.index(after: start)
                continue
            }
            let name = text[text.index(after: start)..<separator]
            let value = text[text.index(after: separator)..<end]
            let hidden = text[start] == "\u{1}" ? names.header(name) : names.field(name)
            result += hidden ? replacement : String(value)
            index = text.index(after: end)
        }
        result += text[index...]
        return result
    }
}
