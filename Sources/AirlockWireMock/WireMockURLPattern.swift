import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
import Foundation

/// The url field of a WireMock request: which of the five it is, and its rule. All compare
/// against the path (and query) as the client sent them, percent-encoded, as WireMock does.
enum WireMockURLPattern: Sendable {
    /// `url`: the path and query exactly.
    case url(String)
    /// `urlPattern`: a regular expression over the whole path and query.
    case urlPattern(WireMockRegex)
    /// `urlPath`: the path exactly, any query.
    case urlPath(String)
    /// `urlPathPattern`: a regular expression over the whole path.
    case urlPathPattern(WireMockRegex)
    /// `urlPathTemplate`: `/users/{id}`, each variable one non-empty segment.
    case urlPathTemplate(WireMockPathTemplate)

    /// The five field names, in the order WireMock prefers them.
    static let fieldNames = ["url", "urlPattern", "urlPath", "urlPathPattern", "urlPathTemplate"]

    /// Reads the url field among `fields`. Of several, WireMock uses the first in
    /// ``fieldNames``' order and drops the others, and so does Airlock (a load warning names
    /// them: ``WireMockDroppedFields``).
    static func decode(_ fields: JSONObject) throws(StubFileError) -> WireMockURLPattern? {
        let given = fieldNames.filter { fields[$0] != nil }
        guard let name = given.first else { return nil }
        let node = try fields.required(name)
        switch name {
        case "url": return .url(try pathText(node))
        case "urlPattern": return .urlPattern(try WireMockValuePattern.regex(node))
        case "urlPath": return .urlPath(try pathText(node))
        case "urlPathPattern": return .urlPathPattern(try WireMockValuePattern.regex(node))
        default: return .urlPathTemplate(try WireMockPathTemplate(node))
        }
    }

    private static func pathText(_ node: JSONNode) throws(StubFileError) -> String {
        let text = try node.string()
        guard text.hasPrefix("/") else { throw node.error(.invalidValue, "is \"\(text)\", which does not start with \"/\"", expected: "a path such as \"/users\"") }
        return text
    }

    /// A path pattern every matching request fits, for the registry's trie; see
    /// ``WireMockRequestPattern/pathPattern``. `decides` says whether it is exactly the rule.
    var pathPattern: (pattern: String, decides: Bool) {
        switch self {
        case .url(let text):
            let path = String(text.prefix { $0 != "?" })
            return Self.isPlain(path) ? (path, false) : ("/**", false)
        case .urlPath(let path):
            return Self.isPlain(path) ? (path, true) : ("/**", false)
        case .urlPathTemplate(let template):
            return template.pathPattern
        case .urlPattern, .urlPathPattern:
            return ("/**", false)
        }
    }

    /// Whether a literal path means the same as a path pattern and compares the same decoded:
    /// no `*`, no percent escapes, nothing outside printable ASCII.
    static func isPlain(_ path: Substring) -> Bool {
        path.hasPrefix("/") && path.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "*") && $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: "#") }
    }

    static func isPlain(_ path: String) -> Bool { isPlain(Substring(path)) }

    /// How the request's path (and query) fares.
    func verdict(_ request: WireMockRequestView) -> WireMockVerdict {
        switch self {
        case .url(let expected):
            WireMockVerdict(matched: request.pathAndQuery == expected, distance: TextDistance.normalised(expected, request.pathAndQuery))
        case .urlPattern(let regex):
            WireMockVerdict(regex.matchesWhole(request.pathAndQuery))
        case .urlPath(let expected):
            WireMockVerdict(matched: request.rawPath == expected, distance: TextDistance.normalised(expected, request.rawPath))
        case .urlPathPattern(let regex):
            WireMockVerdict(regex.matchesWhole(request.rawPath))
        case .urlPathTemplate(let template):
            template.values(in: request.rawPath) != nil
                ? .match
                : WireMockVerdict(matched: false, distance: TextDistance.normalised(template.withoutVariables, request.rawPath))
        }
    }

    /// `urlPath /users`, with the query values of `url` marked by their names.
    var template: String {
        switch self {
        case .url(let text): "url \(Self.marked(text))"
        case .urlPattern(let regex): "urlPattern \"\(regex.pattern)\""
        case .urlPath(let path): "urlPath \(path)"
        case .urlPathPattern(let regex): "urlPathPattern \"\(regex.pattern)\""
        case .urlPathTemplate(let template): "urlPathTemplate \(template.source)"
        }
    }

    /// What the request had, for a mismatch.
    func actual(_ request: WireMockRequestView) -> String {
        switch self {
        case .url, .urlPattern: "was \(Self.marked(request.pathAndQuery))"
        case .urlPath, .urlPathPattern, .urlPathTemplate: "was \(request.rawPath)"
        }
    }

    /// `/x?token=abc` with each query value marked as its item, so that secret ones are hidden.
    static func marked(_ pathAndQuery: String) -> String {
        guard let question = pathAndQuery.firstIndex(of: "?") else { return pathAndQuery }
        let items = pathAndQuery[pathAndQuery.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = PercentDecoding.decode(item[..<equals])
            return "\(item[..<equals])=" + Redaction.markField(name, String(item[item.index(after: equals)...]))
        }
        return pathAndQuery[...question] + items.joined(separator: "&")
    }
}

/// WireMock's `urlPathTemplate`: literal text, `{name}` (one or more characters other than
/// `/`) and `**` (anything, across segments).
struct WireMockPathTemplate: Sendable {
    /// The template as written.
    let source: String
    /// The variables' names, in order; a `**` is named by its position among the wildcards.
    let variables: [String]
    private let regex: WireMockRegex

    init(_ node: JSONNode) throws(StubFileError) {
        let text = try node.string()
        guard text.hasPrefix("/") else { throw node.error(.invalidValue, "is \"\(text)\", which does not start with \"/\"", expected: "a path template such as \"/users/{id}\"") }
        var pattern = ""
        var variables: [String] = []
        var wildcards = 0
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.hasPrefix("**") {
                pattern += "(.*?)"
                variables.append(String(wildcards))
                wildcards += 1
                rest = rest.dropFirst(2)
            } else if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}"), close > rest.index(after: rest.startIndex) else {
                    throw node.error(.invalidValue, "has an unclosed or empty \"{\"", expected: "variables written as {name}")
                }
                let name = rest[rest.index(after: rest.startIndex)..<close].filter { $0 != "." && $0 != ";" && $0 != "*" }
                pattern += "([^/]+)"
                variables.append(name)
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.dropFirst().firstIndex { $0 == "{" } ?? rest.endIndex
                let literal = rest[..<end]
                let star = literal.range(of: "**")
                let stop = star?.lowerBound ?? end
                pattern += NSRegularExpression.escapedPattern(for: String(rest[..<stop]))
                rest = rest[stop...]
            }
        }
        if Set(variables).count != variables.count {
            throw node.error(.invalidValue, "names a variable twice", expected: "each {name} once")
        }
        do {
            regex = try WireMockRegex(pattern, options: [])
        } catch {
            throw node.error(.invalidValue, "cannot be read: \(error.reason)", expected: "a path template such as \"/users/{id}\"")
        }
        self.source = text
        self.variables = variables
    }

    /// The variables' values in `path` (as sent, percent-encoded), or `nil` when it does not fit.
    func values(in path: String) -> [String: String]? {
        guard let captured = regex.captures(path) else { return nil }
        return Dictionary(zip(variables, captured)) { first, _ in first }
    }

    /// The template with each variable as `_`, for the distance to a path that does not fit.
    var withoutVariables: String {
        var text = ""
        var inVariable = false
        for character in source {
            if character == "{" {
                inVariable = true
                text += "_"
            } else if character == "}" {
                inVariable = false
            } else if !inVariable {
                text.append(character)
            }
        }
        return text.replacingOccurrences(of: "**", with: "_")
    }

    /// `/users/{id}` → `/users/*`, deciding alone; templates with variables inside a segment or
    /// `**` get a wider pattern and leave the rest to the template's rule.
    var pathPattern: (pattern: String, decides: Bool) {
        var segments: [String] = []
        for segment in source.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.dropFirst().dropLast().allSatisfy({ $0 != "{" && $0 != "}" }) {
                segments.append("*")
            } else if segment.contains("{") || segment.contains("*") || !WireMockURLPattern.isPlain("/" + segment) {
                return ("/**", false)
            } else {
                segments.append(String(segment))
            }
        }
        return ("/" + segments.joined(separator: "/"), true)
    }
}
