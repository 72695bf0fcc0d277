import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// How far a value is from what a rule wants: WireMock's match result.
struct WireMockVerdict: Sendable {
    /// Whether the value satisfies the rule.
    let matched: Bool
    /// 0 for a match, up to 1.
    let distance: Double

    static let match = WireMockVerdict(matched: true, distance: 0)
    static let miss = WireMockVerdict(matched: false, distance: 1)

    init(matched: Bool, distance: Double) {
        self.matched = matched
        self.distance = matched ? 0 : min(1, max(distance, 0.000_001))
    }

    init(_ matched: Bool) {
        self = matched ? .match : .miss
    }

    /// All must match; the distance is their mean (WireMock's aggregate).
    static func all(_ verdicts: [WireMockVerdict]) -> WireMockVerdict {
        guard !verdicts.isEmpty else { return .match }
        return WireMockVerdict(matched: verdicts.allSatisfy(\.matched), distance: verdicts.reduce(0) { $0 + $1.distance } / Double(verdicts.count))
    }

    /// The closest of several; a match when any matches.
    static func best(_ verdicts: [WireMockVerdict]) -> WireMockVerdict {
        verdicts.min { $0.distance < $1.distance } ?? .miss
    }
}

/// How a value in a message is marked for redaction: as the header, query item or body field
/// it belongs to, so that each output hides it when its mock's ``Redaction`` says so.
enum WireMockMarker: Sendable {
    case none
    case header(String)
    case field(String)

    func callAsFunction(_ value: String) -> String {
        switch self {
        case .none: value
        case .header(let name): Redaction.markHeader(name, value)
        case .field(let name): Redaction.markField(name, value)
        }
    }

    /// The marker for values a JSON path finds: the outer one, or for a body, the path's last member name.
    func forJSONPath(_ path: JSONPathExpression) -> WireMockMarker {
        guard case .none = self, let name = path.lastMemberName else { return self }
        return .field(name)
    }
}

extension WireMockValuePattern {
    /// How `value` (`nil`: absent) fares against the pattern.
    /// - Parameter json: Parses JSON text, remembering the body's parse for the other patterns.
    func verdict(for value: String?, json: (String) -> JSONValue?) -> WireMockVerdict {
        switch self {
        case .equalTo(let expected, let caseInsensitive):
            guard let value else { return .miss }
            let equal = caseInsensitive ? value.lowercased() == expected.lowercased() : value == expected
            return WireMockVerdict(matched: equal, distance: TextDistance.normalised(expected, value))
        case .contains(let part): return WireMockVerdict(value.map { part.isEmpty || $0.contains(part) } ?? false)
        // WireMock's negations hold for a missing value too.
        case .doesNotContain(let part): return WireMockVerdict(value.map { !part.isEmpty && !$0.contains(part) } ?? true)
        case .matches(let regex): return WireMockVerdict(value.map(regex.matchesWhole) ?? false)
        case .doesNotMatch(let regex): return WireMockVerdict(value.map { !regex.matchesWhole($0) } ?? true)
        case .absent: return WireMockVerdict(value == nil)
        case .anything: return .match
        case .not(let inner): return WireMockVerdict(!inner.verdict(for: value, json: json).matched)
        case .and(let patterns): return .all(patterns.map { $0.verdict(for: value, json: json) })
        case .or(let patterns): return .best(patterns.map { $0.verdict(for: value, json: json) })
        case .number(let test, let expected):
            guard let actual = value.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) else { return .miss }
            return WireMockVerdict(test.holds(actual, expected))
        case .equalToJSON(let pattern):
            guard let value, let actual = json(value) else { return .miss }
            return pattern.verdict(for: actual)
        case .matchesJSONPath(let path, let nested):
            guard let value, let document = json(value) else { return .miss }
            return Self.verdict(path, nested, document: document, json: json)
        case .dateTime(let pattern):
            return pattern.verdict(for: value)
        case .equalToXML(let pattern):
            return pattern.verdict(for: value)
        case .matchesXPath(let path, let nested):
            // WireMock: nothing selected (or no XML) is a miss, whatever the nested pattern.
            guard let value, let found = path.compiled.select(in: value), !found.isEmpty else { return .miss }
            guard let nested else { return .match }
            return .best(found.map { nested.verdict(for: $0, json: json) })
        case .matchesJSONSchema(let pattern):
            return pattern.verdict(for: value, json: json)
        }
    }

    /// WireMock's reading of a JSON path's result: a definite path must find a non-null value
    /// (an empty object or array counts), an indefinite one at least one value; with a nested
    /// pattern, some value found (as text) must match it, and nothing found counts as absent.
    private static func verdict(_ path: JSONPathExpression, _ nested: WireMockValuePattern?, document: JSONValue, json: (String) -> JSONValue?) -> WireMockVerdict {
        let found = path.evaluate(document)
        guard let nested else {
            return WireMockVerdict(path.isDefinite ? found.first.map { $0 != .null } ?? false : !found.isEmpty)
        }
        let texts = texts(found, definite: path.isDefinite, forJSON: nested.comparesJSON)
        if texts.isEmpty {
            guard case .absent = nested else { return .miss }
            return .match
        }
        return .best(texts.map { nested.verdict(for: $0, json: json) })
    }

    /// The values a path found, as WireMock hands them to the nested pattern.
    static func texts(_ found: [JSONValue], definite: Bool, forJSON: Bool) -> [String] {
        if definite {
            switch found.first {
            case nil, .null?: return []
            case .array(let items)? where !forJSON: return items.map(JSONText.plain)
            case let value?: return [JSONText.plain(value)]
            }
        }
        return forJSON ? [JSONText.json(.array(found))] : found.map(JSONText.plain)
    }

    /// Whether the pattern reads its value as JSON (so a path's list is handed over whole).
    private var comparesJSON: Bool {
        if case .equalToJSON = self { true } else { false }
    }

    /// What the pattern requires, in WireMock's words: `contains "json"`.
    func template(_ mark: WireMockMarker) -> String {
        switch self {
        case .equalTo(let expected, let caseInsensitive): "equalTo \"\(mark(expected))\"\(caseInsensitive ? " (caseInsensitive)" : "")"
        case .contains(let part): "contains \"\(mark(part))\""
        case .doesNotContain(let part): "doesNotContain \"\(mark(part))\""
        case .matches(let regex): "matches \"\(mark(regex.pattern))\""
        case .doesNotMatch(let regex): "doesNotMatch \"\(mark(regex.pattern))\""
        case .absent: "absent"
        case .anything: "anything"
        case .not(let inner): "not (\(inner.template(mark)))"
        case .and(let patterns): "(" + patterns.map { $0.template(mark) }.joined(separator: " and ") + ")"
        case .or(let patterns): "(" + patterns.map { $0.template(mark) }.joined(separator: " or ") + ")"
        case .number(let test, let expected): "\(test.rawValue) \(JSONText.numberText(expected))"
        case .equalToJSON(let pattern): pattern.template(mark)
        case .matchesJSONPath(let path, let nested):
            "matchesJsonPath \"\(path)\"" + (nested.map { " " + $0.template(mark.forJSONPath(path)) } ?? "")
        case .dateTime(let pattern): pattern.template
        case .equalToXML(let pattern): pattern.template(mark)
        case .matchesXPath(let path, let nested): "matchesXPath \"\(path.expression)\"" + (nested.map { " " + $0.template(mark) } ?? "")
        case .matchesJSONSchema(let pattern): pattern.template
        }
    }
}

extension WireMockValuePattern.NumberTest {
    func holds(_ actual: Double, _ expected: Double) -> Bool {
        switch self {
        case .equalToNumber: actual == expected
        case .greaterThanNumber: actual > expected
        case .greaterThanEqualNumber: actual >= expected
        case .lessThanNumber: actual < expected
        case .lessThanEqualNumber: actual <= expected
        }
    }
}

/// WireMock's distance between an expected and an actual string: their edit distance over the
/// longer length.
enum TextDistance {
    /// Past this many cells the edit distance is not worth its time: strings that long and
    /// different are simply far apart.
    private static let cellLimit = 4_000_000

    static func normalised(_ expected: String, _ actual: String?) -> Double {
        guard let actual else { return 1 }
        if expected == actual { return 0 }
        let a = Array(expected.utf16)
        let b = Array(actual.utf16)
        let longest = max(a.count, b.count)
        guard !a.isEmpty, !b.isEmpty, a.count * b.count <= cellLimit else { return 1 }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...b.count {
                let above = row[j]
                row[j] = a[i - 1] == b[j - 1] ? diagonal : 1 + min(diagonal, above, row[j - 1])
                diagonal = above
            }
        }
        return Double(row[b.count]) / Double(longest)
    }
}
