import AirlockBase
import Foundation

/// Protobuf messages as JSON, by a descriptor set: binary ⇄ JSON following proto3's JSON mapping
/// (<https://protobuf.dev/programming-guides/json/>), with no generated code.
///
/// - Output: fields by their JSON name (lowerCamelCase), in field-number order; fields at their
///   default value left out unless they have explicit presence (proto3 `optional`, oneof members,
///   proto2's optional fields, messages); 64-bit integers as strings; `NaN` and `±Infinity` as
///   strings; bytes as base64; enums by name (by number when the number has no name); the
///   well-known types in their own JSON forms (`Timestamp`, `Duration`, `Struct`, `Value`,
///   `ListValue`, the wrappers, `FieldMask`, `Any` with its type in the set).
/// - Input: JSON names and `.proto` names; 64-bit integers as numbers or strings (integers beyond
///   2⁵³ are read from their digits, not through a `Double`); floats as numbers or strings,
///   `"NaN"`, `"Infinity"`; enums by name or number; `null` as "not set"; base64 standard or
///   URL-safe, padded or not. A field the type does not have, a value of the wrong type, two
///   members of one oneof: errors naming the field path.
/// - Unknown fields (numbers the descriptor does not declare) are skipped on decoding: JSON cannot
///   show them (protobuf's JSON printers drop them too). ``decode(_:as:)`` counts them in
///   ``Decoded/unknownFieldCount``; a caller that must pass them on keeps the binary message.
/// - Hostile input gives a ``CodecError`` naming the field path, never a crash or a hang: lengths
///   are checked against the end of their message, varints stop at 10 bytes, and messages (and
///   groups) nest at most ``maximumDepth`` deep.
/// - Proto2 groups are skipped when unknown; a group field the descriptor declares is refused.
///
/// ```swift
/// let codec = MessageCodec(try DescriptorSet(contentsOf: url))
/// let bytes = try codec.encode(json: Data(#"{"id": "42"}"#.utf8), as: "airlock.test.orders.GetOrderRequest")
/// let json = try codec.decode(bytes, as: "airlock.test.orders.GetOrderRequest").json
/// ```
package struct MessageCodec: Sendable {
    /// How deep messages may nest, as protobuf's own parsers' default recursion limit.
    package static let maximumDepth = 100

    /// The descriptor set the codec reads types from.
    package let descriptors: DescriptorSet

    /// A codec over a descriptor set.
    package init(_ descriptors: DescriptorSet) {
        self.descriptors = descriptors
    }

    /// A decoded message: its JSON, and how many fields the descriptor does not declare were
    /// skipped (at every depth).
    package struct Decoded: Sendable, Equatable {
        /// The message in proto3's JSON mapping.
        package var json: JSONValue
        /// Fields skipped because the descriptor does not declare their number.
        package var unknownFieldCount: Int
    }

    /// Decodes a binary message of the given type to JSON.
    /// - Parameters:
    ///   - bytes: The serialized message.
    ///   - typeName: The message type's full name (`package.Message`).
    /// - Throws: ``DescriptorSetError`` for a type not in the set; ``CodecError`` naming the field
    ///   path for malformed input.
    package func decode(_ bytes: [UInt8], as typeName: String) throws -> Decoded {
        let schema = try descriptors.message(named: typeName)
        var decoder = BinaryToJSON(descriptors: descriptors)
        let json = try decoder.message(schema, bytes, 0..<bytes.count, path: FieldPath(root: Self.rootName(schema)), depth: 0)
        return Decoded(json: json, unknownFieldCount: decoder.unknownFieldCount)
    }

    /// Decodes a binary message to compact JSON text (UTF-8).
    /// - Throws: as ``decode(_:as:)``.
    package func decodeToJSONData(_ bytes: [UInt8], as typeName: String) throws -> Data {
        try decode(bytes, as: typeName).json.compactData()
    }

    /// Encodes a JSON document (UTF-8 text) as a binary message of the given type.
    /// - Throws: ``DescriptorSetError`` for a type not in the set; `JSONParseError` for text that
    ///   is not JSON; ``CodecError`` naming the field path for JSON that does not fit the type.
    package func encode(json data: Data, as typeName: String) throws -> [UInt8] {
        let (value, longIntegers) = try JSONValue.parseKeepingLongIntegers(data)
        return try encode(value, as: typeName, longIntegers: longIntegers)
    }

    /// Encodes a JSON value as a binary message of the given type.
    /// - Parameters:
    ///   - value: The message in proto3's JSON mapping.
    ///   - typeName: The message type's full name.
    ///   - longIntegers: The digits of integers longer than a `Double` keeps, by JSON path, as
    ///     `JSONValue.parseKeepingLongIntegers(_:)` returns them.
    /// - Throws: ``DescriptorSetError`` for a type not in the set; ``CodecError`` naming the field
    ///   path for JSON that does not fit the type.
    package func encode(_ value: JSONValue, as typeName: String, longIntegers: [[String]: String] = [:]) throws -> [UInt8] {
        let schema = try descriptors.message(named: typeName)
        let encoder = JSONToBinary(descriptors: descriptors, longIntegers: longIntegers)
        return try encoder.message(schema, value, path: FieldPath(root: Self.rootName(schema)), jsonPath: [], depth: 0)
    }

    /// `Order` → `order`: the first step of every error path.
    static func rootName(_ schema: MessageSchema) -> String {
        let short = schema.shortName
        return short.prefix(1).lowercased() + short.dropFirst()
    }
}
