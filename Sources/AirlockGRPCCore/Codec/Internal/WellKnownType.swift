import AirlockBase
import Foundation

/// The well-known types whose JSON form is not their fields' (proto3's JSON mapping): each
/// converts between its fields (as the generic codec reads and writes them) and its own JSON.
enum WellKnownType: String {
    case timestamp = "google.protobuf.Timestamp"
    case duration = "google.protobuf.Duration"
    case structure = "google.protobuf.Struct"
    case value = "google.protobuf.Value"
    case listValue = "google.protobuf.ListValue"
    case fieldMask = "google.protobuf.FieldMask"
    case any = "google.protobuf.Any"
    case doubleValue = "google.protobuf.DoubleValue"
    case floatValue = "google.protobuf.FloatValue"
    case int64Value = "google.protobuf.Int64Value"
    case uint64Value = "google.protobuf.UInt64Value"
    case int32Value = "google.protobuf.Int32Value"
    case uint32Value = "google.protobuf.UInt32Value"
    case boolValue = "google.protobuf.BoolValue"
    case stringValue = "google.protobuf.StringValue"
    case bytesValue = "google.protobuf.BytesValue"

    /// Timestamps from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
    static let timestampSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799
    /// Durations of at most 10,000 years either way.
    static let durationSeconds: ClosedRange<Int64> = -315_576_000_000...315_576_000_000

    private var wrappedDefault: JSONValue {
        switch self {
        case .int64Value, .uint64Value: .string("0")
        case .boolValue: .bool(false)
        case .stringValue, .bytesValue: .string("")
        default: .number(0)
        }
    }

    /// The type's JSON from its fields' JSON (`members`, defaults left out).
    func json(from members: JSONMembers, codec: inout BinaryToJSON, path: FieldPath, depth: Int) throws -> JSONValue {
        switch self {
        case .timestamp:
            let (seconds, nanos) = try Self.secondsAndNanos(members, path: path)
            guard Self.timestampSeconds.contains(seconds), (0..<1_000_000_000).contains(nanos) else {
                throw path.error("Timestamp \(seconds) s \(nanos) ns is outside 0001-01-01 to 9999-12-31")
            }
            return .string(TimestampText.format(seconds: seconds, nanos: nanos))
        case .duration:
            let (seconds, nanos) = try Self.secondsAndNanos(members, path: path)
            guard Self.durationSeconds.contains(seconds), abs(nanos) < 1_000_000_000, seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0) else {
                throw path.error("the duration \(seconds) s \(nanos) ns is out of range or has seconds and nanos of different signs")
            }
            let negative = seconds < 0 || nanos < 0
            return .string((negative ? "-" : "") + String(seconds.magnitude) + TimestampText.fraction(Int32(abs(nanos))) + "s")
        case .structure:
            return members["fields"] ?? .object(JSONMembers())
        case .listValue:
            return members["values"] ?? .array([])
        case .value:
            guard let (key, content) = members.first(where: { _ in true }) else { return .null }
            switch key {
            case "nullValue": return .null
            case "numberValue":
                if case .string(let special) = content { throw path.error("Value holds \(special), which JSON cannot show as a number") }
                return content
            default: return content
            }
        case .fieldMask:
            guard case .array(let paths)? = members["paths"] else { return .string("") }
            return .string(paths.compactMap { path -> String? in
                guard case .string(let text) = path else { return nil }
                return text.split(separator: ".", omittingEmptySubsequences: false).map { FieldMaskText.camel(String($0)) }.joined(separator: ".")
            }.joined(separator: ","))
        case .any:
            guard case .string(let url)? = members["typeUrl"], !url.isEmpty else { return .object(JSONMembers()) }
            let typeName = String(url.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
            guard let schema = codec.descriptors.messages[typeName] else {
                throw path.error("Any holds \(url), a type not in the descriptor set (add its .proto to the set)")
            }
            var bytes: [UInt8] = []
            if case .string(let base64)? = members["value"] { bytes = Array(Data(base64Encoded: base64) ?? Data()) }
            let inner = try codec.message(schema, bytes, 0..<bytes.count, path: path.appending(.field("value")), depth: depth + 1)
            var result = JSONMembers()
            result["@type"] = .string(url)
            if WellKnownType(rawValue: typeName) != nil {
                result["value"] = inner
            } else if case .object(let fields) = inner {
                for (key, item) in fields { result[key] = item }
            }
            return .object(result)
        default:
            return members["value"] ?? wrappedDefault
        }
    }

    /// The fields' JSON (for the generic codec) from the type's JSON.
    func generic(from json: JSONValue, encoder: JSONToBinary, path: FieldPath, jsonPath: [String], depth: Int) throws -> JSONValue {
        switch self {
        case .timestamp:
            guard case .string(let text) = json, let (seconds, nanos) = TimestampText.parse(text), Self.timestampSeconds.contains(seconds) else {
                throw path.error("expected an RFC 3339 timestamp such as \"1972-01-01T10:00:20.021Z\" for google.protobuf.Timestamp, got \(JSONToBinary.describe(json))")
            }
            return Self.secondsAndNanosJSON(seconds, nanos)
        case .duration:
            guard case .string(let text) = json, let (seconds, nanos) = TimestampText.parseDuration(text), Self.durationSeconds.contains(seconds) else {
                throw path.error("expected a duration such as \"1.5s\" for google.protobuf.Duration, got \(JSONToBinary.describe(json))")
            }
            return Self.secondsAndNanosJSON(seconds, nanos)
        case .structure:
            guard case .object = json else { throw path.error("expected a JSON object for google.protobuf.Struct, got \(JSONToBinary.describe(json))") }
            return .object(["fields": json])
        case .listValue:
            guard case .array = json else { throw path.error("expected a JSON array for google.protobuf.ListValue, got \(JSONToBinary.describe(json))") }
            return .object(["values": json])
        case .value:
            switch json {
            case .null: return .object(["nullValue": .null])
            case .number: return .object(["numberValue": json])
            case .string: return .object(["stringValue": json])
            case .bool: return .object(["boolValue": json])
            case .object: return .object(["structValue": json])
            case .array: return .object(["listValue": json])
            }
        case .fieldMask:
            guard case .string(let text) = json else { throw path.error("expected a string of comma-separated paths for google.protobuf.FieldMask, got \(JSONToBinary.describe(json))") }
            let paths = text.isEmpty ? [] : text.split(separator: ",", omittingEmptySubsequences: false).map { path in
                JSONValue.string(path.split(separator: ".", omittingEmptySubsequences: false).map { FieldMaskText.snake(String($0)) }.joined(separator: "."))
            }
            return .object(["paths": .array(paths)])
        case .any:
            guard case .object(let members) = json else { throw path.error("expected a JSON object with \"@type\" for google.protobuf.Any, got \(JSONToBinary.describe(json))") }
            if members.isEmpty { return json }
            guard case .string(let url)? = members["@type"] else { throw path.error("an Any needs \"@type\" (a type URL such as \"type.googleapis.com/package.Message\")") }
            let typeName = String(url.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
            guard let schema = encoder.descriptors.messages[typeName] else {
                throw path.error("Any holds \(url), a type not in the descriptor set (add its .proto to the set)")
            }
            let inner: JSONValue
            if WellKnownType(rawValue: typeName) != nil {
                inner = members["value"] ?? .object(JSONMembers())
            } else {
                inner = .object(members.filter { $0.key != "@type" })
            }
            let bytes = try encoder.message(schema, inner, path: path.appending(.field("value")), jsonPath: jsonPath + ["value"], depth: depth + 1)
            return .object(["typeUrl": .string(url), "value": .string(Data(bytes).base64EncodedString())])
        case .int64Value, .uint64Value:
            if case .number = json, let text = encoder.longIntegers[jsonPath] { return .object(["value": .string(text)]) }
            return .object(["value": json])
        default:
            return .object(["value": json])
        }
    }

    private static func secondsAndNanos(_ members: JSONMembers, path: FieldPath) throws -> (Int64, Int32) {
        var seconds: Int64 = 0
        var nanos: Int32 = 0
        if case .string(let text)? = members["seconds"] { seconds = Int64(text) ?? 0 }
        if case .number(let number)? = members["nanos"] { nanos = Int32(number) }
        return (seconds, nanos)
    }

    private static func secondsAndNanosJSON(_ seconds: Int64, _ nanos: Int32) -> JSONValue {
        .object(["seconds": .string(String(seconds)), "nanos": .number(Double(nanos))])
    }
}

/// FieldMask paths: `snake_case` in the message, lowerCamelCase in JSON.
enum FieldMaskText {
    static func camel(_ name: String) -> String {
        var result = ""
        var upper = false
        for character in name {
            if character == "_" {
                upper = true
            } else {
                result += upper ? character.uppercased() : String(character)
                upper = false
            }
        }
        return result
    }

    static func snake(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
