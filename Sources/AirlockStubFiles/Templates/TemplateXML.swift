import AirlockBase

/// What the XML template helpers (`xPath`, `soapXPath`, `formatXml`) need from an XML reader, which lives in
/// the `AirlockWireMockXML` module so that this module — and HTTPMock, which links it — never
/// links one. `WireMockXML.install()` (in that module) installs it; `MockServer` and
/// `airlock serve` install it themselves.
package protocol TemplateXMLEngine: Sendable {
    /// Why `expression` cannot select nodes, in a phrase that follows "The XPath …" (`has a
    /// predicate that is not one`); `nil` when it can. Called when the template is read.
    func problem(inXPath expression: String) -> String?
    /// The nodes `expression` selects in `document`, read without namespaces as WireMock reads
    /// it: a text or attribute node as its text, an element as indented XML.
    func select(_ expression: String, in document: String) -> TemplateXPathResult
    /// `document` written again as WireMock 3's `formatXml` writes it: whitespace-only text left
    /// out, no XML declaration, and — when `pretty` — each element on its own line indented by two
    /// spaces, ending with a line break. `nil` when `document` is not well-formed XML.
    func format(_ document: String, pretty: Bool) -> String?
}

/// What an XPath gives a template.
package enum TemplateXPathResult: Sendable, Equatable {
    /// The nodes, in document order (none when nothing matched).
    case nodes([String])
    /// The document is not XML.
    case notXML
    /// The expression cannot be evaluated on this document.
    case invalidExpression
}

/// The XML engine the templates use in this process, if any (see ``TemplateXMLEngine``).
///
/// A process-wide setting, as a codec registration is: installing it twice is harmless; it is
/// never removed.
package enum TemplateXMLSupport {
    private static let installed = Locked<(any TemplateXMLEngine)?>(nil)

    /// Tests of the refusal an HTTPMock user without the XML module sees set this for their task.
    @TaskLocal package static var isHiddenForTesting = false

    /// Installs `engine` for every template read from now on.
    package static func install(_ engine: any TemplateXMLEngine) {
        installed.withLock { $0 = engine }
    }

    /// The engine, or `nil` when none was installed.
    package static var engine: (any TemplateXMLEngine)? {
        isHiddenForTesting ? nil : installed.withLock { $0 }
    }

    /// The helpers that need the engine.
    static let helpers: Set<String> = ["xPath", "soapXPath", "formatXml"]
}
