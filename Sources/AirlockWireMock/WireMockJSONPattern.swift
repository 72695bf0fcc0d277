import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// WireMock's `equalToJson`: the value is JSON equal to the expected document — numbers by
/// value (`1` equals `1.0`), objects regardless of key order — optionally ignoring array order
/// and extra members or elements, with JsonUnit's placeholders `${json-unit.any-string}`,
/// `${json-unit.any-number}`, `${json-unit.any-boolean}`, `${json-unit.ignore}`,
/// `${json-unit.ignore-element}` and `${json-unit.regex}…` in expected strings.
struct WireMockJSONPattern: Sendable {
    /// The expected document.
    let expected: JSONValue
    let ignoreArrayOrder: Bool
    let ignoreExtraElements: Bool
    /// The `${json-unit.regex}` placeholders' expressions, by their placeholder text.
    private let regexes: [String: WireMockRegex]

    private static let placeholderPrefix = "${json-unit."
    private static let regexPrefix = "${json-unit.regex}"
    private static let simplePlaceholders: Set<String> = [
        "${json-unit.any-string}", "${json-unit.any-number}", "${json-unit.any-boolean}", "${json-unit.ignore}", "${json-unit.ignore-element}",
    ]

    /// Reads the operand: JSON text in a string, or the JSON value itself.
    init(_ node: JSONNode, ignoreArrayOrder: Bool, ignoreExtraElements: Bool) throws(StubFileError) {
        if case .string(let text) = node.value {
            do {
                expected = try JSONValue.parse(Data(text.utf8))
            } catch {
                throw node.error(.invalidValue, "is not valid JSON", expected: "a JSON document, as a string or as the JSON value itself")
            }
        } else {
            expected = node.value
        }
        self.ignoreArrayOrder = ignoreArrayOrder
        self.ignoreExtraElements = ignoreExtraElements
        var regexes: [String: WireMockRegex] = [:]
        for placeholder in Self.placeholders(in: expected) {
            if Self.simplePlaceholders.contains(placeholder) { continue }
            guard placeholder.hasPrefix(Self.regexPrefix) else {
                throw node.error(
                    .unsupported,
                    "uses the placeholder \"\(placeholder)\", which Airlock does not support",
                    expected: "a literal value or one of ${json-unit.any-string}, ${json-unit.any-number}, ${json-unit.any-boolean}, ${json-unit.ignore}, ${json-unit.ignore-element}, ${json-unit.regex}…"
                )
            }
            let pattern = String(placeholder.dropFirst(Self.regexPrefix.count))
            do {
                regexes[placeholder] = try WireMockRegex(pattern, options: [])
            } catch {
                throw node.error(.invalidValue, "has the placeholder \"\(placeholder)\", whose regular expression does not compile: \(error.reason)", expected: "a valid regular expression after ${json-unit.regex}")
            }
        }
        self.regexes = regexes
    }

    private static func placeholders(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text) where text.hasPrefix(placeholderPrefix): [text]
        case .array(let items): items.flatMap(placeholders)
        case .object(let members): members.values.flatMap(placeholders)
        default: []
        }
    }

    /// A place where the documents differ.
    struct Difference {
        /// `$.user.name`.
        let path: String
        /// The member name the value sits under, for redaction.
        let name: String?
        let expected: JSONValue?
        let actual: JSONValue?
    }

    func verdict(for actual: JSONValue) -> WireMockVerdict {
        let differences = differences(expected, actual, path: "$", name: nil)
        guard !differences.isEmpty else { return .match }
        // WireMock counts each difference by the size of the larger side, over the larger document.
        let weight = differences.reduce(0) { $0 + max(1, max(Self.size($1.expected), Self.size($1.actual))) }
        return WireMockVerdict(matched: false, distance: Double(weight) / Double(max(Self.size(expected), Self.size(actual))))
    }

    /// The first difference, for messages.
    func firstDifference(from actual: JSONValue) -> Difference? {
        differences(expected, actual, path: "$", name: nil).first
    }

    private static func size(_ value: JSONValue?) -> Int {
        switch value {
        case nil: 0
        case .array(let items)?: 1 + items.reduce(0) { $0 + size($1) }
        case .object(let members)?: 1 + members.values.reduce(0) { $0 + size($1) }
        default: 1
        }
    }

    private func differences(_ expected: JSONValue, _ actual: JSONValue, path: String, name: String?) -> [Difference] {
        if case .string(let text) = expected, text.hasPrefix(Self.placeholderPrefix) {
            return placeholder(text, accepts: actual) ? [] : [Difference(path: path, name: name, expected: expected, actual: actual)]
        }
        switch (expected, actual) {
        case (.object(let wanted), .object(let given)):
            var found: [Difference] = []
            for key in wanted.keys.sorted() {
                let child = path + "." + key
                guard let value = given[key] else {
                    if wanted[key] != .string("${json-unit.ignore-element}") {
                        found.append(Difference(path: child, name: key, expected: wanted[key], actual: nil))
                    }
                    continue
                }
                found += differences(wanted[key]!, value, path: child, name: key)
            }
            if !ignoreExtraElements {
                for key in given.keys.sorted() where wanted[key] == nil {
                    found.append(Difference(path: path + "." + key, name: key, expected: nil, actual: given[key]))
                }
            }
            return found
        case (.array(let wanted), .array(let given)):
            return ignoreArrayOrder ? unorderedDifferences(wanted, given, path: path, name: name) : orderedDifferences(wanted, given, path: path, name: name)
        default:
            return expected == actual ? [] : [Difference(path: path, name: name, expected: expected, actual: actual)]
        }
    }

    private func orderedDifferences(_ wanted: [JSONValue], _ given: [JSONValue], path: String, name: String?) -> [Difference] {
        var found: [Difference] = []
        for index in wanted.indices {
            let child = "\(path)[\(index)]"
            guard index < given.count else {
                found.append(Difference(path: child, name: name, expected: wanted[index], actual: nil))
                continue
            }
            found += differences(wanted[index], given[index], path: child, name: name)
        }
        if !ignoreExtraElements, given.count > wanted.count {
            for index in wanted.count..<given.count {
                found.append(Difference(path: "\(path)[\(index)]", name: name, expected: nil, actual: given[index]))
            }
        }
        return found
    }

    /// Each expected element paired with a distinct equal actual element (a maximum bipartite
    /// matching, so that placeholders cannot take an element another expected one needs).
    private func unorderedDifferences(_ wanted: [JSONValue], _ given: [JSONValue], path: String, name: String?) -> [Difference] {
        let fits = wanted.map { expected in given.indices.filter { differences(expected, given[$0], path: path, name: name).isEmpty } }
        var owner = [Int?](repeating: nil, count: given.count)
        func assign(_ expected: Int, _ visited: inout [Bool]) -> Bool {
            for candidate in fits[expected] where !visited[candidate] {
                visited[candidate] = true
                if owner[candidate] == nil || assign(owner[candidate]!, &visited) {
                    owner[candidate] = expected
                    return true
                }
            }
            return false
        }
        var found: [Difference] = []
        for index in wanted.indices {
            var visited = [Bool](repeating: false, count: given.count)
            if !assign(index, &visited) {
                found.append(Difference(path: "\(path)[\(index)]", name: name, expected: wanted[index], actual: nil))
            }
        }
        if !ignoreExtraElements {
            for index in given.indices where owner[index] == nil {
                found.append(Difference(path: "\(path)[\(index)]", name: name, expected: nil, actual: given[index]))
            }
        }
        return found
    }

    private func placeholder(_ text: String, accepts actual: JSONValue) -> Bool {
        switch (text, actual) {
        case ("${json-unit.any-string}", .string), ("${json-unit.any-number}", .number), ("${json-unit.any-boolean}", .bool),
            ("${json-unit.ignore}", _), ("${json-unit.ignore-element}", _):
            return true
        case (_, .string(let value)):
            return regexes[text]?.matchesWhole(value) ?? false
        default:
            return false
        }
    }

    /// `equalToJson {"name":"Alice"} (ignoreArrayOrder)`, long documents cut.
    func template(_ mark: WireMockMarker) -> String {
        var options: [String] = []
        if ignoreArrayOrder { options.append("ignoreArrayOrder") }
        if ignoreExtraElements { options.append("ignoreExtraElements") }
        let text = RequestMatcher.truncate(Self.marked(expected, mark, name: nil), to: 200)
        return "equalToJson \(text)" + (options.isEmpty ? "" : " (" + options.joined(separator: ", ") + ")")
    }

    /// A message for the first difference: `$.user.pin: "1234" vs "9999"`.
    static func describe(_ difference: Difference, _ mark: WireMockMarker) -> String {
        let marker: WireMockMarker = if case .none = mark, let name = difference.name { .field(name) } else { mark }
        func shown(_ value: JSONValue?) -> String { value.map { marked($0, marker, name: difference.name) } ?? "(missing)" }
        return "\(difference.path) is \(shown(difference.actual)), expected \(shown(difference.expected))"
    }

    /// Compact JSON whose string and number values are marked by the member they sit under.
    private static func marked(_ value: JSONValue, _ mark: WireMockMarker, name: String?) -> String {
        switch value {
        case .object(let members):
            return "{" + members.keys.sorted().map { key in
                JSONText.json(.string(key)) + ":" + marked(members[key]!, mark, name: key)
            }.joined(separator: ",") + "}"
        case .array(let items):
            return "[" + items.map { marked($0, mark, name: name) }.joined(separator: ",") + "]"
        default:
            let text = JSONText.json(value)
            switch (mark, name) {
            case (.none, let name?): return Redaction.markField(name, text)
            case (.none, nil): return text
            default: return mark(text)
            }
        }
    }
}
