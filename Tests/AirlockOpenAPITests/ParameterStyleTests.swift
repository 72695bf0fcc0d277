import AirlockOpenAPI
import Foundation
import HTTPMock
import Testing

/// Parameters in every location and style, credentials and server variables, checked through a
/// real `URLSession`.
@Suite struct ParameterStyleTests {
    static let document = """
    openapi: 3.1.0
    info: {title: Styles, version: "1"}
    servers: [{url: "https://api.example.com/{version}", variables: {version: {default: v2}}}]
    components:
      securitySchemes:
        key: {type: apiKey, in: header, name: X-API-Key}
        bearer: {type: http, scheme: bearer}
      schemas:
        Color: {type: object, properties: {R: {type: integer}, G: {type: integer}}, required: [R]}
    security: [{key: []}, {bearer: []}]
    paths:
      /items/{ids}:
        get:
          operationId: getItems
          parameters:
            - {name: ids, in: path, required: true, schema: {type: array, items: {type: integer}}}
            - {name: tags, in: query, schema: {type: array, items: {type: string, enum: [a, b]}}}
            - {name: color, in: query, style: deepObject, schema: {$ref: '#/components/schemas/Color'}}
            - {name: X-Trace, in: header, required: true, schema: {type: string, pattern: '^[0-9a-f]+$'}}
            - {name: session, in: cookie, schema: {type: integer}}
            - {name: filter, in: query, content: {application/json: {schema: {type: object, required: [q]}}}}
            - {name: limit, in: query, schema: {type: [integer, "null"], minimum: 1}}
            - {name: token, in: query, schema: {type: string, enum: [expected-token]}}
          responses:
            '200': {description: ok}
      /points/{point}:
        get:
          operationId: getPoint
          security: []
          parameters:
            - {name: point, in: path, required: true, style: matrix, explode: true, schema: {type: object, properties: {x: {type: integer}, y: {type: integer}}}}
          responses: {'200': {description: ok}}
      /tags/{tag}:
        get:
          operationId: getTag
          security: []
          parameters:
            - {name: tag, in: path, required: true, style: label, schema: {type: array, items: {type: string}, minItems: 2}}
          responses: {'200': {description: ok}}
    """

    /// The violations of one request to a mock checked against the document.
    func found(_ address: String, headers: [String: String]) async throws -> [ContractViolation] {
        let contract = try OpenAPIContract(data: Data(Self.document.utf8), source: "styles.yaml")
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: contract, onViolation: violations.record)
        mock.unmockedPolicy = .mock(.empty())
        try await mock.send("GET", address, headers: headers)
        return violations.all
    }

    /// The violations of one request: `rule location value` each.
    func violations(_ address: String, headers: [String: String] = ["X-Trace": "abc", "X-API-Key": "k"]) async throws -> [String] {
        try await found(address, headers: headers).map { "\($0.rule) \($0.location) \($0.value ?? "-")" }
    }

    @Test func valuesInEveryStyleThatKeepTheContractPass() async throws {
        let base = "https://api.example.com/v2"
        #expect(try await violations(#"\#(base)/items/1,2,3?tags=a&tags=b&color%5BR%5D=1&color%5BG%5D=2&filter=%7B%22q%22%3A%22x%22%7D&limit=5"#,
                                      headers: ["X-Trace": "abc", "X-API-Key": "k", "Cookie": "other=1; session=5"]) == [])
        #expect(try await violations("\(base)/points/;x=1;y=2") == [])
        #expect(try await violations("\(base)/tags/.a,b") == [])
        #expect(try await violations("\(base)/items/1", headers: ["X-Trace": "0f", "Authorization": "Bearer t"]) == [])
    }

    @Test func eachStyleReadsItsValuesForTheSchema() async throws {
        let base = "https://api.example.com/v2"
        #expect(try await violations("\(base)/items/1,x") == ["type path parameter ids at /1 x"])
        #expect(try await violations("\(base)/items/1?tags=a&tags=c") == ["enum query parameter tags at /1 c"])
        #expect(try await violations("\(base)/items/1?color%5BG%5D=2") == [#"required query parameter color {"G":2}"#])
        #expect(try await violations("\(base)/items/1", headers: ["X-Trace": "XYZ", "X-API-Key": "k"]) == ["pattern header parameter X-Trace XYZ"])
        #expect(try await violations("\(base)/items/1", headers: ["X-API-Key": "k"]) == ["required header parameter X-Trace -"])
        #expect(try await violations("\(base)/items/1", headers: ["X-Trace": "a", "X-API-Key": "k", "Cookie": "session=abc"]) == ["type cookie parameter session [REDACTED]"])
        #expect(try await violations("\(base)/items/1?filter=%7B%7D") == [#"required query parameter filter {}"#])
        #expect(try await violations("\(base)/items/1?limit=0") == ["minimum query parameter limit 0"])
        #expect(try await violations("\(base)/points/;x=a;y=2") == ["type path parameter point at /x a"])
        #expect(try await violations("\(base)/tags/.a") == [#"minItems path parameter tag ["a"]"#])
    }

    @Test func missingCredentialsNameEachWayToProvideThem() async throws {
        let violations = try await found("https://api.example.com/v2/items/1", headers: ["X-Trace": "a"])
        #expect(violations.map(\.description) == [
            "getItems (GET /items/{ids}): the request credentials are missing (it needs key: the header X-API-Key, or bearer: Authorization: Bearer …) (security at #/security)",
        ])
    }

    @Test func aSecretValueIsRedactedInTheViolation() async throws {
        let violations = try await found("https://api.example.com/v2/items/1?token=leaked-secret-value&limit=abc", headers: ["X-Trace": "a", "X-API-Key": "k"])
        let token = try #require(violations.first { $0.location == "query parameter token" })
        #expect(token.value == "[REDACTED]")
        #expect(violations.count == 2)
        #expect(!violations.map(\.description).joined().contains("leaked-secret-value"))
        #expect(!violations.contains { $0.request.contains("leaked-secret-value") })
    }
}
