#if canImport(CLibXML2)
import AirlockWireMock
import CLibXML2
import Foundation

/// The XML engine over libxml2: documents parsed without network or entity expansion, XPath 1.0
/// evaluated with the mapping's namespaces bound, every failure a value (never a crash).
///
/// Why libxml2 directly rather than FoundationXML's `XMLDocument` (itself libxml2 underneath):
/// on Linux, swift-corelibs-foundation's `nodes(forXPath:)` dereferences a null result, so an
/// XPath libxml2 rejects — a syntax error, a prefix not bound — crashes the process (tried with
/// Swift 6.3.1), and it binds only the namespaces of the context node, so `xPathNamespaces`
/// cannot be given to it.
struct LibXMLEngine: WireMockXMLEngine {
    static let shared = LibXMLEngine()

    func equality(_ expected: String, options: WireMockXMLEqualityOptions) throws(WireMockXMLEngineError) -> any WireMockXMLEquality {
        let tree: XMLTree
        do {
            tree = try XMLTree(expected, awareness: options.namespaceAwareness)
        } catch {
            switch error {
            case .notWellFormed:
                throw WireMockXMLEngineError("it is not well-formed")
            case .undeclaredPrefix(let name):
                throw WireMockXMLEngineError("\"\(name)\" has a prefix no xmlns declares, which namespaceAwareness STRICT refuses (declare it, or use \"LEGACY\" or \"NONE\")")
            }
        }
        return try XMLEquality(expected: tree, options: options)
    }

    func xPath(_ expression: String, namespaces: [String: String]) throws(WireMockXMLEngineError) -> any WireMockXPath {
        let path = LibXMLXPath(expression: expression, namespaces: namespaces.sorted { $0.key < $1.key })
        try path.check()
        return path
    }
}

/// A `matchesXPath` expression: compiled for each document (a compiled libxml2 expression is not
/// shared between threads), evaluated with the document as its context node, as WireMock does.
struct LibXMLXPath: WireMockXPath {
    /// Longer expressions are refused: a mapping's XPath is a line, not a program.
    static let maximumLength = 4_096

    let expression: String
    let namespaces: [(key: String, value: String)]

    /// Compiles and evaluates the expression against a small document, so that a syntax error,
    /// an unbound prefix, an unknown function or a result that is not a node-set is found when
    /// the mapping is read.
    func check() throws(WireMockXMLEngineError) {
        guard expression.utf8.count <= Self.maximumLength else { throw WireMockXMLEngineError("is longer than \(Self.maximumLength) bytes") }
        guard !expression.utf8.contains(0) else { throw WireMockXMLEngineError("holds a NUL character") }
        // A predicate is evaluated only where a node reaches it: functions are checked by name.
        if let unknown = Self.functionNames(in: expression).first(where: { !Self.functions.contains($0) }) {
            throw WireMockXMLEngineError("calls \"\(unknown)()\", a function XPath 1.0 does not have")
        }
        guard let document = LibXML.parse("<airlock-probe/>") else { throw WireMockXMLEngineError("could not be checked") }
        defer { xmlFreeDoc(document) }
        switch evaluate(in: document) {
        case .failure(let error): throw error
        case .success(nil): throw WireMockXMLEngineError("gives a number, a string or a boolean, not nodes (WireMock evaluates it for a node-set)")
        case .success: return
        }
    }

    /// XPath 1.0's functions, the node tests written like them, and the operators a parenthesis
    /// may follow.
    static let functions: Set<String> = [
        "last", "position", "count", "id", "local-name", "namespace-uri", "name", "string", "concat", "starts-with", "contains",
        "substring-before", "substring-after", "substring", "string-length", "normalize-space", "translate", "boolean", "not",
        "true", "false", "lang", "number", "sum", "floor", "ceiling", "round",
        "node", "text", "comment", "processing-instruction", "and", "or", "div", "mod",
    ]

    /// The names written before a `(`, outside string literals.
    static func functionNames(in expression: String) -> [String] {
        var names: [String] = []
        var name = ""
        var quote: Character?
        for character in expression {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            if character == "'" || character == "\"" {
                quote = character
                name = ""
            } else if character.isLetter || character.isNumber || "-_.:".contains(character) {
                name.append(character)
            } else if character == "(" {
                if !name.isEmpty, !name.hasSuffix(":"), !(name.first?.isNumber ?? false), !name.hasPrefix(".") { names.append(name) }
                name = ""
            } else if !character.isWhitespace {
                name = ""
            }
        }
        return names
    }

    func select(in text: String) -> [String]? {
        // WireMock reads only values that start with "<" (after white space).
        guard text.first(where: { !$0.isWhitespace }) == "<", let document = LibXML.parse(text) else { return nil }
        defer { xmlFreeDoc(document) }
        guard case .success(let nodes?) = evaluate(in: document) else { return nil }
        return nodes
    }

    /// The selected nodes as texts; `nil` for a result that is not a node-set; a failure with
    /// libxml2's message.
    func evaluate(in document: xmlDocPtr) -> Result<[String]?, WireMockXMLEngineError> {
        if namespaces.isEmpty { LibXML.removeNamespaces(document.pointee.children) }
        guard let context = xmlXPathNewContext(document) else { return .failure(WireMockXMLEngineError("could not be evaluated (out of memory)")) }
        defer { xmlXPathFreeContext(context) }
        // Errors come back as values; nothing is printed.
        context.pointee.error = { _, _ in }
        for (prefix, uri) in namespaces {
            _ = xmlXPathRegisterNs(context, prefix, uri)
        }
        // libxml2 reports an unknown function on its generic channel too: silenced for the call.
        let generic = __xmlGenericError()
        let genericContext = __xmlGenericErrorContext()
        let saved = (generic?.pointee, genericContext?.pointee)
        generic?.pointee = Self.silentGenericError
        defer {
            generic?.pointee = saved.0
            genericContext?.pointee = saved.1
        }
        let result: xmlXPathObjectPtr? = expression.withCString { xmlXPathEvalExpression(UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self), context) }
        guard let result else {
            let error = context.pointee.lastError
            return .failure(WireMockXMLEngineError(Self.problem(code: Int(error.code) - Int(XML_XPATH_EXPRESSION_OK.rawValue), at: Int(error.int1))))
        }
        defer { xmlXPathFreeObject(result) }
        guard result.pointee.type == XPATH_NODESET else { return .success(nil) }
        guard let set = result.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else { return .success([]) }
        var texts: [String] = []
        for index in 0..<Int(set.pointee.nodeNr) {
            guard let node = table[index] else { continue }
            texts.append(Self.text(of: node, in: document))
        }
        return .success(texts)
    }

    /// A generic error function that prints nothing (libxml2's type is variadic, which Swift
    /// cannot write; its arguments are never read).
    private static var silentGenericError: xmlGenericErrorFunc? {
        unsafeBitCast(
            { (_: UnsafeMutableRawPointer?, _: UnsafePointer<CChar>?) in } as @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void,
            to: xmlGenericErrorFunc.self
        )
    }

    /// libxml2's XPath error, in words (its `xmlXPathError` codes).
    private static func problem(code: Int, at offset: Int) -> String {
        let problems = [
            1: "has a number that is not one", 2: "has a string literal that is not closed", 3: "has a string literal that does not start",
            4: "has a variable reference that is not one", 5: "refers to a variable (WireMock binds none)", 6: "has a predicate that is not one",
            7: "is not an expression", 8: "has a bracket or parenthesis that is not closed", 9: "calls a function XPath 1.0 does not have",
            10: "has an operand that is not one", 11: "gives a function or step a value of the wrong type", 12: "calls a function with the wrong number of arguments",
            15: "needs more memory than there is", 19: "uses a prefix that \"xPathNamespaces\" does not bind", 20: "is not valid UTF-8",
            21: "has a character XPath does not allow",
        ]
        let place = offset > 0 ? " (at character \(offset + 1))" : ""
        return (problems[code] ?? "is not an XPath 1.0 expression libxml2 can evaluate (error \(code))") + place
    }

    /// WireMock's `XmlNode.toString()`: text and attributes as their text, elements as XML.
    private static func text(of node: xmlNodePtr, in document: xmlDocPtr) -> String {
        switch node.pointee.type {
        case XML_ELEMENT_NODE: LibXML.render(node, in: document)
        case XML_DOCUMENT_NODE: xmlDocGetRootElement(document).map { LibXML.render($0, in: document) } ?? ""
        // A namespace node is an xmlNs, not an xmlNode: its URI.
        case XML_NAMESPACE_DECL: UnsafeMutableRawPointer(node).assumingMemoryBound(to: xmlNs.self).pointee.href.map { String(cString: $0) } ?? ""
        default: LibXML.content(node) ?? ""
        }
    }
}
#endif
