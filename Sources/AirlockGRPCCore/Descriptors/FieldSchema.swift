/// One field of a message, as a descriptor set declares it, with what the codec needs resolved.
package struct FieldSchema: Sendable, Equatable {
    /// The field's type: a scalar, or an enum or message by its full name (no leading dot).
    package enum Kind: Sendable, Equatable {
        /// A scalar of protobuf's type of that name (`int32`, `sfixed64`…).
        case double, float, int64, uint64, int32, fixed64, fixed32, bool, string, bytes
        /// A scalar of protobuf's type of that name.
        case uint32, sfixed32, sfixed64, sint32, sint64
        /// An enum, by its full name.
        case enumeration(String)
        /// A message, by its full name (a map field's entry message too).
        case message(String)
        /// A proto2 group: read and skipped as unknown data is, never written (see the codec).
        case group(String)
    }

    /// The name in the `.proto` file (`unit_price`).
    package let name: String
    /// The JSON name: protoc's lowerCamelCase (`unitPrice`), or the `json_name` option.
    package let jsonName: String
    /// The field number.
    package let number: Int32
    /// The field's type.
    package let kind: Kind
    /// `repeated` (maps included: a map is a repeated entry message).
    package let isRepeated: Bool
    /// A proto2 `required` field.
    package let isRequired: Bool
    /// Whether a repeated scalar is written packed: proto3's default, proto2's `[packed = true]`.
    package let isPacked: Bool
    /// Explicit presence: a set field is written (and shown in JSON) even at its default value —
    /// proto2's optional fields, proto3's `optional`, oneof members and message fields.
    package let hasPresence: Bool
    /// The index of the (real, not synthetic) oneof this field belongs to in its message.
    package let oneofIndex: Int?
    /// Whether a proto3 `string` must hold valid UTF-8 (proto3's rule; proto2 does not check).
    package let validatesUTF8: Bool
    /// For a map field: its entry message's full name (set once the whole set is indexed).
    package internal(set) var mapEntry: String?

    /// Whether the field is a `map<…>`.
    package var isMap: Bool { mapEntry != nil }
}
