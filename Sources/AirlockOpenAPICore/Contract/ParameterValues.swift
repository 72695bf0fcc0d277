import AirlockBase
import AirlockJSONSchema
@_spi(AirlockTransport) import AirlockCore
import Foundation

/// What a schema expects a serialized value to be, enough to read text into JSON: parameters
/// arrive as text (`limit=10`), and their schemas speak of integers, arrays and objects.
indirect enum ValueShape {
    case primitive(String?)
    case array(ValueShape)
    case object([String: ValueShape])

    /// The shape of the schema at `pointer`: its `type` (the first non-null one of a 3.1 type
    /// array), following `$ref` and looking into `allOf`/`oneOf`/`anyOf` when it has none.
    static func of(_ pointer: JSONPointer?, in document: JSONValue, depth: Int = 0) -> ValueShape {
        guard let pointer, depth < 32, let schema = document[pointer]?.objectMembers else { return .primitive(nil) }
        if let reference = schema["$ref"]?.stringValue, let target = try? JSONPointer(parsing: reference) {
            return of(target, in: document, depth: depth + 1)
        }
        var type = schema["type"]?.stringValue
        if type == nil, let types = schema["type"]?.arrayElements {
            type = types.compactMap(\.stringValue).first { $0 != "null" }
        }
        if type == nil, schema["properties"] != nil { type = "object" }
        if type == nil, schema["items"] != nil { type = "array" }
        switch type {
        case "array":
            return .array(of(schema["items"] != nil ? pointer.appending("items") : nil, in: document, depth: depth + 1))
        case "object":
            var properties: [String: ValueShape] = [:]
            for (name, _) in schema["properties"]?.objectMembers ?? [:] {
                properties[name] = of(pointer.appending("properties").appending(name), in: document, depth: depth + 1)
            }
            return .object(properties)
        case let type?:
            return .primitive(type)
        case nil:
            for combinator in ["allOf", "oneOf", "anyOf"] {
                guard let branches = schema[combinator]?.arrayElements else { continue }
                for index in branches.indices {
                    let shape = of(pointer.appending(combinator).appending(index), in: document, depth: depth + 1)
                    if case .primitive(nil) = shape { continue }
                    return shape
                }
            }
            return .primitive(nil)
        }
    }

    /// Text as the JSON value this shape expects: a number or boolean when it reads as one,
    /// else the text itself (which the schema then refuses, naming it).
    func scalar(_ text: String) -> JSONValue {
        guard case .primitive(let type) = self else { return .string(text) }
        switch type {
        case "integer", "number":
            if let number = Double(text), number.isFinite, !text.contains(where: { $0.isLetter }) { return .number(number) }
        case "boolean":
            if text == "true" { return .bool(true) }
            if text == "false" { return .bool(false) }
        case "null":
            if text.isEmpty || text == "null" { return .null }
        default:
            break
        }
        return .string(text)
    }

    /// The shape of an array's items or an object's property.
    func member(_ name: String?) -> ValueShape {
        switch self {
        case .array(let items): return items
        case .object(let properties): return name.flatMap { properties[$0] } ?? .primitive(nil)
        case .primitive: return .primitive(nil)
        }
    }
}

/// Reads a parameter's value from a request as the parameter's style writes it (OpenAPI 3,
/// "Style Values"): `simple` and `label` and `matrix` in paths, `form`, `spaceDelimited`,
/// `pipeDelimited` and `deepObject` in queries, `simple` in headers, `form` in cookies.
struct ParameterReader {
    let rule: ParameterRule
    let shape: ValueShape

    /// The value from a path segment's text (already percent-decoded).
    func fromPath(_ text: String) -> JSONValue {
        var text = Substring(text)
        switch rule.style {
        case .label:
            guard text.hasPrefix(".") else { return .string(String(text)) }
            text = text.dropFirst()
            return list(text, separator: rule.explode ? "." : ",")
        case .matrix:
            let prefix = ";\(rule.name)"
            if case .object = shape, rule.explode {
                return pairs(text.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map { Substring($0) }, separator: "=")
            }
            guard text.hasPrefix(prefix) else { return .string(String(text)) }
            if case .array = shape, rule.explode {
                let items = text.split(separator: ";").compactMap { $0.hasPrefix("\(rule.name)=") ? $0.dropFirst(rule.name.count + 1) : nil }
                return .array(items.map { shape.member(nil).scalar(String($0)) })
            }
            text = text.dropFirst(prefix.count)
            if text.hasPrefix("=") { text = text.dropFirst() }
            return list(text, separator: ",")
        default:
            return list(text, separator: ",")
        }
    }

    /// The value from a header's text, or a cookie's.
    func fromText(_ text: String) -> JSONValue {
        list(Substring(text), separator: ",")
    }

    /// The value from the query items, or `nil` when the parameter is absent.
    func fromQuery(_ items: [RecordedRequest.QueryItem]) -> JSONValue? {
        if rule.contentType != nil {
            return items.first { $0.name == rule.name }.map { Self.json($0.value ?? "") }
        }
        switch (rule.style, shape) {
        case (.deepObject, _):
            let prefix = rule.name + "["
            let members = items.compactMap { item -> (String, String)? in
                guard item.name.hasPrefix(prefix), item.name.hasSuffix("]") else { return nil }
                return (String(item.name.dropFirst(prefix.count).dropLast()), item.value ?? "")
            }
            guard !members.isEmpty else { return nil }
            var object = JSONMembers()
            for (key, value) in members { object[key] = shape.member(key).scalar(value) }
            return .object(object)
        case (.form, .object(let properties)) where rule.explode:
            let members = items.filter { properties[$0.name] != nil }
            guard !members.isEmpty else { return nil }
            var object = JSONMembers()
            for item in members { object[item.name] = shape.member(item.name).scalar(item.value ?? "") }
            return .object(object)
        case (.form, .array(let element)) where rule.explode:
            let values = items.filter { $0.name == rule.name }
            guard !values.isEmpty else { return nil }
            return .array(values.map { element.scalar($0.value ?? "") })
        default:
            let values = items.filter { $0.name == rule.name }
            guard let item = values.first else { return nil }
            if values.count > 1, case .primitive = shape {
                // One value given more than once is no serialization of it: the values as a
                // list, which the schema refuses.
                return .array(values.map { shape.scalar($0.value ?? "") })
            }
            let separator: Character = rule.style == .spaceDelimited ? " " : rule.style == .pipeDelimited ? "|" : ","
            return list(Substring(item.value ?? ""), separator: separator)
        }
    }

    /// A scalar, or a list of values (an array) or of keys and values (an object), as the
    /// shape wants.
    private func list(_ text: Substring, separator: Character) -> JSONValue {
        if rule.contentType != nil { return Self.json(String(text)) }
        switch shape {
        case .array(let element):
            guard !text.isEmpty else { return .array([]) }
            return .array(text.split(separator: separator, omittingEmptySubsequences: false).map { element.scalar(String($0)) })
        case .object:
            let parts = text.split(separator: separator, omittingEmptySubsequences: false).map { Substring($0) }
            if rule.explode { return pairs(parts, separator: "=") }
            var object = JSONMembers()
            var index = 0
            while index + 1 < parts.count {
                object[String(parts[index])] = shape.member(String(parts[index])).scalar(String(parts[index + 1]))
                index += 2
            }
            return .object(object)
        case .primitive:
            return shape.scalar(String(text))
        }
    }

    private func pairs(_ parts: [Substring], separator: Character) -> JSONValue {
        var object = JSONMembers()
        for part in parts where !part.isEmpty {
            let pair = part.split(separator: separator, maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0])
            object[key] = shape.member(key).scalar(pair.count > 1 ? String(pair[1]) : "")
        }
        return .object(object)
    }

    /// A parameter given as `content` (JSON): its text parsed, or the text itself.
    private static func json(_ text: String) -> JSONValue {
        (try? JSONValue.parse(Data(text.utf8))) ?? .string(text)
    }
}
