import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation

/// One entry of a request's `multipartPatterns`: rules on the parts of a `multipart/…` body, which
/// any part (`"matchingType": "ANY"`, the default) or every part (`"ALL"`) must meet.
///
/// As WireMock reads it: a part meets the entry when each of its `headers` rules (header names
/// compare ignoring case) and `bodyPatterns` (on the part's bytes as text, or `binaryEqualTo`)
/// hold, and — WireMock 3 — its `filename` is `fileName`, when given. An entry with neither
/// `headers` nor `bodyPatterns` is met by any part. `name` is a label only: WireMock does not
/// compare it (match the part's name with a `Content-Disposition` header rule). A request that
/// is not multipart, or has no part WireMock reads, meets no entry.
struct WireMockMultipartPattern: Sendable {
    let matchesAll: Bool
    let name: String?
    let fileName: String?
    let headers: [(name: String, pattern: WireMockMultiValuePattern)]?
    let bodyPatterns: [WireMockBodyPattern]?

    static let fields: Set<String> = ["name", "fileName", "matchingType", "headers", "bodyPatterns"]

    /// A rule for each entry of `multipartPatterns`.
    static func rules(_ node: JSONNode) throws(StubFileError) -> [WireMockRule] {
        var rules: [WireMockRule] = []
        for item in try node.array(of: "multipart patterns") {
            let pattern = try decode(item)
            rules.append(WireMockRule(part: .multipart, template: pattern.template, verdict: pattern.verdict, actual: pattern.actual))
        }
        return rules
    }

    static func decode(_ node: JSONNode) throws(StubFileError) -> WireMockMultipartPattern {
        let object = try node.object("a multipart pattern", fields: fields)
        var matchesAll = false
        if let field = object["matchingType"] {
            let type = try field.string()
            switch type.uppercased() {
            case "ALL": matchesAll = true
            case "ANY": matchesAll = false
            default: throw field.error(.invalidValue, "is \"\(type)\"", expected: "\"ANY\" (some part matches) or \"ALL\" (every part matches)")
            }
        }
        var headers: [(name: String, pattern: WireMockMultiValuePattern)]?
        if let field = object["headers"] {
            var rules: [(name: String, pattern: WireMockMultiValuePattern)] = []
            for (name, rule) in try field.members("an object of header names and matchers") {
                let pattern = try WireMockMultiValuePattern.decode(rule)
                rules.append((name, pattern))
            }
            headers = rules
        }
        var bodyPatterns: [WireMockBodyPattern]?
        if let field = object["bodyPatterns"] {
            var patterns: [WireMockBodyPattern] = []
            for item in try field.array(of: "body patterns") { patterns.append(try WireMockBodyPattern.decode(item)) }
            bodyPatterns = patterns
        }
        return WireMockMultipartPattern(
            matchesAll: matchesAll,
            name: try object["name"]?.string(),
            fileName: try object["fileName"]?.string(),
            headers: headers,
            bodyPatterns: bodyPatterns
        )
    }

    /// How the request's parts fare.
    func verdict(_ request: WireMockRequestView) -> WireMockVerdict {
        guard WireMockMultipart.isMultipart(contentType: request.headerValues("Content-Type")?.first) else { return .miss }
        let parts = request.multipartParts
        guard !parts.isEmpty else { return .miss }
        let matched = matchesAll
            ? parts.allSatisfy { matches($0, json: request.json) }
            : parts.contains { matches($0, json: request.json) }
        return WireMockVerdict(matched)
    }

    /// Whether one part meets every rule of the entry.
    func matches(_ part: WireMockMultipart.Part, json: (String) -> JSONValue?) -> Bool {
        guard headers != nil || bodyPatterns != nil else { return true }
        for (name, pattern) in headers ?? [] where !pattern.verdict(part.headerValues(name), json: json).matched { return false }
        for pattern in bodyPatterns ?? [] {
            let matched: Bool = switch pattern {
            case .text(let text): text.verdict(for: String(decoding: part.body, as: UTF8.self), json: json).matched
            case .binaryEqualTo(let data): part.body == data
            }
            guard matched else { return false }
        }
        if let fileName, !fileName.isEmpty, part.fileName != fileName { return false }
        return true
    }

    /// `multipart ANY part (header Content-Disposition contains "name=\"info\"" and body equalToJson {})`.
    var template: String {
        var rules: [String] = []
        for (name, pattern) in headers ?? [] { rules.append("header \(name) \(pattern.template(.header(name)))") }
        for pattern in bodyPatterns ?? [] { rules.append(pattern.template) }
        if let fileName, !fileName.isEmpty { rules.append("fileName \"\(fileName)\"") }
        let label = name.map { " \"\($0)\"" } ?? ""
        return "multipart\(label) \(matchesAll ? "ALL parts" : "ANY part")" + (rules.isEmpty ? "" : " (" + rules.joined(separator: " and ") + ")")
    }

    /// What the request had instead.
    func actual(_ request: WireMockRequestView) -> String {
        let contentType = request.headerValues("Content-Type")?.first
        guard WireMockMultipart.isMultipart(contentType: contentType) else {
            return "the request is not multipart (Content-Type \(contentType.map { "\"\($0)\"" } ?? "missing"))"
        }
        let parts = request.multipartParts
        guard !parts.isEmpty else { return "the body has no part WireMock reads (each needs Content-Disposition: form-data; name=…)" }
        let shown = parts.prefix(5).map { part in
            let disposition = part.headerValues("Content-Disposition")?.first ?? ""
            return "[\(RequestMatcher.truncate(disposition))] \(RequestMatcher.preview(part.body))"
        }
        return "\(parts.count) part\(parts.count == 1 ? "" : "s"): " + shown.joined(separator: ", ")
    }
}
