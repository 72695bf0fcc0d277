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
/// - **headers** in ``headerNames``, and any name containing `api-key` / `apikey`;
/// - **query items** (and URL fragments such as `#access_token=…`) in ``queryItemNames``;
/// - **fields** in ``jsonFields`` or ``queryItemNames``, in JSON bodies (nested, arrays, NDJSON,
///   with or without a byte-order mark), form-encoded and multipart bodies, and — for other text —
///   `name=value`, `name: value` and `"name": "value"` pairs;
/// - **URL passwords** (`https://user:…@host`) and `Location` targets;
/// - a secret value the request carried, wherever else it appears in the exchange (a server
///   echoing a token, an error message quoting the URL).
///
/// ```swift
/// mock.redaction.jsonFields.insert("pin")
/// mock.redaction = .none   // show everything (never in shared logs)
/// ```
public struct Redaction: Sendable, Hashable {
    /// Header names whose values are hidden, in addition to API-key style names.
    public var headerNames: Set<String>
    /// Query item names whose values are hidden (also form fields and fragment items).
    public var queryItemNames: Set<String>
    /// Body field names, at any depth, whose values are hidden (JSON, form and multipart fields).
    public var jsonFields: Set<String>
    /// What replaces a hidden value.
    public var replacement: String
    /// Whether API-key style header names (containing `api-key`, `api_key` or `apikey`) are hidden.
    public var redactsAPIKeyHeaders: Bool

    /// Creates a redaction policy.
    public init(
        headerNames: Set<String>,
        queryItemNames: Set<String>,
        jsonFields: Set<String>,
        replacement: String = "[REDACTED]",
        redactsAPIKeyHeaders: Bool = true
    ) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.queryItemNames = Set(queryItemNames.map { $0.lowercased() })
        self.jsonFields = Set(jsonFields.map { $0.lowercased() })
        self.replacement = replacement
        self.redactsAPIKeyHeaders = redactsAPIKeyHeaders
    }

    /// The default: credential headers, token-like query items and secret body fields, including
    /// the signing parameters of the common cloud providers.
    public static var standard: Redaction { standardPolicy }

    private static let standardPolicy = Redaction(
        headerNames: [
            "authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token", "x-access-token",
            "private-token", "x-amz-security-token", "x-csrf-token", "x-xsrf-token", "x-goog-iap-jwt-assertion",
            "ocp-apim-subscription-key", "x-functions-key", "x-vault-token", "x-hub-signature", "x-hub-signature-256",
        ],
        queryItemNames: [
            "api_key", "apikey", "access_token", "token", "key", "sig", "signature", "password", "passwd",
            "secret", "client_secret", "refresh_token", "id_token", "code", "auth", "session_id", "sessionid",
            "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature", "x-goog-credential",
            "jwt", "assertion", "client_assertion", "private_key",
        ],
        jsonFields: [
            "password", "passwd", "pwd", "token", "access_token", "refresh_token", "id_token", "secret",
            "client_secret", "api_key", "apikey", "private_key", "credentials", "credential", "authorization",
            "session_id", "sessionid", "otp", "pin", "ssn", "card_number", "cvv", "jwt", "client_assertion",
        ]
    )

    /// Hides nothing.
    public static var none: Redaction {
        Redaction(headerNames: [], queryItemNames: [], jsonFields: [], redactsAPIKeyHeaders: false)
    }

    /// A name as compared: lowercased, without `_`, `-`, `.` and spaces (`accessToken`,
    /// `access_token` and `Access-Token` are all `accesstoken`).
    package static func normalize(_ name: some StringProtocol) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != "." && $0 != " " })
    }

    /// The lists, normalized once for a pass.
    struct Names {
        let headers: Set<String>
        let queryItems: Set<String>
        let fields: Set<String>
        let apiKeyHeaders: Bool

        init(_ redaction: Redaction) {
            headers = Set(redaction.headerNames.map(Redaction.normalize))
            queryItems = Set(redaction.queryItemNames.map(Redaction.normalize))
            fields = Set(redaction.jsonFields.map(Redaction.normalize)).union(queryItems)
            apiKeyHeaders = redaction.redactsAPIKeyHeaders
        }

        func header(_ name: some StringProtocol) -> Bool {
            let normalized = Redaction.normalize(name)
            return headers.contains(normalized) || (apiKeyHeaders && normalized.contains("apikey"))
        }

        func queryItem(_ name: some StringProtocol) -> Bool { queryItems.contains(Redaction.normalize(name)) }

        func field(_ name: some StringProtocol) -> Bool { fields.contains(Redaction.normalize(name)) }

        /// Any kind of secret name, for text where the kind is unknown.
        func any(_ name: some StringProtocol) -> Bool {
            let normalized = Redaction.normalize(name)
            return fields.contains(normalized) || headers.contains(normalized) || (apiKeyHeaders && normalized.contains("apikey"))
        }
    }

    var names: Names { Names(self) }

    /// Whether a header's value is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        names.header(name)
    }

    /// Whether a query item's (or fragment item's) value is hidden.
    public func hidesQueryItem(_ name: String) -> Bool {
        names.queryItem(name)
    }

    /// Whether a body field's value is hidden (JSON, form, multipart).
    public func hidesField(_ name: String) -> Bool {
        names.field(name)
    }

    /// The value to show for a header.
    public func header(_ name: String, _ value: String) -> String {
        hidesHeader(name) ? hiddenValue(ofHeader: name, value) : value
    }

    /// The URL with hidden query and fragment items and the user-info password replaced.
    public func url(_ url: String) -> String {
        self.url(url, names: names)
    }

    func url(_ url: String, names: Names) -> String {
        var text = Self.withoutPassword(url, replacement: encodedReplacement)
        guard let delimiter = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return text }
        let head = text[..<delimiter]
        let rest = text[delimiter...]
        var result = String(head)
        // The query, then the fragment: each `&`-separated `name=value` list.
        var remaining = rest
        while let marker = remaining.first {
            let body = remaining.dropFirst()
            let end = marker == "?" ? (body.firstIndex(of: "#") ?? body.endIndex) : body.endIndex
            result.append(marker)
            result += body[..<end].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, names.queryItem(PercentDecoding.decode(parts[0])) else { return String(pair) }
                return "\(parts[0])=\(encodedReplacement)"
            }.joined(separator: "&")
            remaining = body[end...]
        }
        text = result
        return text
    }

    private var encodedReplacement: String {
        replacement.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? replacement
    }

    /// `scheme://user:password@host` with the password replaced.
    private static func withoutPassword(_ url: String, replacement: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        let authority = url[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
        return String(url[..<authority.index(after: colon)]) + replacement + String(url[at...])
    }

    /// The body with hidden fields replaced; the kind is guessed from its first bytes.
    public func body(_ data: Data) -> Data {
        body(data, contentType: nil)
    }

    /// The body with hidden fields replaced, read as its content type says: JSON (nested,
    /// arrays, NDJSON, with a byte-order mark), form-encoded, multipart; other UTF-8 text gets the
    /// pattern pass; binary bodies are returned unchanged.
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: Its `Content-Type`, if known.
    public func body(_ data: Data, contentType: String?) -> Data {
        BodyRedactor(redaction: self, names: names).redact(data, contentType: contentType)
    }

    /// A copy of a recorded request with its credentials hidden: header values, query and
    /// fragment items, the URL's password, body fields by content type, the response's hidden
    /// headers, `Location` and body, its error text — and every secret value the request carried,
    /// wherever else in the exchange it appears.
    public func apply(to request: RecordedRequest) -> RecordedRequest {
        let names = self.names
        let secrets = secretValues(in: request, names: names)
        var copy = request
        copy.url = scrub(url(request.url, names: names), secrets: secrets)
        copy.queryItems = request.queryItems.map { item in
            names.queryItem(item.name) && item.value != nil ? RecordedRequest.QueryItem(name: item.name, value: replacement) : item
        }
        copy.headers = request.headers.map { field in
            RecordedRequest.Header(name: field.name, value: names.header(field.name) ? hiddenValue(ofHeader: field.name, field.value) : scrub(field.value, secrets: secrets))
        }
        let redactor = BodyRedactor(redaction: self, names: names)
        copy.body = request.body.map { scrub(redactor.redact($0, contentType: request.header("Content-Type")), secrets: secrets) }
        if let response = request.response {
            var headers = HTTPFields()
            for field in response.headerFields {
                let name = field.name.rawName
                var redacted = field
                if names.header(name) {
                    redacted.value = hiddenValue(ofHeader: name, field.value)
                } else if Self.urlHeaders.contains(name.lowercased()) {
                    redacted.value = scrub(url(field.value, names: names), secrets: secrets)
                } else {
                    redacted.value = scrub(field.value, secrets: secrets)
                }
                headers.append(redacted)
            }
            let contentType = response.headerFields[.contentType]
            let outcome: RecordedResponse.Outcome
            switch response.outcome {
            case .failure(let message): outcome = .failure(text(message, secrets: secrets))
            default: outcome = response.outcome
            }
            let (body, isEncoded) = redactedBody(of: response, contentType: contentType) { scrub(redactor.redact($0, contentType: contentType), secrets: secrets) }
            copy.response = RecordedResponse(
                outcome: outcome,
                headers: headers,
                body: body,
                bodyIsEncoded: isEncoded,
                duration: response.duration
            )
        }
        return copy
    }

    /// Response headers whose value is a URL.
    private static let urlHeaders: Set<String> = ["location", "content-location", "refresh"]

    // MARK: Free text

    /// Text meant for people — a message, a log line, an error — with every credential hidden:
    /// values marked by Airlock's matchers, `name=value`, `name: value` and `"name": "value"`
    /// pairs of secret names, URL passwords, and the given secret values (those of the request
    /// the text is about).
    /// - Parameters:
    ///   - text: The text.
    ///   - secrets: Values to remove wherever they appear.
    /// - Returns: The text, safe to show.
    public func text(_ text: String, secrets: [String] = []) -> String {
        let names = self.names
        var result = render(text, names: names)
        result = TextRedactor(redaction: self, names: names).redact(result)
        return scrub(result, secrets: secrets)
    }

    /// The secret values a request carries — header credentials (without their scheme word,
    /// such as `Bearer`), cookie values, query and fragment items, body fields — so that they can be
    /// removed wherever else they appear. Values shorter than four characters are left out:
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
        for field in request.headers where names.header(field.name) {
            values.append(field.value)
            if let space = field.value.firstIndex(of: " ") {
                values.append(String(field.value[field.value.index(after: space)...]).trimmingCharacters(in: .whitespaces))
            }
            for pair in field.value.split(separator: ";") {
                if let equals = pair.firstIndex(of: "=") {
                    values.append(String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
                }
            }
        }
        for item in request.queryItems where names.queryItem(item.name) {
            if let value = item.value { values.append(value) }
        }
        if let fragment = request.url.firstIndex(of: "#") {
            for pair in request.url[request.url.index(after: fragment)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, names.queryItem(PercentDecoding.decode(parts[0])) { values.append(PercentDecoding.decode(parts[1])) }
            }
        }
        if let password = Self.password(in: request.url) { values.append(password) }
        if let body = request.body {
            values += BodyRedactor(redaction: self, names: names).secrets(in: body, contentType: request.header("Content-Type"))
        }
        return Array(Set(values.filter { $0.count >= 4 && $0 != replacement })).sorted { $0.count > $1.count }
    }

    private static func password(in url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        let authority = url[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return nil }
        return PercentDecoding.decode(authority[authority.index(after: colon)..<at])
    }

    /// `text` with every secret value, and its percent-encoded form, replaced.
    package func scrub(_ text: String, secrets: [String]) -> String {
        guard !secrets.isEmpty else { return text }
        var result = text
        for secret in secrets {
            result = result.replacingOccurrences(of: secret, with: replacement)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                result = result.replacingOccurrences(of: encoded, with: encodedReplacement)
            }
        }
        return result
    }

    /// A body with every secret value replaced, when it is UTF-8 text; other bodies unchanged.
    package func scrub(_ data: Data, secrets: [String]) -> Data {
        guard !secrets.isEmpty, let text = String(data: data, encoding: .utf8) else { return data }
        let scrubbed = scrub(text, secrets: secrets)
        return scrubbed == text ? data : Data(scrubbed.utf8)
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
