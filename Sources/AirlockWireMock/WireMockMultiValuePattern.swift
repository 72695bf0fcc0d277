import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// A rule on a header, query parameter or form field that may come several times: one value
/// pattern that any value may satisfy, or WireMock's `hasExactly` / `includes` lists.
enum WireMockMultiValuePattern: Sendable {
    /// Any one of the values matches (a missing field is `nil`, for `absent`).
    case single(WireMockValuePattern)
    /// As many values as patterns, each pattern matched by some value.
    case hasExactly([WireMockValuePattern])
    /// Each pattern matched by some value; other values allowed.
    case includes([WireMockValuePattern])

    static func decode(_ node: JSONNode) throws(StubFileError) -> WireMockMultiValuePattern {
        guard case .object(let members) = node.value else { return .single(try WireMockValuePattern.decode(node)) }
        for key in ["hasExactly", "includes"] where members[key] != nil {
            let fields = try node.object("a \"\(key)\" matcher", fields: [key])
            let items = try fields.required(key).array(of: "matchers")
            var patterns: [WireMockValuePattern] = []
            for item in items { patterns.append(try WireMockValuePattern.decode(item)) }
            if patterns.isEmpty { throw fields.error(.invalidValue, at: key, "is empty", expected: "at least one matcher") }
            return key == "hasExactly" ? .hasExactly(patterns) : .includes(patterns)
        }
        return .single(try WireMockValuePattern.decode(node))
    }

    func verdict(_ values: [String]?, json: (String) -> JSONValue?) -> WireMockVerdict {
        switch self {
        case .single(let pattern):
            return .best((values.map { $0.map(Optional.some) } ?? [nil]).map { pattern.verdict(for: $0, json: json) })
        case .hasExactly(let patterns):
            guard let values else { return .miss }
            let each = patterns.map { pattern in WireMockVerdict.best(values.map { pattern.verdict(for: $0, json: json) }) }
            return .all([WireMockVerdict(values.count == patterns.count)] + each)
        case .includes(let patterns):
            guard let values else { return .miss }
            return .all(patterns.map { pattern in WireMockVerdict.best(values.map { pattern.verdict(for: $0, json: json) }) })
        }
    }

    func template(_ mark: WireMockMarker) -> String {
        switch self {
        case .single(let pattern): pattern.template(mark)
        case .hasExactly(let patterns): "hasExactly [" + patterns.map { $0.template(mark) }.joined(separator: ", ") + "]"
        case .includes(let patterns): "includes [" + patterns.map { $0.template(mark) }.joined(separator: ", ") + "]"
        }
    }
}

/// One entry of `bodyPatterns`: a string pattern over the body's text, or `binaryEqualTo`.
enum WireMockBodyPattern: Sendable {
    case text(WireMockValuePattern)
    /// The body is exactly these bytes (given in base64).
    case binaryEqualTo(Data)

    static func decode(_ node: JSONNode) throws(StubFileError) -> WireMockBodyPattern {
        guard case .object(let members) = node.value, members["binaryEqualTo"] != nil else {
            // WireMock ignores an "expression" beside a matcher other than matchesJsonPath
            // (a load warning says so): the matcher applies to the whole body.
            return .text(try WireMockValuePattern.decode(node, alsoAllowed: ["expression"]))
        }
        let field = try node.object("a \"binaryEqualTo\" matcher", fields: ["binaryEqualTo"]).required("binaryEqualTo")
        guard let data = Data(base64Encoded: try field.string()) else {
            throw field.error(.invalidValue, "is not valid base64", expected: "the body's bytes in base64")
        }
        return .binaryEqualTo(data)
    }

    func verdict(_ request: WireMockRequestView) -> WireMockVerdict {
        switch self {
        case .text(let pattern): pattern.verdict(for: request.bodyText, json: request.json)
        case .binaryEqualTo(let data): WireMockVerdict((request.request.body ?? Data()) == data)
        }
    }

    var template: String {
        switch self {
        case .text(let pattern): "body \(pattern.template(.none))"
        case .binaryEqualTo(let data): "body binaryEqualTo \(data.count) bytes"
        }
    }

    /// What the body was, for a mismatch: the first JSON difference for `equalToJson`, what a
    /// path found for `matchesJsonPath`, else the body's start.
    func actual(_ request: WireMockRequestView) -> String {
        let body = request.request.body
        guard case .text(let pattern) = self, let text = request.bodyText else { return "was \(RequestMatcher.preview(body))" }
        switch pattern {
        case .equalToJSON(let json):
            guard let value = request.json(text) else { return "body is not JSON: \(RequestMatcher.preview(body))" }
            return json.firstDifference(from: value).map { WireMockJSONPattern.describe($0, .none) } ?? "was \(RequestMatcher.preview(body))"
        case .matchesJSONPath(let path, _):
            guard let value = request.json(text) else { return "body is not JSON: \(RequestMatcher.preview(body))" }
            let found = WireMockValuePattern.texts(path.evaluate(value), definite: path.isDefinite, forJSON: false)
            let mark = WireMockMarker.none.forJSONPath(path)
            return found.isEmpty ? "found nothing" : "found " + found.prefix(5).map { "\"\(mark(RequestMatcher.truncate($0)))\"" }.joined(separator: ", ")
        default:
            return "was \(RequestMatcher.preview(body))"
        }
    }
}
