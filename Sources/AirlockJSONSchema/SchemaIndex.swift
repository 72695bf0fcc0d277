import AirlockBase
import Foundation

/// A place in one of the documents a validator knows: the document's URI and a pointer into it.
struct SchemaLocation: Hashable, Sendable {
    var document: String
    var pointer: JSONPointer

    func appending(_ token: String) -> SchemaLocation {
        SchemaLocation(document: document, pointer: pointer.appending(token))
    }

    func appending(_ index: Int) -> SchemaLocation {
        appending(String(index))
    }
}

/// What a schema object is read with: the base URI its references resolve against, and its dialect.
struct SchemaScope: Sendable, Equatable {
    var base: String
    var dialect: SchemaDialect
}

/// The documents, and where their `$id`s, `$anchor`s and `$dynamicAnchor`s are.
///
/// Built once by walking every document; members that hold data rather than schemas (`enum`,
/// `const`, `default`, `examples`, `example`, `x-` extensions) are not walked, so an `$id` in
/// them identifies nothing.
struct SchemaIndex: Sendable {
    private(set) var documents: [String: JSONValue] = [:]
    /// Schema resources by absolute URI without fragment: documents and `$id`s.
    private(set) var resources: [String: SchemaLocation] = [:]
    /// Anchors by absolute URI with fragment: `$anchor`, `$dynamicAnchor`, draft 4's `"id": "#a"`.
    private(set) var anchors: [String: SchemaLocation] = [:]
    /// Which of ``anchors`` were made by `$dynamicAnchor`.
    private(set) var dynamicAnchors: Set<String> = []
    /// The scope of every object in the documents.
    private(set) var scopes: [SchemaLocation: SchemaScope] = [:]
    /// Every `pattern` and `patternProperties` key, compiled.
    private(set) var patterns: [String: Result<ECMARegex, ECMARegex.CompileError>] = [:]

    private static let dataKeywords: Set<String> = ["enum", "const", "default", "examples", "example"]

    /// Adds a document under its retrieval URI.
    mutating func add(_ document: JSONValue, retrievedFrom uri: String, dialect: SchemaDialect) {
        documents[uri] = document
        let location = SchemaLocation(document: uri, pointer: JSONPointer())
        if resources[uri] == nil { resources[uri] = location }
        walk(document, at: location, scope: SchemaScope(base: uri, dialect: dialect), depth: 0)
    }

    func value(at location: SchemaLocation) -> JSONValue? {
        documents[location.document]?[location.pointer]
    }

    func scope(at location: SchemaLocation) -> SchemaScope? {
        scopes[location]
    }

    /// The location an absolute URI names: a resource, a pointer into one, or an anchor.
    func location(of uri: String) -> SchemaLocation? {
        let resource = URIReference.withoutFragment(uri)
        let fragment = URIReference.fragment(of: uri) ?? ""
        guard fragment.isEmpty || fragment.hasPrefix("/") || fragment.hasPrefix("%2F") || fragment.hasPrefix("%2f") else {
            return anchors[resource + "#" + fragment]
        }
        guard let start = resources[resource], let pointer = try? JSONPointer(parsing: "#" + fragment) else { return nil }
        return SchemaLocation(document: start.document, pointer: start.pointer.appending(pointer))
    }

    func isDynamicAnchor(_ uri: String) -> Bool {
        dynamicAnchors.contains(uri)
    }

    private mutating func walk(_ value: JSONValue, at location: SchemaLocation, scope inherited: SchemaScope, depth: Int) {
        guard depth < JSONValue.maximumDepth else { return }
        switch value {
        case .array(let elements):
            for (position, element) in elements.enumerated() {
                walk(element, at: location.appending(position), scope: inherited, depth: depth + 1)
            }
        case .object(let members):
            let scope = identify(members, at: location, scope: inherited)
            scopes[location] = scope
            if case .string(let pattern)? = members["pattern"] { compile(pattern) }
            if case .object(let patternProperties)? = members["patternProperties"] {
                patternProperties.keys.forEach { compile($0) }
            }
            for (key, member) in members where !Self.dataKeywords.contains(key) && !key.hasPrefix("x-") {
                walk(member, at: location.appending(key), scope: scope, depth: depth + 1)
            }
        default:
            break
        }
    }

    /// Registers the object's `$id` and anchors, and returns the scope it and its members are read in.
    private mutating func identify(_ members: JSONMembers, at location: SchemaLocation, scope inherited: SchemaScope) -> SchemaScope {
        var scope = inherited
        if case .string(let uri)? = members["$schema"] {
            if uri.contains("draft-04") && inherited.dialect == .draft2020_12 { scope.dialect = .draft4 }
            if uri.contains("draft/2020-12") && inherited.dialect == .draft4 { scope.dialect = .draft2020_12 }
        }
        switch scope.dialect {
        case .openAPI30:
            break
        case .draft4:
            // A `$ref` hides its siblings, `id` among them.
            guard members["$ref"] == nil, case .string(let id)? = members["id"] else { break }
            let resolved = URIReference.resolve(id, against: scope.base)
            if let fragment = URIReference.fragment(of: resolved), !fragment.isEmpty {
                anchors[resolved] = location
            }
            let resource = URIReference.withoutFragment(resolved)
            if !id.hasPrefix("#") {
                scope.base = resource
                resources[resource] = location
            }
        case .draft2020_12, .openAPI31:
            if case .string(let id)? = members["$id"] {
                scope.base = URIReference.withoutFragment(URIReference.resolve(id, against: scope.base))
                resources[scope.base] = location
            }
            if case .string(let name)? = members["$anchor"] {
                anchors[scope.base + "#" + name] = location
            }
            if case .string(let name)? = members["$dynamicAnchor"] {
                anchors[scope.base + "#" + name] = location
                dynamicAnchors.insert(scope.base + "#" + name)
            }
        }
        return scope
    }

    private mutating func compile(_ pattern: String) {
        if patterns[pattern] == nil {
            patterns[pattern] = Result { () throws(ECMARegex.CompileError) in try ECMARegex(pattern) }
        }
    }
}
