#if canImport(CLibXML2)
import AirlockStubFiles
import CLibXML2

/// The template helpers `xPath` and `soapXPath` over the same XPath evaluation as
/// `matchesXPath` (the document read without namespaces, as WireMock reads it for them), and
/// WireMock 3's `formatXml`.
extension LibXMLEngine: TemplateXMLEngine {
    func problem(inXPath expression: String) -> String? {
        do {
            try LibXMLXPath(expression: expression, namespaces: []).check()
            return nil
        } catch {
            // No namespaces are bound for a template: a prefix can never match.
            if error.reason.contains("xPathNamespaces") { return "uses a namespace prefix (WireMock reads the body without namespaces, so it never matches)" }
            return error.reason
        }
    }

    func select(_ expression: String, in document: String) -> TemplateXPathResult {
        guard let parsed = LibXML.parse(document) else { return .notXML }
        defer { xmlFreeDoc(parsed) }
        switch LibXMLXPath(expression: expression, namespaces: []).evaluate(in: parsed) {
        case .success(let nodes?): return .nodes(nodes)
        case .success(nil), .failure: return .invalidExpression
        }
    }

    func format(_ document: String, pretty: Bool) -> String? {
        guard let parsed = LibXML.parse(document) else { return nil }
        defer { xmlFreeDoc(parsed) }
        LibXML.removeBlankText(under: UnsafeMutableRawPointer(parsed).assumingMemoryBound(to: xmlNode.self))
        guard let buffer = xmlBufferCreate() else { return nil }
        defer { xmlBufferFree(buffer) }
        var output = ""
        var node = parsed.pointee.children
        while let current = node {
            // The document type is not written again (WireMock's transformer leaves it out too).
            if current.pointee.type != XML_DTD_NODE {
                xmlBufferEmpty(buffer)
                _ = xmlNodeDump(buffer, parsed, current, 0, pretty ? 1 : 0)
                output += (xmlBufferContent(buffer).map { String(cString: $0) } ?? "") + (pretty ? "\n" : "")
            }
            node = current.pointee.next
        }
        return output
    }
}
#endif
