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
