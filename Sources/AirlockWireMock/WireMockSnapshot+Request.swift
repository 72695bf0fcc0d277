import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

extension WireMockSnapshot {
    /// The `request` of a mapping, as WireMock's `RequestPatternTransformer` and
    /// `RequestBodyAutomaticPatternFactory` make it, with redaction's placeholders matching any
    /// value (as they do in the cassette).
    static func requestPattern(_ entry: RecordedRequest, target: RequestTarget, placeholders: [String]) -> JSONValue {
        var members: [(String, JSONValue)] = []
        let pathHasPlaceholder = placeholders.contains { entry.path.contains($0) || target.path.contains(percentEncoded($0)) }
        if pathHasPlaceholder {
            members.append(("urlPathPattern", .string(wildcardPattern(target.path, placeholders: placeholders, wildcard: "[^/]*"))))
        } else if target.query?.isEmpty ?? true {
            members.append(("url", .string(target.pathAndQuery)))
        } else {
            members.append(("urlPath", .string(target.path)))
        }
        members.append(("method", .string(entry.method)))
        let query = queryParameters(entry.queryItems, placeholders: Set(placeholders))
        if !query.isEmpty { members.append(("queryParameters", .members(query))) }
        if let body = entry.body, !body.isEmpty {
            members.append(("bodyPatterns", .array([bodyPattern(body, contentType: entry.header("Content-Type"), placeholders: placeholders)])))
        }
        return .members(members)
    }

    /// A mapping that answers exactly `request` with a placeholder — `200` and the body `…`, as
    /// a stub-file entry for a request that got no response has it: what the traffic page copies
    /// for an unmatched request, to be given its real response.
    /// - Parameter request: The request, already through the output's redaction.
    package static func placeholderMapping(for request: RecordedRequest) -> JSONValue {
        .members([
            ("request", requestPattern(request, target: RequestTarget(url: request.url), placeholders: [])),
            ("response", .members([("status", .number(200)), ("body", .string("…"))])),
        ])
    }

    /// One entry per name, in the order names first occur: `equalTo`, `matches` for a redacted
    /// value, `hasExactly` for a repeated name.
    private static func queryParameters(_ items: [RecordedRequest.QueryItem], placeholders: Set<String>) -> [(String, JSONValue)] {
        var names: [String] = []
        var values: [String: [String]] = [:]
        for item in items {
            if values[item.name] == nil { names.append(item.name) }
            values[item.name, default: []].append(item.value ?? "")
        }
        func pattern(_ value: String) -> JSONValue {
            placeholders.contains(value) ? .members([("matches", .string(".*"))]) : .members([("equalTo", .string(value))])
        }
        return names.map { name in
            let list = values[name] ?? []
            return (name, list.count == 1 ? pattern(list[0]) : .members([("hasExactly", .array(list.map(pattern)))]))
        }
    }

    /// `equalToJson` for JSON, `anything` for multipart (its boundary changes on every request),
    /// `binaryEqualTo` for bytes that are not text, `equalTo` (or `matches`, around a redacted
    /// form value) for other text.
    private static func bodyPattern(_ body: Data, contentType: String?, placeholders: [String]) -> JSONValue {
        let mimeType = contentType.map(ContentTypes.mimeType)
        let text = String(decoding: body, as: UTF8.self)
        let isUTF8 = text.utf8.elementsEqual(body)
        guard isUTF8 else { return .members([("binaryEqualTo", .string(body.base64EncodedString()))]) }
        if let mimeType {
            if mimeType.contains("json"), (try? JSONValue.parse(body)) != nil {
                return .members([
                    ("equalToJson", .string(ignoringPlaceholders(text, placeholders: placeholders))),
                    ("ignoreArrayOrder", .bool(true)), ("ignoreExtraElements", .bool(true)),
                ])
            }
            if mimeType == "multipart/form-data" { return .members([("anything", .string("anything"))]) }
            if mimeType.contains("x-www-form-urlencoded"), placeholders.contains(where: { text.contains($0) || text.contains(percentEncoded($0)) }) {
                return .members([("matches", .string(wildcardPattern(text, placeholders: placeholders, wildcard: "[^&]*")))])
            }
            if !ContentTypes.isWireMockText(mimeType) {
                return .members([("binaryEqualTo", .string(body.base64EncodedString()))])
            }
        }
        return .members([("equalTo", .string(text))])
    }

    /// JSON text with each string value that is a placeholder (`"[REDACTED]"`) replaced by
    /// JsonUnit's `"${json-unit.ignore}"`, which matches any value.
    static func ignoringPlaceholders(_ json: String, placeholders: [String]) -> String {
        var text = json
        for placeholder in placeholders {
            let quoted = JSONValue.quoted(placeholder)
            var result = ""
            var rest = Substring(text)
            while let range = rest.range(of: quoted) {
                let before = rest[..<range.lowerBound]
                result += before
                // An escaped quote (`\"[REDACTED]\"`) is inside another string: left as is.
                result += before.last == "\\" ? quoted : "\"${json-unit.ignore}\""
                rest = rest[range.upperBound...]
            }
            text = result + rest
        }
        return text
    }

    /// A regular expression matching `text` with each placeholder (as is or percent-encoded)
    /// standing for any run of `wildcard`.
    static func wildcardPattern(_ text: String, placeholders: [String], wildcard: String) -> String {
        let forms = placeholders.flatMap { [$0, percentEncoded($0)] }.sorted { $0.count > $1.count }
        var pattern = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            let hits = forms.compactMap { form in rest.range(of: form).map { (range: $0, form: form) } }
            guard let first = hits.min(by: { $0.range.lowerBound < $1.range.lowerBound }) else { break }
            pattern += NSRegularExpression.escapedPattern(for: String(rest[..<first.range.lowerBound])) + wildcard
            rest = rest[first.range.upperBound...]
        }
        return pattern + NSRegularExpression.escapedPattern(for: String(rest))
    }

    /// The placeholder as it reads in a URL or form (`%5BREDACTED%5D`).
    private static func percentEncoded(_ placeholder: String) -> String {
        placeholder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? placeholder
    }
}
