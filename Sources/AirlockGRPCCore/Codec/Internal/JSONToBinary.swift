import AirlockBase
import Foundation

/// JSON → binary, one message at a time (see ``MessageCodec``).
struct JSONToBinary {
    let descriptors: DescriptorSet
    /// The digits of integers a `Double` does not keep, by JSON path (member names, indices).
    let longIntegers: [[String]: String]

    func message(_ schema: MessageSchema, _ json: JSONValue, path: FieldPath, jsonPath: [String], depth: Int) throws -> [UInt8] {
        guard depth <= MessageCodec.maximumDepth else {
            throw path.error("messages nest deeper than \(MessageCodec.maximumDepth) levels")
        }
        var json = json
        if let wellKnown = WellKnownType(rawValue: schema.fullName) {
            json = try wellKnown.generic(from: json, encoder: self, path: path, jsonPath: jsonPath, depth: depth)
        }
        guard case .object(let members) = json else {
            throw path.error("expected a JSON object for \(schema.fullName), got \(Self.describe(json))")
        }
        var encoded: [(number: Int32, bytes: [UInt8])] = []
        var given: [Int32: String] = [:]
        var oneofs: [Int: String] = [:]
        for (key, value) in members {
            guard let field = schema.field(named: key) else {
                let names = schema.fields.prefix(30).map(\.jsonName).joined(separator: ", ")
                throw path.error("\(schema.fullName) has no field \"\(key)\" (its fields: \(names.isEmpty ? "none" : names))")
            }
            let fieldPath = path.appending(.field(field.jsonName))
            if let previous = given[field.number] {
                throw fieldPath.error("is given twice (as \"\(previous)\" and \"\(key)\")")
            }
            given[field.number] = key
            if value == .null && !Self.takesNull(field) { continue }
            if let oneof = field.oneofIndex {
                if let other = oneofs[oneof] {
                    throw fieldPath.error("oneof \(schema.oneofNames[oneof]) already has \(other); give one member at most")
                }
                oneofs[oneof] = field.jsonName
            }
            var writer = WireWriter()
            try self.field(field, value, into: &writer, path: fieldPath, jsonPath: jsonPath + [key], depth: depth)
            encoded.append((field.number, writer.bytes))
        }
        for field in schema.fields where field.isRequired && given[field.number] == nil {
            throw path.error("the required field \(field.jsonName) is missing")
        }
        return encoded.sorted { $0.number < $1.number }.flatMap(\.bytes)
    }

    /// Whether `null` is a value of the field rather than "not set": `google.protobuf.Value`
    /// (JSON's null) and the `NullValue` enum.
    static func takesNull(_ field: FieldSchema) -> Bool {
        guard !field.isRepeated else { return false }
        switch field.kind {
        case .message("google.protobuf.Value"), .enumeration("google.protobuf.NullValue"): return true
        default: return false
        }
    }

    private func field(_ field: FieldSchema, _ value: JSONValue, into writer: inout WireWriter, path: FieldPath, jsonPath: [String], depth: Int) throws {
        if let entryName = field.mapEntry {
            guard case .object(let entries) = value else {
                throw path.error("expected a JSON object for a map, got \(Self.describe(value))")
            }
            let entry = try descriptors.message(named: entryName)
            guard let keyField = entry.field(number: 1), let valueField = entry.field(number: 2) else {
                throw path.error("map entry \(entryName) has no key or value field")
            }
            for (key, item) in entries {
                let itemPath = path.appending(.key(key))
                var entryWriter = WireWriter()
                try single(keyField, Self.mapKey(key, keyField.kind, path: itemPath), into: &entryWriter, path: itemPath, jsonPath: [], depth: depth, always: true)
                if item == .null, !Self.takesNull(valueField) {
                    throw itemPath.error("a map value cannot be null")
                }
                try single(valueField, item, into: &entryWriter, path: itemPath, jsonPath: jsonPath + [key], depth: depth, always: true)
                writer.tag(field.number, .lengthDelimited)
                writer.lengthDelimited(entryWriter.bytes)
            }
            return
        }
        if field.isRepeated {
            guard case .array(let items) = value else {
                throw path.error("expected a JSON array for a repeated field, got \(Self.describe(value))")
            }
            if field.isPacked {
                var payload = WireWriter()
                for (index, item) in items.enumerated() {
                    let itemPath = path.appending(.index(index))
                    try raw(field.kind, item, path: itemPath, jsonPath: jsonPath + [String(index)]).write(into: &payload)
                }
                if !items.isEmpty {
                    writer.tag(field.number, .lengthDelimited)
                    writer.lengthDelimited(payload.bytes)
                }
            } else {
                for (index, item) in items.enumerated() {
                    let itemPath = path.appending(.index(index))
                    if item == .null, field.kind != .message("google.protobuf.Value") {
                        throw itemPath.error("an element of a repeated field cannot be null")
                    }
                    try single(field, item, into: &writer, path: itemPath, jsonPath: jsonPath + [String(index)], depth: depth, always: true)
                }
            }
            return
        }
        try single(field, value, into: &writer, path: path, jsonPath: jsonPath, depth: depth, always: field.hasPresence)
    }

    /// One value with its tag; a scalar at its default is left out unless `always`.
    private func single(_ field: FieldSchema, _ value: JSONValue, into writer: inout WireWriter, path: FieldPath, jsonPath: [String], depth: Int, always: Bool) throws {
        switch field.kind {
        case .message(let typeName):
            let child = try descriptors.message(named: typeName)
            let bytes = try message(child, value, path: path, jsonPath: jsonPath, depth: depth + 1)
            writer.tag(field.number, .lengthDelimited)
            writer.lengthDelimited(bytes)
        case .group:
            throw path.error("is a proto2 group, which the codec does not write")
        default:
            let scalar = try raw(field.kind, value, path: path, jsonPath: jsonPath)
            guard always || !scalar.isZero else { return }
            writer.tag(field.number, BinaryToJSON.wireType(of: field.kind))
            scalar.write(into: &writer)
        }
    }

    /// A scalar's value on the wire.
    enum RawScalar {
        case varint(UInt64)
        case fixed32(UInt32)
        case fixed64(UInt64)
        case bytes([UInt8])

        var isZero: Bool {
            switch self {
            case .varint(let value), .fixed64(let value): value == 0
            case .fixed32(let value): value == 0
            case .bytes(let value): value.isEmpty
            }
        }

        func write(into writer: inout WireWriter) {
            switch self {
            case .varint(let value): writer.varint(value)
            case .fixed32(let value): writer.fixed32(value)
            case .fixed64(let value): writer.fixed64(value)
            case .bytes(let value): writer.lengthDelimited(value)
            }
        }
    }

    func raw(_ kind: FieldSchema.Kind, _ value: JSONValue, path: FieldPath, jsonPath: [String]) throws -> RawScalar {
        switch kind {
        case .int32:
            return .varint(UInt64(bitPattern: Int64(try integer(value, path: path, jsonPath: jsonPath, in: Int64(Int32.min)...Int64(Int32.max), "int32"))))
        case .sint32:
            let number = Int32(try integer(value, path: path, jsonPath: jsonPath, in: Int64(Int32.min)...Int64(Int32.max), "sint32"))
            return .varint(UInt64(UInt32(bitPattern: (number << 1) ^ (number >> 31))))
        case .sfixed32:
            return .fixed32(UInt32(bitPattern: Int32(try integer(value, path: path, jsonPath: jsonPath, in: Int64(Int32.min)...Int64(Int32.max), "sfixed32"))))
        case .uint32:
            return .varint(UInt64(try integer(value, path: path, jsonPath: jsonPath, in: 0...Int64(UInt32.max), "uint32")))
        case .fixed32:
            return .fixed32(UInt32(try integer(value, path: path, jsonPath: jsonPath, in: 0...Int64(UInt32.max), "fixed32")))
        case .int64:
            return .varint(UInt64(bitPattern: try integer(value, path: path, jsonPath: jsonPath, in: Int64.min...Int64.max, "int64")))
        case .sint64:
            let number = try integer(value, path: path, jsonPath: jsonPath, in: Int64.min...Int64.max, "sint64")
            return .varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
        case .sfixed64:
            return .fixed64(UInt64(bitPattern: try integer(value, path: path, jsonPath: jsonPath, in: Int64.min...Int64.max, "sfixed64")))
        case .uint64:
            return .varint(try unsigned64(value, path: path, jsonPath: jsonPath, "uint64"))
        case .fixed64:
            return .fixed64(try unsigned64(value, path: path, jsonPath: jsonPath, "fixed64"))
        case .double:
            return .fixed64(try floating(value, path: path, "double").bitPattern)
        case .float:
            let number = try floating(value, path: path, "float")
            // Rounded to the nearest float: the largest float's shortest spelling
            // (3.4028235e+38, what the decoder writes) is a little above it as a Double.
            let float = Float(number)
            guard !number.isFinite || float.isFinite else {
                throw path.error("\(number) is out of range for a float")
            }
            return .fixed32(float.bitPattern)
        case .bool:
            guard case .bool(let flag) = value else { throw path.error("expected true or false for a bool, got \(Self.describe(value))") }
            return .varint(flag ? 1 : 0)
        case .string:
            guard case .string(let text) = value else { throw path.error("expected a JSON string, got \(Self.describe(value))") }
            return .bytes(Array(text.utf8))
        case .bytes:
            guard case .string(let text) = value else { throw path.error("expected base64 in a JSON string for bytes, got \(Self.describe(value))") }
            guard let data = Self.base64(text) else { throw path.error("\"\(text.prefix(40))\" is not base64") }
            return .bytes(Array(data))
        case .enumeration(let typeName):
            let schema = descriptors.enums[typeName]
            switch value {
            case .null where typeName == "google.protobuf.NullValue":
                return .varint(0)
            case .string(let name):
                guard let number = schema?.numberByName[name] else {
                    let names = (schema?.numberByName.sorted { $0.value < $1.value }.prefix(20).map(\.key) ?? []).joined(separator: ", ")
                    throw path.error("\"\(name.prefix(60))\" is not a value of enum \(typeName) (its values: \(names))")
                }
                return .varint(UInt64(bitPattern: Int64(number)))
            default:
                let number = Int32(try integer(value, path: path, jsonPath: jsonPath, in: Int64(Int32.min)...Int64(Int32.max), "enum \(typeName)"))
                if let schema, !schema.isOpen, schema.nameByNumber[number] == nil {
                    throw path.error("\(number) is not a value of the closed enum \(typeName)")
                }
                return .varint(UInt64(bitPattern: Int64(number)))
            }
        case .message, .group:
            throw path.error("is a message, not a scalar")
        }
    }

    /// A signed integer in `range` from a JSON number (integral) or string (decimal digits).
    private func integer(_ value: JSONValue, path: FieldPath, jsonPath: [String], in range: ClosedRange<Int64>, _ type: String) throws -> Int64 {
        let number: Int64
        switch value {
        case .number(let double):
            if let text = longIntegers[jsonPath] {
                guard let exact = Int64(text) else { throw path.error("\(text) is out of range for \(type)") }
                number = exact
            } else {
                guard double.isFinite, double == double.rounded(.towardZero) else { throw path.error("\(double) is not an integer (\(type))") }
                guard double >= -9_223_372_036_854_775_808.0, double < 9_223_372_036_854_775_808.0 else {
                    throw path.error("\(double) is out of range for \(type)")
                }
                number = Int64(double)
            }
        case .string(let text):
            guard let exact = Int64(text) else {
                if UInt64(text) != nil { throw path.error("\(text) is out of range for \(type)") }
                throw path.error("\"\(text.prefix(40))\" is not an integer (\(type))")
            }
            number = exact
        default:
            throw path.error("expected an integer (a number or a string of digits) for \(type), got \(Self.describe(value))")
        }
        guard range.contains(number) else { throw path.error("\(number) is out of range for \(type)") }
        return number
    }

    private func unsigned64(_ value: JSONValue, path: FieldPath, jsonPath: [String], _ type: String) throws -> UInt64 {
        switch value {
        case .number(let double):
            if let text = longIntegers[jsonPath] {
                guard let exact = UInt64(text) else { throw path.error("\(text) is out of range for \(type)") }
                return exact
            }
            guard double.isFinite, double == double.rounded(.towardZero) else { throw path.error("\(double) is not an integer (\(type))") }
            guard double >= 0, double < 18_446_744_073_709_551_616.0 else { throw path.error("\(double) is out of range for \(type)") }
            return UInt64(double)
        case .string(let text):
            guard let exact = UInt64(text) else {
                if Int64(text) != nil { throw path.error("\(text) is out of range for \(type)") }
                throw path.error("\"\(text.prefix(40))\" is not an integer (\(type))")
            }
            return exact
        default:
            throw path.error("expected an integer (a number or a string of digits) for \(type), got \(Self.describe(value))")
        }
    }

    private func floating(_ value: JSONValue, path: FieldPath, _ type: String) throws -> Double {
        switch value {
        case .number(let number): return number
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        case .string(let text):
            guard let number = Double(text), number.isFinite, !text.contains(where: { $0.isWhitespace }) else {
                throw path.error("\"\(text.prefix(40))\" is not a number (\(type))")
            }
            return number
        default:
            throw path.error("expected a number for \(type), got \(Self.describe(value))")
        }
    }

    /// A map key as the JSON object spells it, in the key type's JSON form.
    static func mapKey(_ key: String, _ kind: FieldSchema.Kind, path: FieldPath) throws -> JSONValue {
        switch kind {
        case .string: return .string(key)
        case .bool:
            switch key {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw path.error("map key \"\(key.prefix(40))\" is not true or false")
            }
        default: return .string(key)
        }
    }

    /// Base64, standard or URL-safe, padded or not.
    static func base64(_ text: String) -> Data? {
        var normalized = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while normalized.hasSuffix("=") { normalized.removeLast() }
        guard normalized.count % 4 != 1 else { return nil }
        normalized += String(repeating: "=", count: (4 - normalized.count % 4) % 4)
        return Data(base64Encoded: normalized)
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let number): "the number \(number)"
        case .string(let text): "the string \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
