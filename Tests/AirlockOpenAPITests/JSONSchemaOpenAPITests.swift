import AirlockBase
@testable import AirlockJSONSchema
@testable import AirlockOpenAPICore
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// ``SchemaValidator`` on what OpenAPI adds to JSON Schema, on its messages and paths, and on
/// broken schemas and hostile values.
@Suite struct JSONSchemaOpenAPITests {
    /// An OpenAPI 3.0 document: a path whose request body refers to `Pet`, pets chosen by a
    /// discriminator with and without a mapping, and read-only and write-only properties.
    static let document: JSONValue = [
        "openapi": "3.0.3",
        "paths": ["/pets": ["post": ["requestBody": ["content": ["application/json": ["schema": ["$ref": "#/components/schemas/Pet"]]]]]]],
        "components": ["schemas": [
            "Pet": [
                "type": "object", "required": ["id", "name"], "additionalProperties": false,
                "properties": [
                    "id": ["$ref": "#/components/schemas/Id"],
                    "name": ["type": "string", "minLength": 1],
                    "password": ["type": "string", "writeOnly": true],
                    "tag": ["type": "string", "nullable": true],
                ],
            ],
            "Id": ["type": "integer", "format": "int64", "readOnly": true],
            "Animal": [
                "oneOf": [["$ref": "#/components/schemas/Cat"], ["$ref": "#/components/schemas/Dog"]],
                "discriminator": ["propertyName": "kind", "mapping": ["cat": "#/components/schemas/Cat", "dog": "Dog"]],
            ],
            "AnyAnimal": [
                "anyOf": [["$ref": "#/components/schemas/Cat"], ["$ref": "#/components/schemas/Dog"]],
                "discriminator": ["propertyName": "kind"],
            ],
            "Cat": ["type": "object", "required": ["kind"], "properties": ["kind": ["type": "string"], "meows": ["type": "boolean"]]],
            "Dog": ["type": "object", "required": ["kind", "barks"], "properties": ["kind": ["type": "string"], "barks": ["type": "boolean"]]],
            "Positive": ["type": "number", "minimum": 0, "exclusiveMinimum": true],
            "Colour": ["type": "string", "enum": ["red", "green"], "nullable": true],
            "Broken": ["properties": [
                "pattern": ["type": "string", "pattern": "(unclosed"],
                "dangling": ["$ref": "#/components/schemas/Nowhere"],
                "type": ["type": 5],
            ]],
            "Tree": ["type": "array", "items": ["$ref": "#/components/schemas/Tree"]],
            "Loop": ["allOf": [["$ref": "#/components/schemas/Loop"]], "type": "string"],
            "Shape": [
                "type": "object", "required": ["kind"], "properties": ["kind": ["type": "string"]],
                "oneOf": [["$ref": "#/components/schemas/Circle"]], "discriminator": ["propertyName": "kind"],
            ],
            "Circle": ["allOf": [["$ref": "#/components/schemas/Shape"], ["properties": ["radius": ["type": "number"]]]]],
        ]],
    ]

    static let validator = SchemaValidator(document: document, dialect: .openAPI30)

    static func schema(_ name: String) -> JSONPointer {
        JSONPointer(["components", "schemas", name])
    }

    /// A violation, written for comparison: `instancePath schemaPath keyword: message`.
    static func summary(_ violations: [SchemaViolation]) -> [String] {
        violations.map { "\($0.instancePath) \($0.schemaPath) \($0.keyword): \($0.message)" }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let schema: String
        let instance: JSONValue
        var direction = SchemaDirection.neither
        let expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a valid pet", schema: "Pet", instance: ["id": 1, "name": "Rex", "tag": .null], expected: []),
        Case(name: "the message names the rule and the value, the schema path is absolute through $ref",
             schema: "Pet", instance: ["id": 1.5, "name": 3],
             expected: ["/id /components/schemas/Id/type type: is 1.5, which is not of type \"integer\"",
                        "/id /components/schemas/Id/format format: is 1.5, which is not of format \"int64\"",
                        "/name /components/schemas/Pet/properties/name/type type: is 3, which is not of type \"string\""]),
        Case(name: "required and additionalProperties report the object", schema: "Pet", instance: ["id": 1, "colour": "red"],
             expected: [" /components/schemas/Pet/additionalProperties additionalProperties: has property \"colour\", which the schema does not allow",
                        " /components/schemas/Pet/required required: is missing required property \"name\""]),
        Case(name: "nullable allows null", schema: "Colour", instance: .null, expected: []),
        Case(name: "nullable with enum still checks other values", schema: "Colour", instance: "blue",
             expected: [" /components/schemas/Colour/enum enum: is \"blue\", which is not one of \"red\" or \"green\""]),
        Case(name: "without nullable, null is not a string", schema: "Cat", instance: ["kind": .null],
             expected: ["/kind /components/schemas/Cat/properties/kind/type type: is null, which is not of type \"string\""]),
        Case(name: "a boolean exclusiveMinimum excludes the bound", schema: "Positive", instance: 0,
             expected: [" /components/schemas/Positive/exclusiveMinimum exclusiveMinimum: is 0, which is not greater than the exclusive minimum 0"]),
        Case(name: "below the minimum", schema: "Positive", instance: -1,
             expected: [" /components/schemas/Positive/minimum minimum: is -1, which is less than the minimum 0"]),
        Case(name: "above an exclusive bound", schema: "Positive", instance: 0.5, expected: []),
        Case(name: "a discriminator mapping to a $ref reports the chosen branch", schema: "Animal", instance: ["kind": "cat", "meows": "yes"],
             expected: ["/meows /components/schemas/Cat/properties/meows/type type: is \"yes\", which is not of type \"boolean\""]),
        Case(name: "a discriminator mapping to a schema name", schema: "Animal", instance: ["kind": "dog"],
             expected: [" /components/schemas/Dog/required required: is missing required property \"barks\""]),
        Case(name: "a discriminator picks its branch though another one matches", schema: "Animal", instance: ["kind": "dog", "barks": true],
             expected: []),
        Case(name: "a discriminator value that names no schema", schema: "Animal", instance: ["kind": "cow"],
             expected: [" /components/schemas/Animal/discriminator discriminator: has \"kind\": \"cow\", which names none of the schemas the discriminator knows (\"cat\" or \"dog\")"]),
        Case(name: "without the discriminator property, oneOf decides", schema: "Animal", instance: ["barks": true],
             expected: [" /components/schemas/Animal/oneOf oneOf: matches none of the 2 schemas in oneOf"]),
        Case(name: "a discriminator without mapping names the schema", schema: "AnyAnimal", instance: ["kind": "Dog", "barks": 1],
             expected: ["/barks /components/schemas/Dog/properties/barks/type type: is 1, which is not of type \"boolean\""]),
        Case(name: "a discriminator without mapping lists the branches", schema: "AnyAnimal", instance: ["kind": "Cow"],
             expected: [" /components/schemas/AnyAnimal/discriminator discriminator: has \"kind\": \"Cow\", which names none of the schemas the discriminator knows (\"Cat\" or \"Dog\")"]),
        Case(name: "a request must not send a read-only property (through its $ref)", schema: "Pet", instance: ["id": 1, "name": "Rex"],
             direction: .request, expected: ["/id /components/schemas/Id/readOnly readOnly: is read-only, so a request must not send it"]),
        Case(name: "a read-only property is not required in a request", schema: "Pet", instance: ["name": "Rex", "password": "x"],
             direction: .request, expected: []),
        Case(name: "a response must not return a write-only property", schema: "Pet", instance: ["id": 1, "name": "Rex", "password": "x"],
             direction: .response, expected: ["/password /components/schemas/Pet/properties/password/writeOnly writeOnly: is write-only, so a response must not return it"]),
        Case(name: "a read-only property is required in a response", schema: "Pet", instance: ["name": "Rex"], direction: .response,
             expected: [" /components/schemas/Pet/required required: is missing required property \"id\""]),
        Case(name: "neither direction: both are annotations", schema: "Pet", instance: ["id": 1, "name": "Rex", "password": "x"], expected: []),
        Case(name: "int64 is a format OpenAPI checks", schema: "Pet", instance: ["id": 1e19, "name": "Rex"],
             expected: ["/id /components/schemas/Id/format format: is 10000000000000000000, which is not of format \"int64\""]),
        Case(name: "a broken schema gives violations, not a crash", schema: "Broken", instance: ["pattern": "a", "dangling": 1, "type": 1],
             expected: [
                 "/pattern /components/schemas/Broken/properties/pattern/pattern pattern: cannot be checked: the schema's pattern \"(unclosed\" is not a valid regular expression: ",
                 "/dangling /components/schemas/Broken/properties/dangling/$ref $ref: cannot be checked: the schema's $ref \"#/components/schemas/Nowhere\" names nothing in the contract",
                 "/type /components/schemas/Broken/properties/type/type schema: cannot be checked: the schema's \"type\" is 5, which is not a type name or a list of them",
             ]),
        Case(name: "a $ref loop ends, its violations reported once", schema: "Loop", instance: 1,
             expected: [" /components/schemas/Loop/type type: is 1, which is not of type \"string\""]),
        Case(name: "a discriminator with inheritance (the branch refers back to its parent)", schema: "Shape",
             instance: ["kind": "Circle", "radius": "big"],
             expected: ["/radius /components/schemas/Circle/allOf/1/properties/radius/type type: is \"big\", which is not of type \"number\""]),
        Case(name: "the same, validating the branch", schema: "Circle", instance: ["kind": "Circle", "radius": 1], expected: []),
        Case(name: "the same, the parent's rules apply", schema: "Circle", instance: ["radius": 1],
             expected: [" /components/schemas/Shape/required required: is missing required property \"kind\""]),
        Case(name: "no schema at the pointer", schema: "Missing", instance: 1,
             expected: [" /components/schemas/Missing $ref: cannot be checked: the contract has no schema at #/components/schemas/Missing"]),
    ]

    @Test(arguments: cases)
    func validatesOpenAPISchemas(_ example: Case) {
        var actual = Self.summary(Self.validator.validate(example.instance, against: Self.schema(example.schema), direction: example.direction))
        // The compiler's reason for a pattern that does not compile is ICU's; compare up to it.
        if example.name.hasPrefix("a broken schema"), !actual.isEmpty, let colon = actual[0].range(of: "expression: ") {
            actual[0] = String(actual[0][..<colon.upperBound])
        }
        #expect(actual == example.expected)
    }

    @Test func validatesThroughThePathsRef() throws {
        let schema = try JSONPointer(parsing: "#/paths/~1pets/post/requestBody/content/application~1json/schema")
        let violations = Self.validator.validate(["id": 1, "name": ""], against: schema, direction: .request)
        #expect(Self.summary(violations) == [
            "/id /components/schemas/Id/readOnly readOnly: is read-only, so a request must not send it",
            "/name /components/schemas/Pet/properties/name/minLength minLength: is \"\", which is shorter than the minimum length of 1 character",
        ])
    }

    /// A value nested deeper than the validator goes is a violation, not a stack overflow.
    @Test func refusesADeeplyNestedValueWithoutCrashing() {
        var deep: JSONValue = []
        for _ in 0..<600 { deep = [deep] }
        let tooDeep = deep
        let violations = Self.onSmallStack { Self.validator.validate(tooDeep, against: Self.schema("Tree")) }
        #expect(violations.map(\.keyword) == ["schema"])
        #expect(violations.first?.message == "cannot be checked: it nests deeper than 512 levels")
        var allowed: JSONValue = []
        for _ in 0..<500 { allowed = [allowed] }
        let deepEnough = allowed
        #expect(Self.onSmallStack { Self.validator.validate(deepEnough, against: Self.schema("Tree")) } == [])
        #expect(Self.summary(Self.onSmallStack { Self.validator.validate([[["x"]]], against: Self.schema("Tree")) }) == [
            "/0/0/0 /components/schemas/Tree/type type: is \"x\", which is not of type \"array\"",
        ])
    }

    /// Runs `body` on a thread with a 512 KB stack, as Apple platforms give their secondary threads.
    static func onSmallStack(_ body: @escaping @Sendable () -> [SchemaViolation]) -> [SchemaViolation] {
        SchemaEvaluation.onThread(stackSize: 512 << 10, body)
    }

    /// A chain of `$ref`s longer than the validator follows is a violation, not a stack overflow.
    @Test func refusesALongReferenceChainWithoutCrashing() {
        let count = 3000
        var definitions = JSONMembers()
        for position in 0..<count {
            definitions["d\(position)"] = position == count - 1 ? ["type": "string"] : ["$ref": .string("#/definitions/d\(position + 1)")]
        }
        let validator = SchemaValidator(document: ["definitions": .object(definitions)], dialect: .draft4)
        let violations = Self.onSmallStack { validator.validate(1, against: JSONPointer(["definitions", "d0"])) }
        #expect(Self.summary(violations) == [
            " /definitions/d2048 schema: cannot be checked: the schema applies more than 2048 schemas one inside another here",
        ])
        #expect(validator.validate("text", against: JSONPointer(["definitions", "d\(count - 200)"])) == [])
    }

    @Test func readsOpenAPI31TypeLists() {
        let document: JSONValue = ["components": ["schemas": [
            "Name": ["type": ["string", "null"], "maxLength": 3],
            "Shape": ["oneOf": [["$ref": "#/components/schemas/Square"]], "discriminator": ["propertyName": "shape"]],
            "Square": ["type": "object", "properties": ["side": ["type": "number", "exclusiveMinimum": 0]]],
        ]]]
        let validator = SchemaValidator(document: document, dialect: .openAPI31)
        #expect(validator.validate(.null, against: Self.schema("Name")) == [])
        #expect(Self.summary(validator.validate(4, against: Self.schema("Name"))) == [
            " /components/schemas/Name/type type: is 4, which is not of type \"string\" or \"null\"",
        ])
        #expect(Self.summary(validator.validate("four", against: Self.schema("Name"))) == [
            " /components/schemas/Name/maxLength maxLength: is \"four\", which is longer than the maximum length of 3 characters",
        ])
        #expect(Self.summary(validator.validate(["shape": "Square", "side": 0], against: Self.schema("Shape"))) == [
            "/side /components/schemas/Square/properties/side/exclusiveMinimum exclusiveMinimum: is 0, which is not greater than the exclusive minimum 0",
        ])
    }

    @Test(arguments: [
        ("date-time", "2024-02-29T23:59:60Z", true), ("date-time", "2023-02-29T10:00:00Z", false),
        ("date", "2024-13-01", false), ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", true), ("uuid", "2eb8aa08aa98", false),
        ("email", "joe.bloggs@example.com", true), ("email", "joe..bloggs@example.com", false),
        ("ipv4", "192.168.0.1", true), ("ipv4", "256.0.0.1", false), ("ipv6", "::1", true), ("ipv6", "1:::2", false),
        ("uri", "https://example.com/a?b#c", true), ("uri", "/relative", false), ("uri-reference", "/relative", true),
        ("hostname", "example.com", true), ("hostname", "-bad.example", false), ("byte", "aGVsbG8=", true), ("byte", "aGVsbG8", false),
        ("regex", "^a+$", true), ("regex", "(", false), ("made-up", "anything", true),
    ] as [(String, String, Bool)])
    func checksFormats(format: String, value: String, valid: Bool) {
        let validator = SchemaValidator(document: ["format": .string(format)], dialect: .openAPI30)
        #expect(validator.validate(.string(value), against: JSONPointer()).isEmpty == valid)
        let lenient = SchemaValidator(document: ["format": .string(format)], dialect: .openAPI30, assertFormats: false)
        #expect(lenient.validate(.string(value), against: JSONPointer()).isEmpty)
    }

    @Test(arguments: [
        (#"^\d+$"#, "123", true), (#"^\d+$"#, "١٢٣", false), (#"^\w+$"#, "é", false), (#"^\p{Letter}+$"#, "héllo", true),
        ("^abc$", "abc\n", false), (#"^[\d]+$"#, "42", true), (#"\u{1F600}"#, "😀", true), ("a", "cat", true),
    ] as [(String, String, Bool)])
    func readsPatternsAsECMAScript(pattern: String, value: String, matches: Bool) throws {
        #expect(try ECMARegex(pattern).matches(value) == matches)
    }
}
