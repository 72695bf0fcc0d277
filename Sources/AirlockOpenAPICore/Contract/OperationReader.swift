import AirlockBase
import AirlockJSONSchema
@_spi(AirlockTransport) import AirlockCore

/// Follows a document's `$ref`s to the objects they name, keeping the place of each.
struct ReferenceResolver {
    let document: JSONValue
    let source: String

    /// The object at `pointer`, with `$ref`s followed: the object and where it is.
    func resolve(_ pointer: JSONPointer) throws(OpenAPIContract.LoadError) -> (object: JSONMembers, pointer: JSONPointer) {
        var current = pointer
        var seen: Set<JSONPointer> = []
        while true {
            guard seen.insert(current).inserted else {
                throw OpenAPIContract.LoadError(.invalidReference, source: source, problem: "the $ref at \(pointer.fragment) leads back to itself", fix: "break the loop of references")
            }
            guard let members = document[current]?.objectMembers else {
                throw OpenAPIContract.LoadError(.invalidDocument, source: source, problem: "\(current.fragment) is not an object", fix: "give an object there")
            }
            guard let reference = members["$ref"] else { return (members, current) }
            current = try target(of: reference, at: current)
        }
    }

    /// Checks every `$ref` of the document (but those inside examples, which are data): each
    /// must point at something the document has. A reference to a schema's `$anchor`
    /// (`#name`) is left to the schema validator.
    func checkEveryReference() throws(OpenAPIContract.LoadError) {
        var pending: [(JSONValue, JSONPointer)] = [(document, JSONPointer())]
        while let (value, pointer) = pending.popLast() {
            switch value {
            case .object(let members):
                // A member named `$ref` that is not a string is a property of that name.
                if let reference = members["$ref"], let text = reference.stringValue, text.hasPrefix("#/") || !text.hasPrefix("#") {
                    _ = try target(of: reference, at: pointer.appending("$ref"))
                }
                for (key, member) in members where key != "example" && key != "examples" {
                    pending.append((member, pointer.appending(key)))
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { pending.append((element, pointer.appending(index))) }
            default:
                break
            }
        }
    }

    /// Where a `$ref` points in this document.
    func target(of reference: JSONValue, at pointer: JSONPointer) throws(OpenAPIContract.LoadError) -> JSONPointer {
        guard let text = reference.stringValue, text.hasPrefix("#") else {
            throw OpenAPIContract.LoadError(
                .externalReference,
                source: source,
                problem: "the $ref at \(pointer.fragment) points into another file (\(reference.stringValue ?? "\(reference)"))",
                fix: "bundle the document into one file first (for example with `redocly bundle`)"
            )
        }
        do {
            let target = try JSONPointer(parsing: text)
            guard document[target] != nil else {
                throw OpenAPIContract.LoadError(.invalidReference, source: source, problem: "the $ref at \(pointer.fragment) points at \(text), which the document does not have", fix: "correct the reference")
            }
            return target
        } catch let error as JSONPointer.ParseError {
            throw OpenAPIContract.LoadError(.invalidReference, source: source, problem: "the $ref at \(pointer.fragment): \(error)", fix: "correct the reference")
        } catch let error as OpenAPIContract.LoadError {
            throw error
        } catch {
            throw OpenAPIContract.LoadError(.invalidReference, source: source, problem: "\(error)", fix: "correct the reference")
        }
    }
}

/// Reads the operations of a document, with their parameters, bodies, responses and security.
struct OperationReader {
    let document: JSONValue
    let resolver: ReferenceResolver

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    func operations() throws(OpenAPIContract.LoadError) -> [ContractOperation] {
        guard let paths = document.objectMembers?["paths"]?.objectMembers else { return [] }
        let globalSecurity = document.objectMembers?["security"]
        var operations: [ContractOperation] = []
        for (path, _) in paths {
            let (item, itemPointer) = try resolver.resolve(JSONPointer(["paths", path]))
            let shared = try parameters(item["parameters"], at: itemPointer.appending("parameters"))
            for method in Self.methods {
                guard let operation = item[method]?.objectMembers else { continue }
                let pointer = itemPointer.appending(method)
                var parameters = shared
                for own in try self.parameters(operation["parameters"], at: pointer.appending("parameters")) {
                    parameters.removeAll { $0.name == own.name && $0.location == own.location }
                    parameters.append(own)
                }
                let security: (value: JSONValue?, pointer: JSONPointer) = operation["security"] != nil
                    ? (operation["security"], pointer.appending("security"))
                    : (globalSecurity, JSONPointer(["security"]))
                operations.append(ContractOperation(
                    public: OpenAPIOperation(operationID: operation["operationId"]?.stringValue, method: method.uppercased(), path: path, pointer: pointer),
                    parameters: parameters,
                    body: try operation["requestBody"].map { _ throws(OpenAPIContract.LoadError) in try body(at: pointer.appending("requestBody")) },
                    responses: try responses(operation["responses"], at: pointer.appending("responses")),
                    security: Self.requirements(security.value),
                    securityPointer: security.pointer
                ))
            }
        }
        return operations
    }

    private func parameters(_ value: JSONValue?, at pointer: JSONPointer) throws(OpenAPIContract.LoadError) -> [ParameterRule] {
        guard let list = value?.arrayElements else { return [] }
        var rules: [ParameterRule] = []
        for index in list.indices {
            let (parameter, place) = try resolver.resolve(pointer.appending(index))
            guard let name = parameter["name"]?.stringValue,
                let location = parameter["in"]?.stringValue.flatMap(ParameterRule.Location.init(rawValue:))
            else { continue }
            // OpenAPI: Accept, Content-Type and Authorization header parameters are ignored.
            if location == .header, ["accept", "content-type", "authorization"].contains(name.lowercased()) { continue }
            let style = parameter["style"]?.stringValue.flatMap(ParameterRule.Style.init(rawValue:))
                ?? (location == .query || location == .cookie ? .form : .simple)
            var schema = parameter["schema"] != nil ? place.appending("schema") : nil
            var contentType: String?
            if let content = parameter["content"]?.objectMembers, let (type, _) = content.first(where: { _ in true }) {
                contentType = type.lowercased()
                if content[type]?.objectMembers?["schema"] != nil {
                    schema = place.appending("content").appending(type).appending("schema")
                }
            }
            rules.append(ParameterRule(
                name: name,
                location: location,
                required: location == .path || parameter["required"]?.boolValue == true,
                style: style,
                explode: parameter["explode"]?.boolValue ?? (style == .form),
                allowEmptyValue: parameter["allowEmptyValue"]?.boolValue == true,
                schema: schema,
                contentType: contentType,
                pointer: place
            ))
        }
        return rules
    }

    private func body(at pointer: JSONPointer) throws(OpenAPIContract.LoadError) -> BodyRule {
        let (body, place) = try resolver.resolve(pointer)
        return BodyRule(required: body["required"]?.boolValue == true, content: content(body["content"], at: place.appending("content")), pointer: place)
    }

    private func content(_ value: JSONValue?, at pointer: JSONPointer) -> [MediaTypeRule] {
        guard let content = value?.objectMembers else { return [] }
        return content.map { type, media in
            let place = pointer.appending(type)
            return MediaTypeRule(mediaType: type.lowercased(), schema: media.objectMembers?["schema"] != nil ? place.appending("schema") : nil, pointer: place)
        }
    }

    private func responses(_ value: JSONValue?, at pointer: JSONPointer) throws(OpenAPIContract.LoadError) -> [ResponseRule] {
        guard let responses = value?.objectMembers else { return [] }
        var rules: [ResponseRule] = []
        for (key, _) in responses where !key.hasPrefix("x-") {
            let (response, place) = try resolver.resolve(pointer.appending(key))
            var headers: [HeaderRule] = []
            for (name, _) in response["headers"]?.objectMembers ?? [:] where name.lowercased() != "content-type" {
                let (header, headerPlace) = try resolver.resolve(place.appending("headers").appending(name))
                headers.append(HeaderRule(
                    name: name,
                    required: header["required"]?.boolValue == true,
                    schema: header["schema"] != nil ? headerPlace.appending("schema") : nil,
                    pointer: headerPlace
                ))
            }
            rules.append(ResponseRule(key: key.uppercased(), headers: headers, content: content(response["content"], at: place.appending("content")), pointer: place))
        }
        return rules
    }

    /// The security alternatives: each requirement object's scheme names.
    private static func requirements(_ value: JSONValue?) -> [[String]]? {
        guard let list = value?.arrayElements else { return nil }
        return list.map { requirement in Array(requirement.objectMembers?.keys ?? JSONMembers().keys) }
    }
}

/// How a request proves who it is, as `components.securitySchemes` defines it.
struct SecurityScheme: Sendable {
    enum Kind: Sendable {
        /// A key in a header, query parameter or cookie.
        case apiKey(name: String, location: ParameterRule.Location)
        /// `Authorization: <scheme> …` (`basic`, `bearer`, …).
        case http(scheme: String)
        /// OAuth 2 and OpenID Connect: a bearer token in `Authorization`.
        case bearerToken
        /// Mutual TLS: not visible in a request.
        case mutualTLS
    }

    let name: String
    let kind: Kind
    let pointer: JSONPointer

    static func all(in document: JSONValue, resolver: ReferenceResolver) throws(OpenAPIContract.LoadError) -> [String: SecurityScheme] {
        guard let schemes = document.objectMembers?["components"]?.objectMembers?["securitySchemes"]?.objectMembers else { return [:] }
        var all: [String: SecurityScheme] = [:]
        for (name, _) in schemes {
            let (scheme, place) = try resolver.resolve(JSONPointer(["components", "securitySchemes", name]))
            let kind: Kind
            switch scheme["type"]?.stringValue {
            case "apiKey":
                guard let key = scheme["name"]?.stringValue,
                    let location = scheme["in"]?.stringValue.flatMap(ParameterRule.Location.init(rawValue:))
                else { continue }
                kind = .apiKey(name: key, location: location)
            case "http":
                kind = .http(scheme: scheme["scheme"]?.stringValue?.lowercased() ?? "bearer")
            case "oauth2", "openIdConnect":
                kind = .bearerToken
            default:
                kind = .mutualTLS
            }
            all[name] = SecurityScheme(name: name, kind: kind, pointer: place)
        }
        return all
    }
}
