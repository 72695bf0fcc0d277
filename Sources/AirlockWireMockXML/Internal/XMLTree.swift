#if canImport(CLibXML2)
import AirlockWireMock
import CLibXML2
import Foundation

/// A parsed document read into plain values, as XMLUnit compares them under WireMock's
/// settings: comments left out, CDATA as text, text trimmed and whitespace-only text left out, and
/// names and namespaces as the `namespaceAwareness` reads them (``WireMockXMLNamespaceAwareness``;
/// `LEGACY`, WireMock 2.35.1's reading, checked against its jar: `<a:x xmlns:a="urn:one">` equals
/// `<x>`, `<x xmlns="urn:one">` does not).
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

        /// The text below the node, which `ignoreOrderOfSameNode` sorts elements of one name by.
        var textContent: String {
            switch self {
            case .element(let element): element.children.map(\.textContent).joined()
            case .text(let text): text
            case .processingInstruction, .entityReference: ""
            }
        }

        /// Whether XMLUnit's node matcher may pair the two (elements by name — and namespace
        /// under `STRICT` — the rest by type).
        func canPair(with other: Node, awareness: WireMockXMLNamespaceAwareness) -> Bool {
            switch (self, other) {
            case (.element(let a), .element(let b)): a.name == b.name && (awareness != .strict || a.namespace == b.namespace)
            case (.text, .text): true
            case (.processingInstruction, .processingInstruction), (.entityReference, .entityReference): true
            default: false
            }
        }
    }

    struct Element: Sendable {
        /// The local name (`LEGACY`, `STRICT`) or the name as written (`NONE`).
        var name: String
        /// The namespace URI compared: under `LEGACY` only an unprefixed element's default
        /// namespace, under `STRICT` any, under `NONE` none.
        var namespace: String?
        var attributes: [Attribute]
        var children: [Node]
    }

    struct Attribute: Sendable {
        /// The name as written (`LEGACY`, `NONE`) or the local name (`STRICT`).
        var name: String
        /// The namespace URI, under `STRICT` only.
        var namespace: String?
        var value: String
    }

    /// The document's children (the root element and processing instructions).
    var children: [Node]

    /// Why a document cannot be read.
    enum Problem: Error {
        case notWellFormed
        /// A prefix used without a declaration, which `STRICT` refuses.
        case undeclaredPrefix(String)
    }

    /// Reads `text` with `awareness`.
    init(_ text: String, awareness: WireMockXMLNamespaceAwareness) throws(Problem) {
        guard let document = LibXML.parse(text) else { throw .notWellFormed }
        defer { xmlFreeDoc(document) }
        var children: [Node] = []
        var node = document.pointee.children
        while let current = node {
            if let read = try Self.read(current, awareness: awareness) { children.append(read) }
            node = current.pointee.next
        }
        self.children = children
    }

    private static func read(_ node: xmlNodePtr, awareness: WireMockXMLNamespaceAwareness) throws(Problem) -> Node? {
        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            var attributes: [Attribute] = []
            var attribute = node.pointee.properties
            while let current = attribute {
                let value = LibXML.content(UnsafeMutableRawPointer(current).assumingMemoryBound(to: xmlNode.self)) ?? ""
                let written = LibXML.string(current.pointee.name) ?? ""
                let namespace = current.pointee.ns
                switch awareness {
                case .strict:
                    // libxml2 keeps an undeclared prefix in the name, with no namespace.
                    if namespace == nil, written.contains(":") { throw .undeclaredPrefix(written) }
                    attributes.append(Attribute(name: written, namespace: namespace.flatMap { LibXML.string($0.pointee.href) }, value: value))
                case .legacy, .none:
                    attributes.append(Attribute(name: qualified(written, prefix: namespace?.pointee.prefix), value: value))
                }
                attribute = current.pointee.next
            }
            if awareness == .none {
                // Declarations are attributes like any other.
                var declaration = node.pointee.nsDef
                while let current = declaration {
                    let name = LibXML.string(current.pointee.prefix).map { "xmlns:\($0)" } ?? "xmlns"
                    attributes.append(Attribute(name: name, value: LibXML.string(current.pointee.href) ?? ""))
                    declaration = current.pointee.next
                }
            }
            var children: [Node] = []
            var child = node.pointee.children
            while let current = child {
                if let read = try read(current, awareness: awareness) { children.append(read) }
                child = current.pointee.next
            }
            let written = LibXML.string(node.pointee.name) ?? ""
            let namespace = node.pointee.ns
            let element: Element
            switch awareness {
            case .legacy:
                // Prefixes dropped, declared or not; only a default namespace is kept.
                let local = written.split(separator: ":", maxSplits: 1).last.map(String.init) ?? written
                let uri = namespace.flatMap { $0.pointee.prefix == nil ? LibXML.string($0.pointee.href) : nil }
                element = Element(name: local, namespace: uri, attributes: attributes, children: children)
            case .strict:
                if namespace == nil, written.contains(":") { throw .undeclaredPrefix(written) }
                element = Element(name: written, namespace: namespace.flatMap { LibXML.string($0.pointee.href) }, attributes: attributes, children: children)
            case .none:
                element = Element(name: qualified(written, prefix: namespace?.pointee.prefix), namespace: nil, attributes: attributes, children: children)
            }
            return .element(element)
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

    /// A name as written: its declared prefix, if any, before it (an undeclared one is already in it).
    private static func qualified(_ name: String, prefix: UnsafePointer<xmlChar>?) -> String {
        LibXML.string(prefix).map { "\($0):\(name)" } ?? name
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

    /// Unlinks and frees every text node below `parent` that holds only whitespace (CDATA too), as
    /// WireMock's `formatXml` drops them before it indents.
    static func removeBlankText(under parent: xmlNodePtr) {
        var child = parent.pointee.children
        while let current = child {
            child = current.pointee.next
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                let text = string(current.pointee.content) ?? ""
                if text.allSatisfy(\.isWhitespace) {
                    xmlUnlinkNode(current)
                    xmlFreeNode(current)
                }
            case XML_ELEMENT_NODE:
                removeBlankText(under: current)
            default:
                break
            }
        }
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
