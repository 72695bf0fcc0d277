import AirlockStubFiles
import AirlockWireMock

/// WireMock's XML matchers — `equalToXml` and `matchesXPath` — for mappings read by
/// `WireMockMappings`, and the template helpers `xPath` and `soapXPath`, with libxml2 (Debian: `libxml2-dev`) reading the XML.
///
/// `MockServer` and `airlock serve --wiremock` install it themselves. HTTPMock leaves it out,
/// so that its users never link an XML library; a test target that reads mappings with XML
/// matchers through HTTPMock adds the `AirlockWireMockXML` product to its dependencies and
/// installs it once, before reading them:
///
/// ```swift
/// WireMockXML.install()
/// ```
///
/// Without it, such a mapping is refused when it is read, by the JSON path of its matcher or
/// the field of its template.
public enum WireMockXML {
    /// Whether this platform has the XML reader: Linux (libxml2). Elsewhere ``install()`` does
    /// nothing and XML matchers are refused by name.
    public static var isAvailable: Bool {
        #if canImport(CLibXML2)
        true
        #else
        false
        #endif
    }

    /// Installs the XML matchers and template helpers for every mapping read from now on, in this process (a
    /// process-wide setting; installing twice is harmless).
    public static func install() {
        #if canImport(CLibXML2)
        WireMockXMLSupport.install(LibXMLEngine.shared)
        TemplateXMLSupport.install(LibXMLEngine.shared)
        #endif
    }
}
