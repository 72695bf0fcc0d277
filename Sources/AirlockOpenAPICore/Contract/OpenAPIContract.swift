import AirlockBase
import AirlockJSONSchema
@_spi(AirlockTransport) import AirlockCore
import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat

/// An API's contract: an OpenAPI document (3.0 or 3.1, YAML or JSON), read once, that checks the
/// requests an app sends and the answers a mock gives, and that mocks can answer from.
///
/// ```swift
/// let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
/// let mock = HTTPMock()
/// mock.validate(against: contract)
/// ```
///
/// Reading checks the document as OpenAPIKit reads it, and every `$ref` it holds: a document
/// that breaks the specification, or points at something it does not have, is refused with
/// ``LoadError``, naming the file, the place and the problem. References to other files are
/// not followed (bundle the document into one file first, for example with `redocly bundle`).
public struct OpenAPIContract: Sendable {
    /// Where the document came from: its path, or the name given to ``init(data:source:)``.
    public let source: String
    /// The document's `openapi` field: `3.0.3`, `3.1.0`, …
    public let openAPIVersion: String
    /// The API's title (`info.title`).
    public let title: String
    /// The API's version (`info.version`).
    public let version: String
    /// Every operation, in the order of the document's `paths`.
    public let operations: [OpenAPIOperation]

    /// The document as JSON, members in document order: schemas and examples are read from it
    /// by pointer, so that each violation names the place of the rule it broke.
    let document: JSONValue
    /// The operations by path template, matched against request paths.
    let index: OperationIndex
    /// The schema dialect of the document's Schema Objects.
    let dialect: SchemaDialect
    /// Checks values against the document's schemas.
    let schemas: SchemaValidator
    /// The security schemes by name (`components.securitySchemes`).
    let securitySchemes: [String: SecurityScheme]

    /// Reads a contract from a file: YAML (`.yaml`, `.yml`) or JSON; anything else is read as
    /// YAML, which JSON is a subset of.
    /// - Throws: ``LoadError`` naming the file: it cannot be read, is not YAML or JSON, is not
    ///   an OpenAPI 3.0 or 3.1 document, or holds a reference to nothing.
    public init(contentsOf url: URL) throws(LoadError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw LoadError(.unreadable, source: url.path, problem: "the file cannot be read (\(error.localizedDescription))", fix: "check the path")
        }
        try self.init(data: data, source: url.path)
    }

    /// Reads a contract from the text of a document, YAML or JSON.
    /// - Parameters:
    ///   - data: The document's UTF-8 text.
    ///   - source: What messages call the document (a file name).
    /// - Throws: ``LoadError``.
    public init(data: Data, source: String) throws(LoadError) {
        let document = try Self.parse(data, source: source)
        guard case .object(let root) = document else {
            throw LoadError(.notAnOpenAPIDocument, source: source, problem: "the document is not an object", fix: "give an OpenAPI document, which starts with `openapi: 3.1.0`")
        }
        guard case .string(let version)? = root["openapi"] else {
            let swagger = root["swagger"] != nil
            throw LoadError(
                swagger ? .unsupportedVersion : .notAnOpenAPIDocument,
                source: source,
                problem: swagger ? "it is a Swagger 2.0 document" : "it has no `openapi` field",
                fix: swagger ? "convert it to OpenAPI 3 first (for example with swagger2openapi)" : "give an OpenAPI 3.0 or 3.1 document"
            )
        }
        let dialect: SchemaDialect
        if version.hasPrefix("3.0.") || version == "3.0" {
            dialect = .openAPI30
        } else if version.hasPrefix("3.1.") || version == "3.1" {
            dialect = .openAPI31
        } else {
            throw LoadError(.unsupportedVersion, source: source, problem: "its `openapi` version is \(version)", fix: "give an OpenAPI 3.0 or 3.1 document")
        }
        let resolver = ReferenceResolver(document: document, source: source)
        try resolver.checkEveryReference()
        try Self.checkWithOpenAPIKit(document, dialect: dialect, source: source)
        self.source = source
        self.openAPIVersion = version
        self.document = document
        self.dialect = dialect
        let info = root["info"].flatMap(\.objectMembers)
        self.title = info?["title"]?.stringValue ?? ""
        self.version = info?["version"]?.stringValue ?? ""
        self.securitySchemes = try SecurityScheme.all(in: document, resolver: resolver)
        let operations = try OperationReader(document: document, resolver: resolver).operations()
        self.operations = operations.map(\.public)
        self.index = OperationIndex(operations, servers: Self.basePaths(in: document))
        self.schemas = SchemaValidator(document: document, dialect: dialect, baseURI: "")
    }

    /// The operation with this `operationId`, if the contract has one.
    public func operation(id: String) -> OpenAPIOperation? {
        operations.first { $0.operationID == id }
    }
}

extension OpenAPIContract {
    /// YAML or JSON text as JSON.
    private static func parse(_ data: Data, source: String) throws(LoadError) -> JSONValue {
        let first = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        if first == UInt8(ascii: "{") {
            do {
                return try JSONValue.parse(data)
            } catch {
                throw LoadError(.invalidSyntax, source: source, problem: "it is not valid JSON: \(error)", fix: "correct the JSON at that place")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LoadError(.invalidSyntax, source: source, problem: "it is not UTF-8 text", fix: "save the document as UTF-8")
        }
        return try YAMLDocument.json(from: text, source: source)
    }

    /// Decodes the document with OpenAPIKit (which checks it against the specification) and
    /// dereferences it (which checks that every `$ref` points at something).
    private static func checkWithOpenAPIKit(_ document: JSONValue, dialect: SchemaDialect, source: String) throws(LoadError) {
        let json: Data
        do {
            json = try document.compactData()
        } catch {
            throw LoadError(.invalidDocument, source: source, problem: "it cannot be written as JSON (\(error))", fix: "remove values JSON cannot hold")
        }
        let decoder = JSONDecoder()
        do {
            let model: OpenAPIKit.OpenAPI.Document
            switch dialect {
            case .openAPI30:
                model = try decoder.decode(OpenAPIKit30.OpenAPI.Document.self, from: json).convert(to: .v3_1_1)
            default:
                model = try decoder.decode(OpenAPIKit.OpenAPI.Document.self, from: json)
            }
            _ = try model.locallyDereferenced()
        } catch {
            let readable = OpenAPIKit.OpenAPI.Error(from: error)
            let place = readable.codingPathString.isEmpty ? "" : " at \(readable.codingPathString)"
            throw LoadError(
                .invalidDocument,
                source: source,
                problem: "it is not a valid OpenAPI document\(place): \(readable.localizedDescription)",
                fix: "correct the document there (an OpenAPI linter such as `redocly lint` shows every problem)"
            )
        }
    }

    /// The paths the document's servers put before every path template: `/v1` for
    /// `https://api.example.com/v1` or `/v1`, with variables at their defaults; `[""]` without
    /// servers.
    static func basePaths(in document: JSONValue) -> [String] {
        guard case .array(let servers)? = document.objectMembers?["servers"], !servers.isEmpty else { return [""] }
        var paths: [String] = []
        for server in servers {
            guard let members = server.objectMembers, var url = members["url"]?.stringValue else { continue }
            if let variables = members["variables"]?.objectMembers {
                for (name, variable) in variables {
                    let value = variable.objectMembers?["default"]?.stringValue ?? ""
                    url = url.replacingOccurrences(of: "{\(name)}", with: value)
                }
            }
            var path = RequestTarget(url: url.contains("://") ? url : "http://host" + (url.hasPrefix("/") ? url : "/" + url)).path
            while path.hasSuffix("/") { path.removeLast() }
            if !paths.contains(path) { paths.append(path) }
        }
        return paths.isEmpty ? [""] : paths
    }
}

extension JSONValue {
    /// The members, when this is an object.
    var objectMembers: JSONMembers? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The string, when this is one.
    var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The elements, when this is an array.
    var arrayElements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// This object, or the one its `$ref` names in `document` (following a chain of them, at
    /// most 16): what an Example or a property's schema holds. `nil` when it is not an object or
    /// a reference leads nowhere. (Loading checked every reference; this reads leniently.)
    func followingReferences(in document: JSONValue) -> JSONMembers? {
        var object = objectMembers
        var hops = 0
        while let reference = object?["$ref"]?.stringValue, let target = try? JSONPointer(parsing: reference), hops < 16 {
            object = document[target]?.objectMembers
            hops += 1
        }
        return object
    }

    /// The boolean, when this is one.
    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}
