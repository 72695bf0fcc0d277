import AirlockBase
import Foundation

/// Binary → JSON, one message at a time (see ``MessageCodec``).
struct BinaryToJSON {
    let descriptors: DescriptorSet
    var unknownFieldCount = 0

    init(descriptors: DescriptorSet) {
        self.descriptors = descriptors
    }

    /// What one field holds while its message is read.
    private enum Content {
        /// A singular scalar (last one wins) and whether it is its type's default.
        case single(JSONValue, isDefault: Bool)
        case list([JSONValue])
        /// A singular message's occurrences, concatenated: parsing them at once merges them, as
        /// protobuf does.
        case message([UInt8])
        case map(JSONMembers)
    }

    mutating func message(_ schema: MessageSchema, _ bytes: [UInt8], _ range: Range<Int>, path: FieldPath, depth: Int) throws -> JSONValue {
        guard depth <= MessageCodec.maximumDepth else {
            throw path.error("messages nest deeper than \(MessageCodec.maximumDepth) levels")
        }
        var reader = WireReader(bytes, from: range.lowerBound, to: range.upperBound)
        // A field's content is taken out of the dictionary while it grows (`removeValue`), so that
        // appending never copies it: a message of n repeated values costs O(n), not O(n²).
        var contents: [Int32: Content] = [:]
        var oneofChoice: [Int: Int32] = [:]
        while !reader.isAtEnd {
            let number: Int32
            let type: WireType
            do {
                (number, type) = try reader.tag()
            } catch {
                throw path.error(error.text)
            }
            guard let field = schema.field(number: number) else {
                do {
                    try reader.skip(type, number: number)
                } catch {
                    throw path.error("unknown field \(number): " + error.text)
                }
                unknownFieldCount += 1
                continue
            }
            let fieldPath = path.appending(.field(field.jsonName))
            do {
                if let entry = field.mapEntry {
                    guard type == .lengthDelimited else { throw wrongWireType(type, field, fieldPath) }
                    let entryRange = try reader.lengthDelimited()
                    var members: JSONMembers
                    if case .map(let existing) = contents.removeValue(forKey: number) { members = existing } else { members = JSONMembers() }
                    let (key, value) = try mapEntry(
                        try descriptors.message(named: entry), bytes, entryRange, path: fieldPath.appending(.index(members.count)), depth: depth + 1
                    )
                    members[key] = value
                    contents[number] = .map(members)
                } else {
                    switch field.kind {
                    case .group:
                        throw fieldPath.error("is a proto2 group, which the codec does not read")
                    case .message(let typeName):
                        guard type == .lengthDelimited else { throw wrongWireType(type, field, fieldPath) }
                        let valueRange = try reader.lengthDelimited()
                        if field.isRepeated {
                            var list: [JSONValue]
                            if case .list(let existing) = contents.removeValue(forKey: number) { list = existing } else { list = [] }
                            let child = try descriptors.message(named: typeName)
                            list.append(try message(child, bytes, valueRange, path: fieldPath.appending(.index(list.count)), depth: depth + 1))
                            contents[number] = .list(list)
                        } else {
                            var merged: [UInt8]
                            if case .message(let existing) = contents.removeValue(forKey: number) { merged = existing } else { merged = [] }
                            merged += bytes[valueRange]
                            contents[number] = .message(merged)
                        }
                    default:
                        if field.isRepeated {
                            var list: [JSONValue]
                            if case .list(let existing) = contents.removeValue(forKey: number) { list = existing } else { list = [] }
                            let expected = Self.wireType(of: field.kind)
                            if type == .lengthDelimited && expected != .lengthDelimited {
                                // Packed: every element of the range, whatever the descriptor says
                                // about packing (parsers accept both forms).
                                let packed = try reader.lengthDelimited()
                                var inner = WireReader(bytes, from: packed.lowerBound, to: packed.upperBound)
                                while !inner.isAtEnd {
                                    let value = try scalar(field, &inner, expected, path: fieldPath.appending(.index(list.count))).json
                                    if isUnknownClosedEnumValue(value, field) { unknownFieldCount += 1 } else { list.append(value) }
                                }
                            } else {
                                guard type == expected else { throw wrongWireType(type, field, fieldPath) }
                                let value = try scalar(field, &reader, type, path: fieldPath.appending(.index(list.count))).json
                                if isUnknownClosedEnumValue(value, field) { unknownFieldCount += 1 } else { list.append(value) }
                            }
                            contents[number] = .list(list)
                        } else {
                            guard type == Self.wireType(of: field.kind) else { throw wrongWireType(type, field, fieldPath) }
                            let value = try scalar(field, &reader, type, path: fieldPath)
                            // A closed (proto2) enum's unknown number is an unknown field, as in protobuf.
                            if isUnknownClosedEnumValue(value.json, field) {
                                unknownFieldCount += 1
                                continue
                            }
                            contents[number] = .single(value.json, isDefault: value.isDefault)
                        }
                    }
                }
            } catch let problem as WireProblem {
                throw fieldPath.error(problem.text)
            }
            // The last member of a oneof read is the one set.
            if let oneof = field.oneofIndex {
                if let previous = oneofChoice[oneof], previous != number { contents[previous] = nil }
                oneofChoice[oneof] = number
            }
        }
        var members = JSONMembers()
        for field in schema.fields {
            guard let content = contents[field.number] else {
                if field.isRequired { throw path.error("the required field \(field.name) is missing") }
                continue
            }
            switch content {
            case .single(let value, let isDefault):
                if field.hasPresence || !isDefault { members[field.jsonName] = value }
            case .list(let list):
                if !list.isEmpty { members[field.jsonName] = .array(list) }
            case .map(let map):
                if !map.isEmpty { members[field.jsonName] = .object(map) }
            case .message(let merged):
                guard case .message(let typeName) = field.kind else { continue }
                let child = try descriptors.message(named: typeName)
                members[field.jsonName] = try message(child, merged, 0..<merged.count, path: path.appending(.field(field.jsonName)), depth: depth + 1)
            }
        }
        if let wellKnown = WellKnownType(rawValue: schema.fullName) {
            return try wellKnown.json(from: members, codec: &self, path: path, depth: depth)
        }
        return .object(members)
    }

    /// A map entry's key (as JSON's object keys spell it) and value (defaults where absent).
    private mutating func mapEntry(_ schema: MessageSchema, _ bytes: [UInt8], _ range: Range<Int>, path: FieldPath, depth: Int) throws -> (String, JSONValue) {
        guard let keyField = schema.field(number: 1), let valueField = schema.field(number: 2) else {
            throw path.error("map entry \(schema.fullName) has no key or value field")
        }
        var reader = WireReader(bytes, from: range.lowerBound, to: range.upperBound)
        var key: JSONValue?
        var value: JSONValue?
        var messageBytes: [UInt8]?
        while !reader.isAtEnd {
            let (number, type) = try reader.tag()
            let field = number == 1 ? keyField : number == 2 ? valueField : nil
            guard let field else {
                try reader.skip(type, number: number)
                unknownFieldCount += 1
                continue
            }
            if case .message = field.kind, number == 2 {
                guard type == .lengthDelimited else { throw wrongWireType(type, field, path) }
                messageBytes = (messageBytes ?? []) + bytes[try reader.lengthDelimited()]
            } else {
                guard type == Self.wireType(of: field.kind) else { throw wrongWireType(type, field, path) }
                let scalar = try scalar(field, &reader, type, path: path.appending(.field(field.name)))
                if number == 1 { key = scalar.json } else { value = scalar.json }
            }
        }
        let keyText: String
        switch key ?? Self.defaultJSON(keyField.kind) {
        case .string(let text): keyText = text
        case .bool(let flag): keyText = flag ? "true" : "false"
        case .number(let number): keyText = String(Int64(number))
        default: throw path.error("map key of an unexpected type")
        }
        let keyPath = path.dropLastIndex().appending(.key(keyText))
        if case .message(let typeName) = valueField.kind {
            let child = try descriptors.message(named: typeName)
            let merged = messageBytes ?? []
            return (keyText, try message(child, merged, 0..<merged.count, path: keyPath, depth: depth + 1))
        }
        return (keyText, value ?? Self.defaultJSON(valueField.kind, enums: descriptors))
    }

    /// One scalar value in its JSON form, and whether it is the type's default (all bits zero).
    private func scalar(_ field: FieldSchema, _ reader: inout WireReader, _ type: WireType, path: FieldPath) throws -> (json: JSONValue, isDefault: Bool) {
        switch field.kind {
        case .int32:
            let raw = Int32(truncatingIfNeeded: try reader.varint())
            return (.number(Double(raw)), raw == 0)
        case .int64:
            let raw = try reader.varint()
            return (.string(String(Int64(bitPattern: raw))), raw == 0)
        case .uint32:
            let raw = try reader.varint()
            return (.number(Double(UInt32(truncatingIfNeeded: raw))), UInt32(truncatingIfNeeded: raw) == 0)
        case .uint64:
            let raw = try reader.varint()
            return (.string(String(raw)), raw == 0)
        case .sint32:
            let raw = UInt32(truncatingIfNeeded: try reader.varint())
            return (.number(Double(Int32(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))), raw == 0)
        case .sint64:
            let raw = try reader.varint()
            return (.string(String(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))), raw == 0)
        case .bool:
            let raw = try reader.varint()
            return (.bool(raw != 0), raw == 0)
        case .enumeration(let typeName):
            let raw = Int32(truncatingIfNeeded: try reader.varint())
            if typeName == "google.protobuf.NullValue" { return (.null, raw == 0) }
            if let name = descriptors.enums[typeName]?.nameByNumber[raw] { return (.string(name), raw == 0) }
            return (.number(Double(raw)), raw == 0)
        case .fixed32:
            let raw = try reader.fixed32()
            return (.number(Double(raw)), raw == 0)
        case .sfixed32:
            let raw = try reader.fixed32()
            return (.number(Double(Int32(bitPattern: raw))), raw == 0)
        case .float:
            let raw = try reader.fixed32()
            return (Self.floatJSON(Float(bitPattern: raw)), raw == 0)
        case .fixed64:
            let raw = try reader.fixed64()
            return (.string(String(raw)), raw == 0)
        case .sfixed64:
            let raw = try reader.fixed64()
            return (.string(String(Int64(bitPattern: raw))), raw == 0)
        case .double:
            let raw = try reader.fixed64()
            return (Self.doubleJSON(Double(bitPattern: raw)), raw == 0)
        case .string:
            let range = try reader.lengthDelimited()
            let slice = reader.bytes[range]
            if field.validatesUTF8 {
                // Foundation's decoder refuses invalid UTF-8 (String(validating:) needs macOS 15).
                guard let text = String(bytes: slice, encoding: .utf8) else {
                    throw path.error("is not valid UTF-8 (proto3 strings must be)")
                }
                return (.string(text), range.isEmpty)
            }
            return (.string(String(decoding: slice, as: UTF8.self)), range.isEmpty)
        case .bytes:
            let range = try reader.lengthDelimited()
            return (.string(Data(reader.bytes[range]).base64EncodedString()), range.isEmpty)
        case .message, .group:
            throw path.error("is a message, not a scalar")
        }
    }

    /// A number a closed (proto2) enum does not declare.
    private func isUnknownClosedEnumValue(_ value: JSONValue, _ field: FieldSchema) -> Bool {
        guard case .enumeration(let typeName) = field.kind, case .number = value else { return false }
        return descriptors.enums[typeName]?.isOpen == false
    }

    private func wrongWireType(_ type: WireType, _ field: FieldSchema, _ path: FieldPath) -> CodecError {
        path.error("has wire type \(type.rawValue) (\(type.name)) where a \(Self.kindName(field.kind)) field (number \(field.number)) needs \(Self.wireType(of: field.kind).name)")
    }

    static func wireType(of kind: FieldSchema.Kind) -> WireType {
        switch kind {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration: .varint
        case .fixed64, .sfixed64, .double: .fixed64
        case .fixed32, .sfixed32, .float: .fixed32
        case .string, .bytes, .message: .lengthDelimited
        case .group: .startGroup
        }
    }

    static func kindName(_ kind: FieldSchema.Kind) -> String {
        switch kind {
        case .enumeration(let name): "enum \(name)"
        case .message(let name): "message \(name)"
        case .group(let name): "group \(name)"
        default: "\(kind)"
        }
    }

    static func doubleJSON(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
        return .number(value)
    }

    /// A float as the shortest decimal that reads back as the same float (`0.1`, not
    /// `0.10000000149011612`), as protobuf's JSON printers write floats.
    static func floatJSON(_ value: Float) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
        return .number(Double("\(value)") ?? Double(value))
    }

    /// A scalar type's default in JSON (an enum's first value by number 0).
    static func defaultJSON(_ kind: FieldSchema.Kind, enums: DescriptorSet? = nil) -> JSONValue {
        switch kind {
        case .int32, .uint32, .sint32, .fixed32, .sfixed32, .float, .double: .number(0)
        case .int64, .uint64, .sint64, .fixed64, .sfixed64: .string("0")
        case .bool: .bool(false)
        case .string, .bytes: .string("")
        case .enumeration(let name):
            name == "google.protobuf.NullValue" ? .null : (enums?.enums[name]?.nameByNumber[0]).map(JSONValue.string) ?? .number(0)
        case .message, .group: .object(JSONMembers())
        }
    }
}

extension FieldPath {
    /// The path without its last step when that is an index (a map entry's place becomes its key).
    func dropLastIndex() -> FieldPath {
        var copy = FieldPath(root: root)
        var remaining = steps
        if case .index = remaining.last { remaining.removeLast() }
        for step in remaining { copy = copy.appending(step) }
        return copy
    }
}
