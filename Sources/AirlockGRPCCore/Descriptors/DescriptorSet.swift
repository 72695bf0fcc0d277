import Foundation
import SwiftProtobuf

/// A `FileDescriptorSet` — what `protoc --descriptor_set_out=… --include_imports` writes, the
/// form WireMock's gRPC extension and grpcurl read — indexed: services' methods by path, messages
/// and enums by full name.
///
/// Built once and read without a lock. Every type a field, a method or an import names must be in
/// the set: a set made without `--include_imports` is refused with the file and the name missing.
///
/// ```swift
/// let set = try DescriptorSet(contentsOf: URL(fileURLWithPath: "orders.pb"))
/// let method = try set.method(path: "/airlock.test.orders.OrderService/GetOrder")
/// let bytes = try MessageCodec(set).encode(json: Data(#"{"id": "42"}"#.utf8), as: method.inputType)
/// ```
package struct DescriptorSet: Sendable {
    /// Where the set came from, for messages.
    package let source: String
    /// Methods by path (`/package.Service/Method`).
    package let methods: [String: MethodSchema]
    /// Message types by full name (no leading dot).
    package let messages: [String: MessageSchema]
    /// Enum types by full name (no leading dot).
    package let enums: [String: EnumSchema]
    /// The files of the set, in its order.
    package let fileNames: [String]

    /// Reads a descriptor set file.
    /// - Throws: ``DescriptorSetError`` when the file cannot be read or is not a usable set.
    package init(contentsOf url: URL) throws(DescriptorSetError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DescriptorSetError(source: url.path, problem: "cannot be read: \(error.localizedDescription)")
        }
        try self.init(serializedBytes: data, source: url.path)
    }

    /// Reads a descriptor set from its bytes (a serialized `google.protobuf.FileDescriptorSet`).
    /// - Parameters:
    ///   - data: The set's bytes.
    ///   - source: What to call it in messages (its path).
    /// - Throws: ``DescriptorSetError`` naming the file and what is wrong or missing.
    package init(serializedBytes data: Data, source: String = "descriptor set") throws(DescriptorSetError) {
        let set: Google_Protobuf_FileDescriptorSet
        do {
            set = try Google_Protobuf_FileDescriptorSet(serializedBytes: data)
        } catch {
            throw DescriptorSetError(
                source: source,
                problem: "is not a protobuf FileDescriptorSet (\(error)); make one with `protoc --descriptor_set_out=FILE --include_imports …`"
            )
        }
        try self.init(set, source: source)
    }

    /// Indexes a parsed `FileDescriptorSet`.
    /// - Throws: ``DescriptorSetError`` naming the file and what is wrong or missing.
    package init(_ set: Google_Protobuf_FileDescriptorSet, source: String = "descriptor set") throws(DescriptorSetError) {
        self.source = source
        var messages: [String: MessageSchema] = [:]
        var enums: [String: EnumSchema] = [:]
        var methods: [String: MethodSchema] = [:]
        let fileNames = set.file.map(\.name)
        guard !set.file.isEmpty else {
            throw DescriptorSetError(source: source, problem: "holds no .proto file")
        }
        let known = Set(fileNames)
        for file in set.file {
            for dependency in file.dependency where !known.contains(dependency) {
                throw DescriptorSetError(
                    source: source,
                    problem: "\(file.name) imports \(dependency), which is not in the set; make the set with `protoc --include_imports`"
                )
            }
            let isProto3: Bool
            switch file.syntax {
            case "proto3": isProto3 = true
            case "", "proto2": isProto3 = false
            default:
                throw DescriptorSetError(source: source, problem: "\(file.name) uses syntax \"\(file.syntax)\"; only proto2 and proto3 files are read (not editions yet)")
            }
            let prefix = file.package.isEmpty ? "" : file.package + "."
            var walker = Walker(fileName: file.name, isProto3: isProto3)
            for message in file.messageType {
                try walker.add(message, prefix: prefix, source: source, depth: 0)
            }
            for item in file.enumType { walker.add(item, prefix: prefix) }
            for (name, message) in walker.messages {
                guard messages.updateValue(message, forKey: name) == nil else {
                    throw DescriptorSetError(source: source, problem: "\(name) is declared twice (\(file.name) and another file)")
                }
            }
            enums.merge(walker.enums) { first, _ in first }
            for service in file.service {
                let serviceName = prefix + service.name
                for method in service.method {
                    let path = "/\(serviceName)/\(method.name)"
                    methods[path] = MethodSchema(
                        path: path, serviceName: serviceName, name: method.name,
                        inputType: Self.stripDot(method.inputType), outputType: Self.stripDot(method.outputType),
                        isClientStreaming: method.clientStreaming, isServerStreaming: method.serverStreaming,
                        fileName: file.name
                    )
                }
            }
        }
        // Every name a field or method refers to resolves; map fields learn their entry type.
        for (name, message) in messages {
            var resolved = message
            for index in resolved.fields.indices {
                let field = resolved.fields[index]
                switch field.kind {
                case .message(let type), .group(let type):
                    guard let target = messages[type] else {
                        throw Self.missing(type, usedBy: "field \(name).\(field.name)", in: message.fileName, source: source)
                    }
                    if field.isRepeated, target.isMapEntry { resolved.fields[index].mapEntry = type }
                case .enumeration(let type):
                    guard enums[type] != nil else {
                        throw Self.missing(type, usedBy: "field \(name).\(field.name)", in: message.fileName, source: source)
                    }
                default: break
                }
            }
            messages[name] = resolved
        }
        for method in methods.values.sorted(by: { $0.path < $1.path }) {
            for type in [method.inputType, method.outputType] where messages[type] == nil {
                throw Self.missing(type, usedBy: "method \(method.path)", in: method.fileName, source: source)
            }
        }
        self.messages = messages
        self.enums = enums
        self.methods = methods
        self.fileNames = fileNames
    }

    /// The method at this path (`/package.Service/Method`; the leading slash may be left out).
    /// - Throws: ``DescriptorSetError`` listing the nearest methods of the set.
    package func method(path: String) throws(DescriptorSetError) -> MethodSchema {
        let normalized = path.hasPrefix("/") ? path : "/" + path
        if let method = methods[normalized] { return method }
        let near = Self.nearest(to: normalized, among: Array(methods.keys))
        let list = near.isEmpty ? "the set has no service" : "nearest: " + near.joined(separator: ", ")
        throw DescriptorSetError(source: source, problem: "no method \(normalized) in the set (\(list))")
    }

    /// The message type with this full name (a leading dot is allowed).
    /// - Throws: ``DescriptorSetError`` listing the nearest message names of the set.
    package func message(named name: String) throws(DescriptorSetError) -> MessageSchema {
        let name = Self.stripDot(name)
        if let message = messages[name] { return message }
        let near = Self.nearest(to: name, among: messages.keys.filter { !(messages[$0]?.isMapEntry ?? false) })
        throw DescriptorSetError(
            source: source,
            problem: "no message type \(name) in the set (nearest: \(near.joined(separator: ", "))); a type from an import needs `protoc --include_imports`"
        )
    }

    static func stripDot(_ name: String) -> String {
        name.hasPrefix(".") ? String(name.dropFirst()) : name
    }

    private static func missing(_ type: String, usedBy user: String, in file: String, source: String) -> DescriptorSetError {
        DescriptorSetError(
            source: source,
            problem: "\(user) (in \(file)) refers to \(type), which is not in the set; make the set with `protoc --descriptor_set_out=FILE --include_imports` so that it holds every import"
        )
    }

    /// Up to three candidates, closest first by edit distance (same last component first).
    static func nearest(to name: String, among candidates: [String]) -> [String] {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        let scored = candidates.map { candidate -> (String, Int) in
            let candidateLast = candidate.split(separator: "/").last.map(String.init) ?? candidate
            let bonus = candidateLast.lowercased() == last.lowercased() ? -1000 : 0
            return (candidate, editDistance(Array(name.utf8.prefix(200)), Array(candidate.utf8.prefix(200))) + bonus)
        }
        return scored.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
    }

    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Walks one file's nested messages and enums.
    private struct Walker {
        let fileName: String
        let isProto3: Bool
        var messages: [String: MessageSchema] = [:]
        var enums: [String: EnumSchema] = [:]

        mutating func add(_ message: Google_Protobuf_DescriptorProto, prefix: String, source: String, depth: Int) throws(DescriptorSetError) {
            let fullName = prefix + message.name
            guard depth < 64 else {
                throw DescriptorSetError(source: source, problem: "\(fileName): messages nest deeper than 64 levels at \(fullName)")
            }
            // A proto3 `optional` field sits alone in a synthetic oneof, which is no real oneof.
            var syntheticOneofs = Set<Int32>()
            for field in message.field where field.proto3Optional && field.hasOneofIndex { syntheticOneofs.insert(field.oneofIndex) }
            var realOneofIndex: [Int32: Int] = [:]
            var oneofNames: [String] = []
            for (index, oneof) in message.oneofDecl.enumerated() where !syntheticOneofs.contains(Int32(index)) {
                realOneofIndex[Int32(index)] = oneofNames.count
                oneofNames.append(oneof.name)
            }
            var fields: [FieldSchema] = []
            for field in message.field {
                guard field.number > 0 else {
                    throw DescriptorSetError(source: source, problem: "\(fileName): field \(fullName).\(field.name) has number \(field.number)")
                }
                let kind = Self.kind(of: field)
                let isRepeated = field.label == .repeated
                let isScalar: Bool
                switch kind {
                case .string, .bytes, .message, .group: isScalar = false
                default: isScalar = true
                }
                let packed = isRepeated && isScalar && (field.options.hasPacked ? field.options.packed : isProto3)
                let oneof = field.hasOneofIndex ? realOneofIndex[field.oneofIndex] : nil
                let isMessage: Bool
                if case .message = kind { isMessage = true } else if case .group = kind { isMessage = true } else { isMessage = false }
                let presence = !isRepeated && (isMessage || oneof != nil || field.proto3Optional || !isProto3)
                fields.append(
                    FieldSchema(
                        name: field.name,
                        jsonName: field.hasJsonName ? field.jsonName : Self.lowerCamel(field.name),
                        number: field.number,
                        kind: kind,
                        isRepeated: isRepeated,
                        isRequired: field.label == .required,
                        isPacked: packed,
                        hasPresence: presence,
                        oneofIndex: oneof,
                        validatesUTF8: isProto3,
                        mapEntry: nil
                    )
                )
            }
            messages[fullName] = MessageSchema(
                fullName: fullName, fileName: fileName, isMapEntry: message.options.mapEntry, fields: fields, oneofNames: oneofNames
            )
            for nested in message.nestedType {
                try add(nested, prefix: fullName + ".", source: source, depth: depth + 1)
            }
            for item in message.enumType { add(item, prefix: fullName + ".") }
        }

        mutating func add(_ item: Google_Protobuf_EnumDescriptorProto, prefix: String) {
            let fullName = prefix + item.name
            var nameByNumber: [Int32: String] = [:]
            var numberByName: [String: Int32] = [:]
            for value in item.value {
                if nameByNumber[value.number] == nil { nameByNumber[value.number] = value.name }
                numberByName[value.name] = value.number
            }
            enums[fullName] = EnumSchema(fullName: fullName, fileName: fileName, nameByNumber: nameByNumber, numberByName: numberByName, isOpen: isProto3)
        }

        static func kind(of field: Google_Protobuf_FieldDescriptorProto) -> FieldSchema.Kind {
            let type = DescriptorSet.stripDot(field.typeName)
            switch field.type {
            case .double: return .double
            case .float: return .float
            case .int64: return .int64
            case .uint64: return .uint64
            case .int32: return .int32
            case .fixed64: return .fixed64
            case .fixed32: return .fixed32
            case .bool: return .bool
            case .string: return .string
            case .group: return .group(type)
            case .message: return .message(type)
            case .bytes: return .bytes
            case .uint32: return .uint32
            case .enum: return .enumeration(type)
            case .sfixed32: return .sfixed32
            case .sfixed64: return .sfixed64
            case .sint32: return .sint32
            case .sint64: return .sint64
            }
        }

        /// protoc's JSON name: underscores dropped, the letter after each one upper-cased.
        static func lowerCamel(_ name: String) -> String {
            var result = ""
            var upper = false
            for character in name {
                if character == "_" {
                    upper = true
                } else if upper {
                    result += character.uppercased()
                    upper = false
                } else {
                    result.append(character)
                }
            }
            return result
        }
    }
}
