import Foundation

/// JSON as a value: objects keep their members in document order, and `==` compares documents
/// regardless of key order and white space.
///
/// Read with ``parse(_:)`` (RFC 8259, errors with their line and column); write with
/// ``compactData()`` (compact, in document order, as Jackson writes it).
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONMembers)

    /// Parses a JSON document (RFC 8259; a scalar at the top level is a document too).
    ///
    /// - The text is UTF-8; a byte-order mark before it is skipped, as Foundation's parsers do
    ///   (RFC 8259 §8.1 allows it). Invalid UTF-8 in a string is an error.
    /// - Escapes are decoded, surrogate pairs included; a lone surrogate (`"\uD800"`) is an
    ///   error, as in `JSONSerialization` on Linux.
    /// - Numbers follow the grammar (no leading zeros, `+`, `.5`, `NaN`…) and are read into the
    ///   nearest `Double`; one beyond its range (`1e400`) is an error, one below it reads as 0.
    /// - A key given twice keeps its first position and its last value (see ``JSONMembers``).
    /// - Arrays and objects nest at most ``maximumDepth`` deep, as in `JSONSerialization`: hostile
    ///   input cannot exhaust the stack of the recursive code that walks values.
    /// - Throws: ``JSONParseError`` with the byte offset, line and column of the problem.
    package static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw throws(JSONParseError) in
            var parser = JSONParser(bytes: raw.assumingMemoryBound(to: UInt8.self))
            return try parser.document()
        }
    }

    /// Parses as ``parse(_:)`` does, and also returns the text of each integer literal of more
    /// than 15 characters by the path of its value (member names and array indices from the top):
    /// the digits a `Double` may not keep (`9223372036854775807` reads as 2⁶³), for checks that
    /// need them exactly, such as OpenAPI's `int64` format.
    package static func parseKeepingLongIntegers(_ data: Data) throws -> (value: JSONValue, longIntegers: [[String]: String]) {
        var longIntegers: [[String]: String] = [:]
        let value = try data.withUnsafeBytes { raw throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(bytes: raw.assumingMemoryBound(to: UInt8.self))
            parser.longIntegers = [:]
            let value = try parser.document()
            longIntegers = parser.longIntegers ?? [:]
            return value
        }
        return (value, longIntegers)
    }

    /// Parses as ``parse(_:)`` does, and also returns the text of each number literal that
    /// ``compactData()`` would spell otherwise — `1.50`, `1e3`, `-0`, and integers a `Double` may
    /// not keep (`12345678901234567890`) — by the path of its value (member names and array
    /// indices from the top), for output that repeats numbers as they were sent
    /// (``compactData(numberTexts:at:)``).
    package static func parseKeepingNumberText(_ data: Data) throws -> (value: JSONValue, numberTexts: [[String]: String]) {
        var numberTexts: [[String]: String] = [:]
        let value = try data.withUnsafeBytes { raw throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(bytes: raw.assumingMemoryBound(to: UInt8.self))
            parser.numberTexts = [:]
            let value = try parser.document()
            numberTexts = parser.numberTexts ?? [:]
            return value
        }
        return (value, numberTexts)
    }

    /// How deep arrays and objects may nest: 512, as in Foundation's `JSONSerialization`.
    package static let maximumDepth = 512
}

/// Decoding cannot see the order of an object's members (a keyed container's keys have none):
/// objects decoded this way are sorted by key. ``JSONValue/parse(_:)`` keeps the order.
/// Encoding writes members in order; an encoder may sort them (`.sortedKeys`).
extension JSONValue: Codable {
    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(JSONMembers(try container.decode([String: JSONValue].self)))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for (key, value) in members {
                try container.encode(value, forKey: MemberKey(stringValue: key))
            }
            return
        default:
            break
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object: break
        }
    }
}

/// Literals, for values written in code: `["id": 1, "tags": ["a"], "ok": true]`.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package typealias ArrayLiteralElement = JSONValue
    package typealias Key = String
    package typealias Value = JSONValue

    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .number(Double(value)) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Members in the literal's order.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONMembers(elements.lazy.map { (key: $0.0, value: $0.1) }))
    }
}
