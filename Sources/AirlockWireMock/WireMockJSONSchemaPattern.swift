import AirlockBase
import AirlockJSONSchema
import AirlockStubFiles
import Foundation

/// WireMock 3's `{"matchesJsonSchema": {...}, "schemaVersion": "V202012"}`: the value, read as
/// JSON (or, when it is not JSON, as a JSON string, as WireMock reads it), is valid against the
/// schema — checked by the JSON Schema validator the OpenAPI contracts use (AirlockJSONSchema).
///
/// WireMock 2.35 does not have it; this follows WireMock 3's documentation and source. Versions:
/// `V4` (draft 4) and `V202012` (draft 2020-12, the default) are served; `V6`, `V7` and
/// `V201909` are refused by name (the validator implements drafts 4 and 2020-12 only).
struct WireMockJSONSchemaPattern: Sendable {
    /// WireMock's `schemaVersion` values.
    enum Version: String, CaseIterable, Sendable {
        case v4 = "V4", v6 = "V6", v7 = "V7", v201909 = "V201909", v202012 = "V202012"

        /// The validator's dialect for the version, if it has one.
        var dialect: SchemaDialect? {
            switch self {
            case .v4: .draft4
            case .v202012: .draft2020_12
            case .v6, .v7, .v201909: nil
            }
        }
    }

    /// The schema, as compact JSON (for the pattern's description).
    let schemaText: String
    let version: Version
    let validator: SchemaValidator
    /// How many members the schema's objects hold, WireMock's denominator for the distance.
    let propertyCount: Int

    /// The fields that may stand beside `matchesJsonSchema`.
    static let options: Set<String> = ["schemaVersion"]

    static func decode(_ operand: JSONNode, fields: JSONObject) throws(StubFileError) -> WireMockJSONSchemaPattern {
        var version = Version.v202012
        if let node = fields["schemaVersion"] {
            let name = try node.string()
            guard let read = Version(rawValue: name.uppercased()) else {
                throw node.error(.invalidValue, "is \"\(name)\", which is not one of WireMock's schema versions", expected: "\"V4\" or \"V202012\" (the default)")
            }
            guard read.dialect != nil else {
                throw node.error(
                    .unsupported,
                    "is \"\(read.rawValue)\", a JSON Schema draft Airlock's validator does not implement",
                    expected: "\"V4\" (draft 4) or \"V202012\" (draft 2020-12, the default): Airlock's validator implements those two"
                )
            }
            version = read
        }
        var schema = operand.value
        if case .string(let text) = schema {
            do {
                schema = try JSONValue.parse(Data(text.utf8))
            } catch {
                throw operand.error(.invalidValue, "is a string that is not JSON: \(error)", expected: "a JSON Schema, as an object or as JSON text")
            }
        }
        switch schema {
        case .object, .bool: break
        default: throw operand.mismatch(expected: "a JSON Schema: an object (or true or false), or the same as JSON text")
        }
        let validator = SchemaValidator(document: schema, dialect: version.dialect!)
        // A schema that cannot be applied (a `$ref` to nothing, `"type": 5`) says so for any value.
        for probe: JSONValue in [.null, .object([:]), .array([]), .string(""), .number(0), .bool(true)] {
            if let broken = validator.validate(probe, against: JSONPointer()).first(where: { $0.keyword == "schema" || $0.keyword == "$ref" || $0.keyword == "$dynamicRef" }) {
                throw operand.error(.invalidValue, "is a JSON Schema that cannot be applied: \(broken.description)", expected: "a valid JSON Schema (draft \(version == .v4 ? "4" : "2020-12"))")
            }
        }
        let text = (try? schema.compactData()).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return WireMockJSONSchemaPattern(schemaText: text, version: version, validator: validator, propertyCount: Self.propertyCount(schema))
    }

    /// WireMock's `schemaPropertyCount`: the members of every object in the schema.
    private static func propertyCount(_ value: JSONValue) -> Int {
        switch value {
        case .object(let members): members.count + members.values.reduce(0) { $0 + propertyCount($1) }
        case .array(let items): items.reduce(0) { $0 + propertyCount($1) }
        default: 0
        }
    }

    /// A missing value never matches; a value that is not JSON is checked as a JSON string.
    /// The distance is the violations over the schema's members, as WireMock 3 measures it.
    func verdict(for value: String?, json: (String) -> JSONValue?) -> WireMockVerdict {
        guard let value else { return .miss }
        let instance = json(value) ?? .string(value)
        let violations = validator.validate(instance, against: JSONPointer())
        guard !violations.isEmpty else { return .match }
        return WireMockVerdict(matched: false, distance: propertyCount == 0 ? 1 : Double(violations.count) / Double(propertyCount))
    }

    var template: String {
        "matchesJsonSchema \(schemaText)" + (version == .v202012 ? "" : " (schemaVersion \(version.rawValue))")
    }
}
