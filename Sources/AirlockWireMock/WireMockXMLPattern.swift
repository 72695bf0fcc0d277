import AirlockBase
import AirlockStubFiles
import Foundation

/// `{"equalToXml": "<thing>Hello</thing>"}` with WireMock's options — `enablePlaceholders`,
/// `placeholderOpeningDelimiterRegex`, `placeholderClosingDelimiterRegex`,
/// `exemptedComparisons`, and WireMock 3's `namespaceAwareness` and `ignoreOrderOfSameNode` —
/// compared by the installed XML engine (``WireMockXMLEngine``).
struct WireMockXMLPattern: Sendable {
    /// The expected document as the mapping wrote it.
    let expected: String
    let equality: any WireMockXMLEquality

    /// The fields that may stand beside `equalToXml`.
    static let options: Set<String> = [
        "enablePlaceholders", "placeholderOpeningDelimiterRegex", "placeholderClosingDelimiterRegex", "exemptedComparisons",
        "namespaceAwareness", "ignoreOrderOfSameNode",
    ]

    /// XMLUnit's comparison types, which `exemptedComparisons` names (those WireMock counts, then the others).
    static let comparisonTypes: Set<String> = [
        "ELEMENT_TAG_NAME", "SCHEMA_LOCATION", "NO_NAMESPACE_SCHEMA_LOCATION", "NODE_TYPE", "NAMESPACE_URI", "TEXT_VALUE",
        "PROCESSING_INSTRUCTION_TARGET", "PROCESSING_INSTRUCTION_DATA", "ELEMENT_NUM_ATTRIBUTES", "ATTR_VALUE",
        "CHILD_NODELIST_LENGTH", "CHILD_LOOKUP", "ATTR_NAME_LOOKUP",
        "ATTR_VALUE_EXPLICITLY_SPECIFIED", "HAS_DOCTYPE_DECLARATION", "DOCTYPE_NAME", "DOCTYPE_PUBLIC_ID", "DOCTYPE_SYSTEM_ID",
        "NAMESPACE_PREFIX", "CHILD_NODELIST_SEQUENCE", "XML_VERSION", "XML_STANDALONE", "XML_ENCODING",
    ]

    static func decode(_ operand: JSONNode, fields: JSONObject, engine: any WireMockXMLEngine) throws(StubFileError) -> WireMockXMLPattern {
        let expected = try operand.string()
        var options = WireMockXMLEqualityOptions()
        options.namespaceAwareness = WireMockVersion.reading.namespaceAwareness
        options.placeholders = try fields["enablePlaceholders"]?.bool() ?? false
        for (key, keyPath) in [("placeholderOpeningDelimiterRegex", \WireMockXMLEqualityOptions.openingDelimiter), ("placeholderClosingDelimiterRegex", \.closingDelimiter)] {
            guard let node = fields[key] else { continue }
            let pattern = try node.string()
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                throw node.error(.invalidValue, "is not a valid regular expression", expected: "a regular expression such as \"\\\\[\\\\[\" (Java syntax)")
            }
            options[keyPath: keyPath] = pattern
        }
        if let node = fields["exemptedComparisons"] {
            for item in try node.array(of: "XMLUnit comparison types") {
                let name = try item.string()
                guard comparisonTypes.contains(name) else {
                    let suggestion = KnownFields.nearest(name, in: comparisonTypes).map { "; did you mean \"\($0)\"?" } ?? ""
                    throw item.error(.invalidValue, "is \"\(name)\", which is not one of XMLUnit's comparison types\(suggestion)", expected: "a type such as \"NAMESPACE_URI\", \"ELEMENT_TAG_NAME\", \"ATTR_VALUE\" or \"TEXT_VALUE\"")
                }
                options.exemptedComparisons.insert(name)
            }
        }
        if let node = fields["namespaceAwareness"] {
            let name = try node.string()
            guard let awareness = WireMockXMLNamespaceAwareness(rawValue: name) else {
                throw node.error(.invalidValue, "is \"\(name)\", which is not one of WireMock's namespace awareness values", expected: "\"LEGACY\" (WireMock 2.35's reading, the default unless the folder is read as WireMock 3's), \"STRICT\" or \"NONE\"")
            }
            options.namespaceAwareness = awareness
        }
        options.ignoreOrderOfSameNode = try fields["ignoreOrderOfSameNode"]?.bool() ?? false
        do {
            return WireMockXMLPattern(expected: expected, equality: try engine.equality(expected, options: options))
        } catch {
            throw operand.error(.invalidValue, "is not an XML document WireMock reads: \(error.reason)", expected: "a well-formed XML document such as \"<thing>Hello</thing>\"")
        }
    }

    /// WireMock: an empty or missing value never matches.
    func verdict(for value: String?) -> WireMockVerdict {
        guard let value, !value.isEmpty else { return .miss }
        let result = equality.compare(value)
        return WireMockVerdict(matched: result.matched, distance: result.distance)
    }

    func template(_ mark: WireMockMarker) -> String {
        "equalToXml \"\(mark(expected))\""
    }
}

/// The expression of `matchesXPath`, compiled by the installed XML engine, with the
/// `xPathNamespaces` it binds.
struct WireMockXPathPattern: Sendable {
    let expression: String
    let compiled: any WireMockXPath

    init(_ node: JSONNode, namespaces: [String: String], engine: any WireMockXMLEngine) throws(StubFileError) {
        expression = try node.string()
        do {
            compiled = try engine.xPath(expression, namespaces: namespaces)
        } catch {
            throw node.error(
                .invalidValue,
                "is the XPath \"\(expression)\", which \(error.reason) (WireMock would load it and never match)",
                expected: "an XPath 1.0 expression such as \"//todo-item\" or \"/ns:order[@id='7']\" with \"ns\" bound in \"xPathNamespaces\""
            )
        }
    }

    /// `xPathNamespaces`: `{"prefix": "namespace URI"}`.
    static func namespaces(_ node: JSONNode?) throws(StubFileError) -> [String: String] {
        guard let node else { return [:] }
        var namespaces: [String: String] = [:]
        for (prefix, uri) in try node.members("an object of prefixes and namespace URIs") {
            guard !prefix.isEmpty, !prefix.contains(":") else { throw uri.error(.invalidValue, "is not a prefix", expected: "a prefix such as \"soap\"") }
            namespaces[prefix] = try uri.string()
        }
        return namespaces
    }
}
