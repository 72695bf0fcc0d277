import AirlockBase
import Foundation

/// The rules a schema is read by: which keywords exist and what they mean.
package enum SchemaDialect: Sendable {
    /// JSON Schema draft 4: `id`, `definitions`, `dependencies`, `items` as a list with
    /// `additionalItems`, boolean `exclusiveMinimum`/`exclusiveMaximum`; a `$ref` hides its siblings.
    case draft4
    /// JSON Schema draft 2020-12: `$id`, `$anchor`, `$dynamicRef`, `prefixItems`,
    /// `unevaluatedProperties`/`unevaluatedItems`, `const`, `if`/`then`/`else`, …
    case draft2020_12
    /// OpenAPI 3.0's Schema Object: draft 4 (without `id`) plus `nullable`, `discriminator` and
    /// `readOnly`/`writeOnly`; `example` and `x-` extensions are ignored.
    case openAPI30
    /// OpenAPI 3.1's Schema Object: draft 2020-12 plus `discriminator` and `readOnly`/`writeOnly`.
    case openAPI31

    /// Whether the dialect is draft 4 at heart (OpenAPI 3.0 is).
    var isDraft4: Bool { self == .draft4 || self == .openAPI30 }

    /// Whether OpenAPI's additions (`discriminator`, …) apply.
    var isOpenAPI: Bool { self == .openAPI30 || self == .openAPI31 }
}

/// Which way a value travels, for `readOnly` and `writeOnly`.
package enum SchemaDirection: Sendable {
    /// A request body: a `readOnly` property must not appear, and is not required.
    case request
    /// A response body: a `writeOnly` property must not appear, and is not required.
    case response
    /// Neither: `readOnly` and `writeOnly` are plain annotations.
    case neither
}

/// One rule of a schema that an instance breaks.
package struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// Where the offending value sits in the instance: `/pets/0/name`.
    package var instancePath: JSONPointer
    /// The failing keyword in the document it was read from, after following `$ref`s:
    /// `/components/schemas/Pet/properties/name/type`.
    package var schemaPath: JSONPointer
    /// The keyword: `type`, `required`, `oneOf`, `format`, … `$ref` or `schema` when the
    /// schema itself is broken (a `$ref` to nothing, `"type": 5`) and the value cannot be checked.
    package var keyword: String
    /// The offending value (for `required` and `additionalProperties`, the object).
    package var value: JSONValue
    /// What is wrong, in English, naming the rule and the value:
    /// `is 3, which is not of type "string"`.
    package var message: String

    /// Makes a violation.
    package init(instancePath: JSONPointer, schemaPath: JSONPointer, keyword: String, value: JSONValue, message: String) {
        self.instancePath = instancePath
        self.schemaPath = schemaPath
        self.keyword = keyword
        self.value = value
        self.message = message
    }

    /// `/pets/0/name is 3, which is not of type "string" (#/components/schemas/Pet/properties/name/type)`.
    package var description: String {
        let place = instancePath.tokens.isEmpty ? "the value" : instancePath.description
        return "\(place) \(message) (\(schemaPath.fragment))"
    }
}

/// Checks JSON values against the JSON Schemas of one document: a bare schema, or an OpenAPI
/// document whose schemas refer to each other.
///
/// ```swift
/// let validator = SchemaValidator(document: openAPIDocument, dialect: .openAPI30)
/// let violations = validator.validate(body, against: JSONPointer(["components", "schemas", "Pet"]), direction: .request)
/// ```
///
/// A broken schema (a `$ref` to nothing, `"type": 5`, a pattern that does not compile) never
/// crashes: the value gets a violation with the keyword `$ref`, `schema` or `pattern` that says
/// the contract is broken. Evaluation stops with a violation where the instance nests deeper
/// than ``maximumDepth`` or where schemas apply one inside another more than four times that
/// deep; a `$ref` back to a schema already being applied to the same value is not followed
/// again (that application reports what it would), so `$ref` loops end too; deep
/// evaluations continue on threads with stacks of their own, so neither a hostile instance nor a
/// hostile schema can exhaust the caller's stack.
///
/// Limits: `pattern` is an ECMA-262 regular expression run by `NSRegularExpression` (ICU) after
/// a translation of what differs (`\d`, `\w`, `$`, `\u{…}`; see ``ECMARegex``); `$vocabulary` is
/// not read (every keyword applies); `uniqueItems` compares pairs, quadratic in the array's length.
package final class SchemaValidator: Sendable {
    /// How deep an instance may nest, and how many schemas may apply one inside another: 512, as
    /// for ``JSONValue/maximumDepth``.
    package static let maximumDepth = JSONValue.maximumDepth

    /// Keywords this validator does not implement.
    ///
    /// `$vocabulary`: a metaschema's choice of vocabularies is not read; every keyword of the
    /// dialect applies.
    package static let unsupportedKeywords: Set<String> = ["$vocabulary"]

    let index: SchemaIndex
    let rootDocument: String
    let dialect: SchemaDialect
    let assertFormats: Bool

    /// Reads `document` and the `resources`, indexing their `$id`s and anchors.
    /// - Parameters:
    ///   - document: The whole root document: an OpenAPI document, or a bare schema.
    ///   - dialect: How schemas are read; a schema resource's `$schema` naming draft 4 or
    ///     draft 2020-12 switches between those two.
    ///   - baseURI: The document's retrieval URI, against which relative `$id`s and `$ref`s resolve.
    ///   - resources: Other documents by absolute URI, for `$ref`s that leave the document.
    ///   - assertFormats: Whether `format` is checked; formats this validator does not know pass.
    package init(document: JSONValue, dialect: SchemaDialect, baseURI: String = "", resources: [String: JSONValue] = [:], assertFormats: Bool = true) {
        let root = URIReference.withoutFragment(baseURI)
        var index = SchemaIndex()
        index.add(document, retrievedFrom: root, dialect: dialect)
        for (uri, resource) in resources.sorted(by: { $0.key < $1.key }) {
            index.add(resource, retrievedFrom: URIReference.withoutFragment(uri), dialect: dialect)
        }
        self.index = index
        self.rootDocument = root
        self.dialect = dialect
        self.assertFormats = assertFormats
    }

    /// Validates `instance` against the schema at `schema`, a pointer into the document.
    ///
    /// Violations are the most useful ones: where `oneOf`/`anyOf` has no passing branch, one
    /// violation of that keyword, unless a `discriminator` picks the branch, whose violations are
    /// reported instead; `allOf`, `$ref` and `then`/`else` report their subschemas' violations.
    /// - Parameters:
    ///   - instance: The value to check.
    ///   - schema: Where the schema is in the document: `/components/schemas/Pet`.
    ///   - direction: Whether `readOnly` (request) or `writeOnly` (response) properties are refused.
    ///   - integerLiterals: The text of integers a `Double` may not keep exactly, by their place
    ///     in the instance (``JSONValue/parseKeepingLongIntegers(_:)``): `int32` and `int64` check
    ///     the text, so that 9223372036854775807 is an `int64` and 9223372036854775808 is not.
    /// - Returns: The violations; empty when the instance is valid.
    package func validate(_ instance: JSONValue, against schema: JSONPointer, direction: SchemaDirection = .neither, integerLiterals: [JSONPointer: String] = [:]) -> [SchemaViolation] {
        let location = SchemaLocation(document: rootDocument, pointer: schema)
        guard let value = index.value(at: location) else {
            return [SchemaViolation(instancePath: JSONPointer(), schemaPath: schema, keyword: "$ref", value: instance,
                                    message: "cannot be checked: the contract has no schema at \(schema.fragment)")]
        }
        let scope = index.scope(at: location) ?? SchemaScope(base: rootDocument, dialect: dialect)
        let evaluation = SchemaEvaluation(validator: self, direction: direction, integerLiterals: integerLiterals)
        let start = SchemaEvaluation.Frame(location: location, scope: scope, dynamicScope: [scope.base], refChain: [location], depth: 0)
        return evaluation.evaluate(value, instance, at: JSONPointer(), frame: start).violations
    }
}
