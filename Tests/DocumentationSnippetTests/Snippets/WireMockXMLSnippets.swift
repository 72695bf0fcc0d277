import HTTPMock
import MockServer

// AirlockWireMockXML.md: the XML matchers for mappings read through HTTPMock.
enum WireMockXMLSnippets {
    static func installsTheXMLMatchers() {
        WireMockXML.install()
    }
}
