#if canImport(CLibXML2)
import CLibXML2
import Foundation

/// A parsed document read into plain values, as XMLUnit compares them with WireMock 2.35's
/// settings: names without their prefix and namespace (WireMock parses without namespaces:
/// `<a:x xmlns:a="urn:one">` equals `<x>`, tried with WireMock 2.35.1), namespace declarations
/// not attributes, comments left out, CDATA as text, text trimmed and whitespace-only text left out.
struct XMLTree: Sendable {
    /// A node of the tree.
    indirect enum Node: Sendable {
        case element(Element)
        case text(String)
        case processingInstruction(target: String, data: String)
        /// An entity reference left unexpanded (`&name;` of a DTD's entity).
        case entityReference(String)

        /// The name XMLUnit's order-invariant matcher sorts children by.
        var sortKey: String {
            if case .element(let element) = self { element.name } else { "" }
        }

        /// Whether XMLUnit's node matcher may pair the two (elements by name, the rest by type).
        func canPair(with other: Node) -> Bool {
            switch (self, other) {
            case (.element(let a), .element(let b)): a.name == b.name
            case (.text, .text): true
            case (.processingInstruction, .processingInstruction), (.entityReference, .entityReference): true
            default: false
            }
        }
    }

    struct Element: Sendable {
        /// The local name.
        var name: String
        var attributes: [Attribute]
        var children: [Node]
    }

    struct Attribute: Sendable {
        /// The local name.
        var name: String
        var value: String
    }

    /// The document's children (the root element and processing instructions).
    var children: [Node]

    /// Reads `text`; `nil` when it is not a well-formed document.
    init?(_ text: String) {
        guard let document = LibXML.parse(text) else { return nil }
        defer { xmlFreeDoc(document) }
        var children: [Node] = []
        var node = document.pointee.children
        while let current = node {
            if let read = Self.read(current) { children.append(read) }
            node = current.pointee.next
        }
        self.children = children
    }

    private static func read(_ node: xmlNodePtr) -> Node? {
        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            var attributes: [Attribute] = []
            var attribute = node.pointee.properties
            while let current = attribute {
                let value = LibXML.content(UnsafeMutableRawPointer(current).assumingMemoryBound(to: xmlNode.self)) ?? ""
                attributes.append(Attribute(name: LibXML.string(current.pointee.name) ?? "", value: value))
                attribute = current.pointee.next
            }
            var children: [Node] = []
            var child = node.pointee.children
            while let current = child {
                if let read = read(current) { children.append(read) }
                child = current.pointee.next
            }
            return .element(Element(name: LibXML.string(node.pointee.name) ?? "", attributes: attributes, children: children))
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            let text = (LibXML.string(node.pointee.content) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : .text(text)
        case XML_PI_NODE:
            return .processingInstruction(target: LibXML.string(node.pointee.name) ?? "", data: LibXML.string(node.pointee.content) ?? "")
        case XML_ENTITY_REF_NODE:
            return .entityReference(LibXML.string(node.pointee.name) ?? "")
        default:
            // Comments (ignored, as WireMock asks XMLUnit to), the document type, XInclude markers.
            return nil
        }
    }
}

/// The libxml2 calls the engine shares.
enum LibXML {
    /// No network, no messages on standard error, no entity expansion (a DTD's entities stay
    /// references, so neither a file nor an exponential expansion is read), libxml2's own limits
    /// on depth and sizes kept (no `XML_PARSE_HUGE`).
    static let options = Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)

    /// Once per process, before any thread parses (libxml2's own rule).
    static let initialised: Bool = {
        xmlInitParser()
        return true
    }()

    /// The document in `text`, to be freed with `xmlFreeDoc`; `nil` when not well-formed.
    static func parse(_ text: String) -> xmlDocPtr? {
        _ = initialised
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count < Int(Int32.max) else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                xmlReadMemory(pointer, Int32(buffer.count), nil, "UTF-8", options)
            }
        }
    }

    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    static func string(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// A node's text content (its descendants' text for an element).
    static func content(_ node: xmlNodePtr) -> String? {
        guard let buffer = xmlBufferCreate() else { return nil }
        defer { xmlBufferFree(buffer) }
        guard xmlNodeBufGetContent(buffer, node) == 0 else { return nil }
        return xmlBufferContent(buffer).map { String(cString: $0) } ?? ""
    }

    /// An element as XML, indented by two spaces and ending with a line break, as WireMock's
    /// transformer writes it.
    static func render(_ node: xmlNodePtr, in document: xmlDocPtr) -> String {
        guard let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        _ = xmlNodeDump(buffer, document, node, 0, 1)
        return (xmlBufferContent(buffer).map { String(cString: $0) } ?? "") + "\n"
    }

    /// Takes every element and attribute out of its namespace, for an XPath without
    /// `xPathNamespaces`: WireMock then reads the document without namespaces, so `/Envelope/Body`
    /// selects `<soap:Envelope><soap:Body/>` (tried with WireMock 2.35.1).
    static func removeNamespaces(_ node: xmlNodePtr?) {
        var current = node
        while let node = current {
            if node.pointee.type == XML_ELEMENT_NODE {
                node.pointee.ns = nil
                var attribute = node.pointee.properties
                while let each = attribute {
                    each.pointee.ns = nil
                    attribute = each.pointee.next
                }
                removeNamespaces(node.pointee.children)
            }
            current = node.pointee.next
        }
    }
}
#endif
