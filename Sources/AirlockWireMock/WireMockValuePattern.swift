import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// One of WireMock's string value patterns — `{"equalTo": "x"}`, `{"matches": "[0-9]+"}`,
/// `{"or": [...]}`, `{"matchesJsonPath": "$.id"}` — as headers, query parameters, cookies, path
/// parameters, the host and bodies use them.
indirect enum WireMockValuePattern: Sendable {
    /// The number comparisons, by their WireMock names.
    enum NumberTest: String, Sendable, CaseIterable {
        case equalToNumber, greaterThanNumber, greaterThanEqualNumber, lessThanNumber, lessThanEqualNumber
    }

    case equalTo(String, caseInsensitive: Bool)
    case contains(String)
    case doesNotContain(String)
    case matches(WireMockRegex)
    case doesNotMatch(WireMockRegex)
    /// The value is missing (a header not sent, a query parameter not given).
    case absent
    /// Any value, or none.
    case anything
    case not(WireMockValuePattern)
    case and([WireMockValuePattern])
    case or([WireMockValuePattern])
    case number(NumberTest, Double)
    case equalToJSON(WireMockJSONPattern)
    /// The JSON path finds something; with a pattern, something it finds matches the pattern.
    case matchesJSONPath(JSONPathExpression, WireMockValuePattern?)
    /// `before`, `after` or `equalToDateTime`, with its options.
    case dateTime(WireMockDateTimePattern)
    /// `equalToXml`, with its options, compared by the installed XML engine.
    case equalToXML(WireMockXMLPattern)
    /// `matchesXPath`: the expression selects a node; with a pattern, some node selected matches it.
    case matchesXPath(WireMockXPathPattern, WireMockValuePattern?)
    /// `matchesJsonSchema` (WireMock 3's), checked by the JSON Schema validator.
    case matchesJSONSchema(WireMockJSONSchemaPattern)

    /// Each operator Airlock reads, with the fields that may stand beside it.
    static let operators: [String: Set<String>] = {
        var operators: [String: Set<String>] = [
            "equalTo": ["caseInsensitive"], "contains": [], "doesNotContain": [], "matches": [], "doesNotMatch": [],
            "absent": [], "anything": [], "not": [], "and": [], "or": [],
            "equalToJson": ["ignoreArrayOrder", "ignoreExtraElements"], "matchesJsonPath": [],
            "equalToXml": WireMockXMLPattern.options, "matchesXPath": ["xPathNamespaces"],
            "matchesJsonSchema": WireMockJSONSchemaPattern.options,
        ]
        for test in NumberTest.allCases { operators[test.rawValue] = [] }
        for comparison in WireMockDateTimePattern.Comparison.allCases { operators[comparison.rawValue] = WireMockDateTimePattern.options }
        return operators
    }()

    /// WireMock's operators that Airlock refuses, with why and what to use instead.
    static let refused: [String: (problem: String, instead: String)] = [
        "matchesPathTemplate": ("is not supported by Airlock", "\"matches\" with a regular expression, or remove this matcher"),
        "binaryEqualTo": ("is a body matcher, read only in \"bodyPatterns\"", "a string matcher such as \"equalTo\" here"),
    ]

    /// The operators Airlock reads, for error messages.
    static var supportedList: String {
        let names = ["equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "absent", "anything", "not", "and", "or", "equalToJson", "matchesJsonPath", "equalToXml", "matchesXPath", "matchesJsonSchema"]
            + NumberTest.allCases.map(\.rawValue) + WireMockDateTimePattern.Comparison.allCases.map(\.rawValue)
        return "a matcher: " + names.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// Reads a pattern object.
    /// - Parameters:
    ///   - node: `{"equalTo": "x"}` and the like.
    ///   - alsoAllowed: Fields the caller reads from the same object (`expression` in the
    ///     object form of `matchesJsonPath`).
    static func decode(_ node: JSONNode, alsoAllowed: Set<String> = []) throws(StubFileError) -> WireMockValuePattern {
        guard case .object(let members) = node.value else {
            throw node.mismatch(expected: "a JSON object with " + supportedList)
        }
        let name = try operatorName(in: node, keys: members.keys.filter { !alsoAllowed.contains($0) })
        // The matchers WireMock drops beside the one it uses, and their options, may stand here.
        let fields = try node.object("a \"\(name)\" matcher", fields: droppable.union(operators[name]!).union([name]).union(alsoAllowed))
        let operand = try fields.required(name)
        switch name {
        case "equalTo":
            return .equalTo(try operand.string(), caseInsensitive: try fields["caseInsensitive"]?.bool() ?? false)
        case "contains": return .contains(try operand.string())
        case "doesNotContain": return .doesNotContain(try operand.string())
        case "matches": return .matches(try regex(operand))
        case "doesNotMatch": return .doesNotMatch(try regex(operand))
        case "absent":
            // WireMock reads any "absent" as absent, `false` included (a load warning says so).
            return .absent
        case "anything": return .anything
        case "not": return .not(try decode(operand))
        case "and", "or":
            let items = try operand.array(of: "matchers")
            guard items.count >= 2 else { throw operand.error(.invalidValue, "has \(items.count) matcher\(items.count == 1 ? "" : "s")", expected: "at least two matchers") }
            var patterns: [WireMockValuePattern] = []
            for item in items { patterns.append(try decode(item)) }
            return name == "and" ? .and(patterns) : .or(patterns)
        case "equalToJson":
            return .equalToJSON(
                try WireMockJSONPattern(
                    operand,
                    ignoreArrayOrder: try fields["ignoreArrayOrder"]?.bool() ?? false,
                    ignoreExtraElements: try fields["ignoreExtraElements"]?.bool() ?? false
                )
            )
        case "matchesJsonPath":
            return try jsonPath(operand)
        case "equalToXml":
            return .equalToXML(try WireMockXMLPattern.decode(operand, fields: fields, engine: WireMockXMLSupport.engine(for: node, operator: name)))
        case "matchesXPath":
            return try xPath(operand, fields: fields, engine: WireMockXMLSupport.engine(for: node, operator: name))
        case "matchesJsonSchema":
            return .matchesJSONSchema(try WireMockJSONSchemaPattern.decode(operand, fields: fields))
        case "before", "after", "equalToDateTime":
            return .dateTime(try WireMockDateTimePattern.decode(WireMockDateTimePattern.Comparison(rawValue: name)!, operand: operand, fields: fields))
        default:
            return .number(NumberTest(rawValue: name)!, try number(operand))
        }
    }

    /// Every key that may stand in a pattern object beside the matcher WireMock uses: the other
    /// matchers (dropped) and their options.
    static let droppable: Set<String> = {
        var keys = Set(operators.keys).union(refused.keys)
        for options in operators.values { keys.formUnion(options) }
        return keys
    }()

    /// The matcher WireMock 2.35 uses in a pattern object: `absent` whenever the key is there
    /// (whatever its value), else the first matcher in the document's order; the others are
    /// dropped (``WireMockDroppedFields`` warns). A refused matcher that would be used is an
    /// error; none is an error naming the nearest matcher.
    static func operatorName(in node: JSONNode, keys: [String]) throws(StubFileError) -> String {
        let named = keys.filter { operators[$0] != nil || refused[$0] != nil }
        guard let name = named.contains("absent") ? "absent" : named.first else {
            guard let unknown = keys.first(where: { !droppable.contains($0) }) ?? keys.first else {
                throw node.error(.missingField, "has no matcher", expected: supportedList)
            }
            let suggestion = KnownFields.nearest(unknown, in: Set(operators.keys)).map { "; did you mean \"\($0)\"?" } ?? ""
            throw StubFileError(.unknownField, file: node.source, location: node.path.appending(unknown).description, problem: "is not a matcher\(suggestion)", expected: supportedList)
        }
        if let (problem, instead) = refused[name] {
            throw StubFileError(.unsupported, file: node.source, location: node.path.appending(name).description, problem: problem, expected: instead)
        }
        return name
    }

    /// A regular expression matched against the whole value, dot matching line breaks (Java's
    /// `DOTALL`, as WireMock compiles them).
    static func regex(_ node: JSONNode) throws(StubFileError) -> WireMockRegex {
        let pattern = try node.string()
        do {
            return try WireMockRegex(pattern, options: [.dotMatchesLineSeparators])
        } catch {
            throw node.error(.invalidValue, "is not a valid regular expression: \(error.reason)", expected: "a regular expression (ICU/Java syntax)")
        }
    }

    private static func number(_ node: JSONNode) throws(StubFileError) -> Double {
        if case .string(let text) = node.value, let number = Double(text) { return number }
        guard case .number(let number) = node.value else { throw node.mismatch(expected: "a number") }
        return number
    }

    /// `"$.name"`, or `{"expression": "$.name", "equalTo": "Alice"}`.
    private static func jsonPath(_ node: JSONNode) throws(StubFileError) -> WireMockValuePattern {
        if case .object(let members) = node.value {
            guard members["expression"] != nil else {
                throw node.error(.missingField, "has no \"expression\"", expected: "{\"expression\": \"$.…\", and a matcher such as \"equalTo\"}")
            }
            let fields = try node.object("a matchesJsonPath", fields: Set(members.keys))
            let expression = try path(fields.required("expression"))
            return .matchesJSONPath(expression, try decode(node, alsoAllowed: ["expression"]))
        }
        guard case .string = node.value else { throw node.mismatch(expected: "a JSON path, or {\"expression\": \"$.…\", and a matcher}") }
        return .matchesJSONPath(try path(node), nil)
    }

    /// `"//todo-item"`, or `{"expression": "//todo-item", "contains": "wash"}`, with
    /// `xPathNamespaces` beside it.
    private static func xPath(_ node: JSONNode, fields: JSONObject, engine: any WireMockXMLEngine) throws(StubFileError) -> WireMockValuePattern {
        let namespaces = try WireMockXPathPattern.namespaces(fields["xPathNamespaces"])
        if case .object(let members) = node.value {
            guard members["expression"] != nil else {
                throw node.error(.missingField, "has no \"expression\"", expected: "{\"expression\": \"//…\", and a matcher such as \"equalTo\"}")
            }
            let fields = try node.object("a matchesXPath", fields: Set(members.keys))
            let expression = try WireMockXPathPattern(fields.required("expression"), namespaces: namespaces, engine: engine)
            return .matchesXPath(expression, try decode(node, alsoAllowed: ["expression"]))
        }
        guard case .string = node.value else { throw node.mismatch(expected: "an XPath expression, or {\"expression\": \"//…\", and a matcher}") }
        return .matchesXPath(try WireMockXPathPattern(node, namespaces: namespaces, engine: engine), nil)
    }

    private static func path(_ node: JSONNode) throws(StubFileError) -> JSONPathExpression {
        let text = try node.string()
        do {
            return try JSONPathExpression(text)
        } catch {
            throw node.error(
                .invalidValue,
                "is the JSON path \"\(text)\", which \(error.problem)",
                expected: "a JSON path in the subset Airlock reads: $.a.b, $['a'], [0], [*], ..name, [?(@.x == 'y')], [?(@.x)], comparisons < <= > >= != and =~"
            )
        }
    }
}
