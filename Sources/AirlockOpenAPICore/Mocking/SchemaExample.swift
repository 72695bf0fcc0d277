import AirlockBase
import AirlockJSONSchema
@_spi(AirlockTransport) import AirlockCore
import Foundation

/// A value a schema allows, for a response that has no example: the schema's own `example`,
/// `examples`, `default`, `const` or first `enum` value when it has one; otherwise one built
/// from its type and constraints — every property an object defines (but those the direction
/// hides), one item per array (or as many as `minItems` asks), strings of their format and
/// length, numbers within their bounds.
///
/// Recursive schemas stop at ``maximumDepth``: beyond it, optional properties are left out and
/// arrays are empty where they may be.
struct SchemaExample {
    let document: JSONValue
    /// Which properties to leave out: `writeOnly` ones in responses, `readOnly` in requests.
    let direction: SchemaDirection

    static let maximumDepth = 8

    func value(at pointer: JSONPointer) -> JSONValue {
        value(at: pointer, depth: 0)
    }

    private func value(at pointer: JSONPointer, depth: Int) -> JSONValue {
        guard depth < 64, let node = document[pointer] else { return .null }
        guard case .object(let schema) = node else { return node == .bool(false) ? .null : .object(JSONMembers()) }
        if let reference = schema["$ref"]?.stringValue, reference.hasPrefix("#/"), let target = try? JSONPointer(parsing: reference) {
            return value(at: target, depth: depth + 1)
        }
        if let example = schema["example"] { return example }
        if let first = schema["examples"]?.arrayElements?.first { return first }
        if let value = schema["default"] { return value }
        if let value = schema["const"] { return value }
        if let first = schema["enum"]?.arrayElements?.first { return first }
        if let branches = schema["allOf"]?.arrayElements, !branches.isEmpty {
            var merged = JSONMembers()
            var other: JSONValue?
            for index in branches.indices {
                switch value(at: pointer.appending("allOf").appending(index), depth: depth + 1) {
                case .object(let members): for (key, member) in members { merged[key] = member }
                case let value: other = value
                }
            }
            if schema["properties"] != nil, case .object(let own) = objectValue(schema, at: pointer, depth: depth) {
                for (key, member) in own { merged[key] = member }
            }
            return merged.isEmpty ? other ?? .object(merged) : .object(merged)
        }
        for combinator in ["oneOf", "anyOf"] {
            if let branches = schema[combinator]?.arrayElements, !branches.isEmpty {
                return value(at: pointer.appending(combinator).appending(0), depth: depth + 1)
            }
        }
        switch Self.type(of: schema) {
        case "object": return objectValue(schema, at: pointer, depth: depth)
        case "array": return arrayValue(schema, at: pointer, depth: depth)
        case "string": return .string(Self.string(for: schema))
        case "integer": return .number(Self.number(for: schema, integer: true))
        case "number": return .number(Self.number(for: schema, integer: false))
        case "boolean": return .bool(true)
        case "null": return .null
        default: return schema["properties"] != nil ? objectValue(schema, at: pointer, depth: depth) : .string("string")
        }
    }

    /// The first type a schema names that is not `null` (3.1 type arrays), or its only type.
    static func type(of schema: JSONMembers) -> String? {
        if let type = schema["type"]?.stringValue { return type }
        let types = schema["type"]?.arrayElements?.compactMap(\.stringValue) ?? []
        return types.first { $0 != "null" } ?? types.first
    }

    private func objectValue(_ schema: JSONMembers, at pointer: JSONPointer, depth: Int) -> JSONValue {
        var members = JSONMembers()
        let required = Set(schema["required"]?.arrayElements?.compactMap(\.stringValue) ?? [])
        for (name, property) in schema["properties"]?.objectMembers ?? [:] {
            let place = pointer.appending("properties").appending(name)
            if hidden(property) { continue }
            guard required.contains(name) || depth < Self.maximumDepth else { continue }
            members[name] = value(at: place, depth: depth + 1)
        }
        for name in required where members[name] == nil {
            members[name] = .string("string")
        }
        let minimum = schema["minProperties"].flatMap(Self.int) ?? 0
        var index = 0
        while members.count < minimum {
            index += 1
            if schema["additionalProperties"] == .bool(false) { break }
            members["property\(index)"] = schema["additionalProperties"]?.objectMembers != nil
                ? value(at: pointer.appending("additionalProperties"), depth: depth + 1) : .string("string")
        }
        return .object(members)
    }

    private func arrayValue(_ schema: JSONMembers, at pointer: JSONPointer, depth: Int) -> JSONValue {
        let minimum = schema["minItems"].flatMap(Self.int) ?? 0
        let maximum = schema["maxItems"].flatMap(Self.int) ?? Int.max
        var count = depth < Self.maximumDepth ? max(minimum, 1) : minimum
        count = min(count, maximum)
        var items: [JSONValue] = []
        if let prefix = schema["prefixItems"]?.arrayElements {
            for index in prefix.indices where items.count < count {
                items.append(value(at: pointer.appending("prefixItems").appending(index), depth: depth + 1))
            }
        }
        while items.count < count {
            let item = schema["items"] != nil ? value(at: pointer.appending("items"), depth: depth + 1) : .string("string")
            // `uniqueItems`: numbers count up, anything else cannot be told apart and stops at one.
            if schema["uniqueItems"] == .bool(true), items.contains(item) {
                guard case .number(let number) = item else { break }
                items.append(.number(number + Double(items.count)))
                continue
            }
            items.append(item)
        }
        return .array(items)
    }

    /// Whether the direction leaves this property out.
    private func hidden(_ property: JSONValue) -> Bool {
        let schema = property.followingReferences(in: document)
        switch direction {
        case .response: return schema?["writeOnly"] == .bool(true)
        case .request: return schema?["readOnly"] == .bool(true)
        case .neither: return false
        }
    }

    static func int(_ value: JSONValue) -> Int? {
        if case .number(let number) = value, number.isFinite, number >= 0, number < 1_000_000 { return Int(number) }
        return nil
    }

    /// A string of the schema's format, padded to `minLength` and cut to `maxLength`.
    static func string(for schema: JSONMembers) -> String {
        var text: String
        switch schema["format"]?.stringValue {
        case "date-time": text = "2024-01-01T00:00:00Z"
        case "date": text = "2024-01-01"
        case "time": text = "12:00:00Z"
        case "email": text = "user@example.com"
        case "uuid": text = "00000000-0000-4000-8000-000000000000"
        case "uri", "url": text = "https://example.com/"
        case "uri-reference": text = "/example"
        case "hostname": text = "example.com"
        case "ipv4": text = "192.0.2.1"
        case "ipv6": text = "2001:db8::1"
        case "byte": text = "c3RyaW5n"
        case "int32", "int64": text = "1"
        default: text = "string"
        }
        let minimum = schema["minLength"].flatMap(int) ?? 0
        let maximum = schema["maxLength"].flatMap(int) ?? Int.max
        if text.count < minimum { text += String(repeating: "s", count: minimum - text.count) }
        if text.count > maximum { text = String(text.prefix(maximum)) }
        return text
    }

    /// A number within the schema's bounds, a multiple of its `multipleOf`.
    static func number(for schema: JSONMembers, integer: Bool) -> Double {
        func bound(_ key: String) -> Double? {
            if case .number(let value)? = schema[key] { return value }
            return nil
        }
        let step = bound("multipleOf") ?? (integer ? 1 : 0)
        var low = bound("minimum") ?? -Double.infinity
        var high = bound("maximum") ?? Double.infinity
        // 3.1 (numbers) and 3.0 (booleans beside minimum/maximum).
        if let exclusive = bound("exclusiveMinimum") { low = max(low, exclusive + (step > 0 ? step : 1e-9)) }
        if schema["exclusiveMinimum"] == .bool(true) { low += step > 0 ? step : 1e-9 }
        if let exclusive = bound("exclusiveMaximum") { high = min(high, exclusive - (step > 0 ? step : 1e-9)) }
        if schema["exclusiveMaximum"] == .bool(true) { high -= step > 0 ? step : 1e-9 }
        var candidate = low.isFinite ? low : (high.isFinite ? min(high, 1) : 1)
        if candidate < low { candidate = low }
        if step > 0 {
            candidate = (candidate / step).rounded(.up) * step
        }
        if integer { candidate = candidate.rounded(.up) }
        return candidate
    }
}
