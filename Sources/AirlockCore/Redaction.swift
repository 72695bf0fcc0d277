import Foundation

/// Which credentials to hide in recorded traffic, logs, messages and exports, and how.
///
/// On by default everywhere: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and
/// API-key style headers (any name containing `api-key`, `api_key` or `apikey`, and
/// `X-Auth-Token`), the query items and JSON body fields in ``queryItemNames`` and
/// ``jsonFields``. Values are replaced, names are kept, so a message still shows that a
/// credential was sent.
///
/// ```swift
/// mock.redaction.jsonFields.insert("pin")
/// mock.redaction = .none   // show everything (never in shared logs)
/// ```
public struct Redaction: Sendable, Hashable {
    /// Header names (lowercased) whose values are hidden, in addition to API-key style names.
    public var headerNames: Set<String>
    /// Query item names (lowercased) whose values are hidden.
    public var queryItemNames: Set<String>
    /// JSON object keys (lowercased), at any depth, whose values are hidden.
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

    /// The default: credentials headers, common token query items and JSON fields.
    public static var standard: Redaction {
        Redaction(
            headerNames: ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token"],
            queryItemNames: ["api_key", "apikey", "access_token", "token", "key", "sig", "signature", "password"],
            jsonFields: ["password", "token", "access_token", "refresh_token", "id_token", "secret", "client_secret", "api_key", "apikey"]
        )
    }

    /// Hides nothing.
    public static var none: Redaction {
        Redaction(headerNames: [], queryItemNames: [], jsonFields: [], redactsAPIKeyHeaders: false)
    }

    /// Whether a header's value is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if headerNames.contains(lowered) { return true }
        return redactsAPIKeyHeaders && (lowered.contains("api-key") || lowered.contains("api_key") || lowered.contains("apikey"))
    }

    /// The value to show for a header.
    public func header(_ name: String, _ value: String) -> String {
        hidesHeader(name) ? replacement : value
    }

    /// The URL with hidden query item values replaced.
    public func url(_ url: String) -> String {
        guard !queryItemNames.isEmpty, let question = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(parts[0]).lowercased()
            guard parts.count == 2, queryItemNames.contains(name) else { return String(pair) }
            return "\(parts[0])=\(replacement.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? replacement)"
        }
        return url[..<question] + "?" + items.joined(separator: "&") + url[fragmentStart...]
    }

    /// The body with hidden JSON fields replaced; bodies that are not JSON are returned unchanged.
    public func body(_ data: Data) -> Data {
        guard !jsonFields.isEmpty, let first = data.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return data }
        let redacted = redactJSON(object)
        return (try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed])) ?? data
    }

    /// A copy of a recorded request with its credentials hidden: header values, query items in
    /// the URL and JSON body fields.
    public func apply(to request: RecordedRequest) -> RecordedRequest {
        var copy = request
        copy.url = url(request.url)
        copy.queryItems = request.queryItems.map { item in
            queryItemNames.contains(item.name.lowercased()) && item.value != nil
                ? RecordedRequest.QueryItem(name: item.name, value: replacement) : item
        }
        copy.headers = request.headers.map { RecordedRequest.Header(name: $0.name, value: header($0.name, $0.value)) }
        copy.body = request.body.map(body)
        if let response = request.response {
            copy.response = RecordedResponse(
                outcome: response.outcome,
                headers: Dictionary(uniqueKeysWithValues: response.headers.map { ($0.key, header($0.key, $0.value)) }),
                body: body(response.body),
                duration: response.duration
            )
        }
        return copy
    }

    private func redactJSON(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, child) in object {
                result[key] = jsonFields.contains(key.lowercased()) ? replacement : redactJSON(child)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map(redactJSON)
        }
        return value
    }
}

extension Redaction {
    /// The values this redaction hides in a request — header credentials (without their scheme
    /// word, such as `Bearer`), cookie values, query items, JSON fields — so that they can be
    /// removed wherever else they appear in the exchange (a server echoing a token in its body).
    /// Values shorter than four characters are left out: replacing them everywhere would mangle
    /// unrelated text.
    package func secretValues(in request: RecordedRequest) -> [String] {
        var values: [String] = []
        for field in request.headers where hidesHeader(field.name) {
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
        for item in request.queryItems where queryItemNames.contains(item.name.lowercased()) {
            if let value = item.value { values.append(value) }
        }
        if !jsonFields.isEmpty, let body = request.body, let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
            collectJSONSecrets(object, into: &values)
        }
        return Array(Set(values.filter { $0.count >= 4 && $0 != replacement })).sorted { $0.count > $1.count }
    }

    /// `text` with every secret value, and its percent-encoded form, replaced.
    package func scrub(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets {
            result = result.replacingOccurrences(of: secret, with: replacement)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                result = result.replacingOccurrences(of: encoded, with: replacement)
            }
        }
        return result
    }

    /// A body with every secret value replaced, when it is UTF-8 text; other bodies unchanged.
    package func scrub(_ data: Data, secrets: [String]) -> Data {
        guard !secrets.isEmpty, let text = String(data: data, encoding: .utf8) else { return data }
        return Data(scrub(text, secrets: secrets).utf8)
    }

    private func collectJSONSecrets(_ value: Any, into values: inout [String]) {
        if let object = value as? [String: Any] {
            for (key, child) in object {
                if jsonFields.contains(key.lowercased()) {
                    if let text = child as? String { values.append(text) } else if let number = child as? NSNumber { values.append(number.stringValue) }
                } else {
                    collectJSONSecrets(child, into: &values)
                }
            }
        } else if let array = value as? [Any] {
            for child in array { collectJSONSecrets(child, into: &values) }
        }
    }
}
