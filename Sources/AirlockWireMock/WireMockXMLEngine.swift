import AirlockBase
import AirlockStubFiles
import Foundation

/// What WireMock's XML matchers (`equalToXml`, `matchesXPath`) need from an XML reader, which
/// lives in the `AirlockWireMockXML` module so that this module — and HTTPMock, which links it —
/// never links one. `WireMockXML.install()` (in that module) installs it; `MockServer` and
/// `airlock serve` install it themselves.
package protocol WireMockXMLEngine: Sendable {
    /// Reads `equalToXml`'s document once, when the mapping is read.
    /// - Throws: Why the text is not a document the matcher can compare with.
    func equality(_ expected: String, options: WireMockXMLEqualityOptions) throws(WireMockXMLEngineError) -> any WireMockXMLEquality
    /// Compiles `matchesXPath`'s expression once, when the mapping is read.
    /// - Parameter namespaces: `xPathNamespaces`: prefix to namespace URI.
    /// - Throws: Why the expression cannot be evaluated.
    func xPath(_ expression: String, namespaces: [String: String]) throws(WireMockXMLEngineError) -> any WireMockXPath
}

/// `equalToXml`'s options, as WireMock reads them.
package struct WireMockXMLEqualityOptions: Sendable {
    /// `enablePlaceholders`: `${xmlunit.ignore}` and the like in the expected document.
    package var placeholders: Bool = false
    /// `placeholderOpeningDelimiterRegex`, compiled; `\$\{` when not given.
    package var openingDelimiter: String = "\\$\\{"
    /// `placeholderClosingDelimiterRegex`; `\}` when not given.
    package var closingDelimiter: String = "\\}"
    /// `exemptedComparisons`: XMLUnit comparison types that never count as differences.
    package var exemptedComparisons: Set<String> = []
    /// `namespaceAwareness` (WireMock 3): how prefixes and namespace URIs count. Absent, a
    /// mapping is read as WireMock 2.35.1 reads it, which is WireMock 3's `LEGACY` — or, in a
    /// folder read as WireMock 3's (``WireMockVersion/wireMock3``), `STRICT`.
    package var namespaceAwareness: WireMockXMLNamespaceAwareness = .legacy
    /// `ignoreOrderOfSameNode` (WireMock 3): elements of the same name paired in the order of
    /// their text, not of the document.
    package var ignoreOrderOfSameNode = false

    package init() {}
}

/// `equalToXml`'s `namespaceAwareness`, as WireMock 3 documents its three values.
package enum WireMockXMLNamespaceAwareness: String, Sendable, CaseIterable {
    /// WireMock 2.35.1's reading (checked against its jar): element prefixes dropped, an element's
    /// default namespace (`xmlns="…"`, inherited) compared when the expected document gives one,
    /// attributes compared by their name as written, `xmlns:prefix` declarations ignored,
    /// prefixes need not be declared.
    case legacy = "LEGACY"
    /// Every prefix must be declared; elements and attributes are compared by namespace URI and
    /// local name, prefixes ignored; declarations are not attributes.
    case strict = "STRICT"
    /// Names compared as written (`a:thing` is not `b:thing`), namespace URIs ignored, and
    /// `xmlns` declarations compared like any other attribute.
    case none = "NONE"
}

/// Why an XML engine cannot use what a mapping gives it.
package struct WireMockXMLEngineError: Error, Sendable {
    /// What is wrong, in a phrase that follows "is …, which": `is not well-formed XML: …`.
    package let reason: String

    package init(_ reason: String) {
        self.reason = reason
    }
}

/// A compiled `equalToXml`.
package protocol WireMockXMLEquality: Sendable {
    /// Whether `actual` is the same document, and how far it is (0 to 1); a body that is not
    /// XML is a miss at distance 1, never an error.
    func compare(_ actual: String) -> (matched: Bool, distance: Double)
}

/// A compiled `matchesXPath` expression.
package protocol WireMockXPath: Sendable {
    /// The nodes the expression selects in `document`, each as WireMock hands it to a value
    /// matcher (a text or attribute node as its text, an element as XML); `nil` when the
    /// document is not XML or the expression fails on it.
    func select(in document: String) -> [String]?
}

/// The XML engine installed in this process, if any (see ``WireMockXMLEngine``).
///
/// A process-wide setting, as a codec registration is: installing it twice is harmless; it is
/// never removed.
package enum WireMockXMLSupport {
    private static let installed = Locked<(any WireMockXMLEngine)?>(nil)

    /// Tests of the refusal an HTTPMock user without the XML module sees set this for their task.
    @TaskLocal package static var isHiddenForTesting = false

    /// Installs `engine` for every mapping read from now on.
    package static func install(_ engine: any WireMockXMLEngine) {
        installed.withLock { $0 = engine }
    }

    /// The engine, or `nil` when none was installed.
    package static var engine: (any WireMockXMLEngine)? {
        isHiddenForTesting ? nil : installed.withLock { $0 }
    }

    /// The engine for an XML matcher at `node`, or an error naming the field and saying how to
    /// get one.
    static func engine(for node: JSONNode, operator name: String) throws(StubFileError) -> any WireMockXMLEngine {
        if let engine { return engine }
        throw StubFileError(
            .unsupported,
            file: node.source,
            location: node.path.appending(name).description,
            problem: "is an XML matcher, and no XML engine is installed in this process (HTTPMock leaves it out so that its users never link an XML library)",
            expected: "the product \"AirlockWireMockXML\" in this target's dependencies and one line before reading mappings: WireMockXML.install() (MockServer and airlock serve install it themselves; Linux only for now)"
        )
    }
}
