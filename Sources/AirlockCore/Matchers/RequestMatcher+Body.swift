import AirlockBase
import Foundation

extension RequestMatcher {
    /// The body is exactly these bytes.
    public static func body(_ data: Data) -> RequestMatcher {
        RequestMatcher(description: "body of \(data.count) bytes") { request in
            request.body ?? Data() == data ? [] : ["body differs: \(Self.preview(request.body)) vs \(Self.preview(data))"]
        }
    }

    /// The body is exactly this UTF-8 text.
    public static func body(_ text: String) -> RequestMatcher {
        RequestMatcher(description: "body \"\(Self.truncate(text))\"") { request in
            request.body ?? Data() == Data(text.utf8) ? [] : ["body differs: \(Self.preview(request.body)) vs \"\(Self.truncate(text))\""]
        }
    }

    /// The body, as UTF-8 text, contains this text.
    public static func bodyContains(_ text: String) -> RequestMatcher {
        RequestMatcher(description: "body containing \"\(Self.truncate(text))\"") { request in
            (request.bodyText ?? "").contains(text) ? [] : ["body does not contain \"\(Self.truncate(text))\": \(Self.preview(request.body))"]
        }
    }

    /// The body is JSON equal to this JSON text, ignoring key order and white space.
    public static func json(_ text: String) -> RequestMatcher {
        json(data: Data(text.utf8), label: Self.truncate(text))
    }

    /// The body is JSON equal to this value's JSON encoding, ignoring key order and white space.
    public static func json(_ value: some Encodable) -> RequestMatcher {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else {
            let text = "\(value)"
            return RequestMatcher(description: "JSON of \(text)") { _ in ["the expected value \(text) could not be encoded to JSON"] }
        }
        return json(data: data, label: Self.truncate(String(decoding: data, as: UTF8.self)))
    }

    /// The body is JSON equal to this dictionary, ignoring key order and white space.
    public static func json(_ object: [String: Any]) -> RequestMatcher {
        // `Any` is Foundation's object model (NSNumber, NSNull, bridged collections), which
        // JSONSerialization alone reads whole; a dictionary has no order to keep, so sorted keys.
        guard JSONSerialization.isValidJSONObject(object),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else {
            let text = "\(object)"
            return RequestMatcher(description: "JSON \(text)") { _ in ["the expected dictionary \(text) is not valid JSON"] }
        }
        return json(data: data, label: Self.truncate(String(decoding: data, as: UTF8.self)))
    }

    private static func json(data: Data, label: String) -> RequestMatcher {
        guard let expected = try? JSONValue.parse(data) else {
            return RequestMatcher(description: "JSON \(label)") { _ in ["the expected JSON \(label) does not parse"] }
        }
        return RequestMatcher(description: "JSON \(label)") { request in
            guard let body = request.body, let actual = try? JSONValue.parse(body) else {
                return ["body is not JSON: \(Self.preview(request.body))"]
            }
            return actual == expected ? [] : ["JSON body differs: \(Self.preview(body)) vs \(label)"]
        }
    }

    /// The body decodes as `type` and the decoded value satisfies `predicate`.
    ///
    /// ```swift
    /// .decodable(NewUser.self) { $0.name == "Alice" && $0.age >= 18 }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode the JSON body as, with a default `JSONDecoder`.
    ///   - predicate: What the decoded value must satisfy; defaults to accepting any value.
    public static func decodable<T: Decodable & SendableMetatype>(
        _ type: T.Type,
        where predicate: @escaping @Sendable (T) -> Bool = { _ in true }
    ) -> RequestMatcher {
        RequestMatcher(description: "body decoding as \(T.self)") { request in
            guard let body = request.body else { return ["body missing; expected \(T.self)"] }
            do {
                let value = try JSONDecoder().decode(T.self, from: body)
                return predicate(value) ? [] : ["decoded \(T.self) does not satisfy the predicate: \(value)"]
            } catch {
                return ["body does not decode as \(T.self): \(error)"]
            }
        }
    }

    /// The body is `application/x-www-form-urlencoded` and carries these fields (others are
    /// ignored).
    public static func form(_ fields: [String: String]) -> RequestMatcher {
        let label = fields.keys.sorted().map { "\($0)=\(Redaction.markField($0, fields[$0]!))" }.joined(separator: "&")
        return RequestMatcher(description: "form fields \(label)") { request in
            let actual = FormFields.parse(request.bodyText ?? "")
            return fields.keys.sorted().compactMap { name in
                switch actual[name] {
                case nil: return "form field \(name) missing"
                case let value? where value != fields[name]:
                    return "form field \(name)=\(Redaction.markField(name, value)) vs \(Redaction.markField(name, fields[name]!))"
                default: return nil
                }
            }
        }
    }

    /// The first 64 bytes of a body, as text when it is text.
    package static func preview(_ body: Data?) -> String {
        guard let body, !body.isEmpty else { return "(empty)" }
        if let text = String(data: body.prefix(64), encoding: .utf8) {
            return "\"\(text)\(body.count > 64 ? "…" : "")\""
        }
        return "\(body.count) bytes"
    }

    package static func truncate(_ text: String, to length: Int = 64) -> String {
        text.count > length ? String(text.prefix(length)) + "…" : text
    }
}

/// `application/x-www-form-urlencoded` parsing: `+` is a space, then percent-decoding.
package enum FormFields {
    package static func parse(_ text: String) -> [String: String] {
        Dictionary(pairs(text), uniquingKeysWith: { _, last in last })
    }

    /// Every field in order, repeated names kept.
    package static func pairs(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                PercentDecoding.decode(Substring(part.replacingOccurrences(of: "+", with: " ")))
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// `name=value&…`, percent-encoded.
    package static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name) + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }.joined(separator: "&")
    }
}
