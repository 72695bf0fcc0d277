import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPMock
import HTTPTypes
import HTTPTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock.registerStubs(from:)` through a real `URLSession`.
@Suite struct MocksFromContractTests {
    @Test func anOperationAnswersItsExample() async throws {
        let mock = HTTPMock()
        mock.registerStubs(from: try Examples.contract("v3.0/api-with-examples.yaml"))
        let (status, data) = try await mock.send("GET", "https://any.example/")
        #expect(status == 200)
        let body = try JSONValue.parse(data)
        #expect(body[try JSONPointer(parsing: "/versions/0/id")] == .string("v2.0"))
        #expect(body[try JSONPointer(parsing: "/versions/1/status")] == .string("EXPERIMENTAL"))
    }

    @Test func preferPicksTheStatusAndTheExample() async throws {
        let document = """
        openapi: 3.1.0
        info: {title: Pets, version: "1"}
        paths:
          /pets/{id}:
            get:
              parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
              responses:
                '200':
                  description: a pet
                  content:
                    application/json:
                      examples:
                        dog: {value: {name: Rex, kind: dog}}
                        cat: {value: {name: Tom, kind: cat}}
                '404':
                  description: none
                  headers: {X-Reason: {required: true, schema: {type: string, example: gone}}}
                  content: {application/json: {schema: {type: object, required: [message], properties: {message: {type: string}}}}}
        """
        let mock = HTTPMock()
        mock.registerStubs(from: try OpenAPIContract(data: Data(document.utf8), source: "pets.yaml"))
        let first = try await mock.send("GET", "https://api.example.com/pets/1")
        #expect(first.status == 200)
        #expect(String(decoding: first.data, as: UTF8.self) == #"{"name":"Rex","kind":"dog"}"#)
        let cat = try await mock.send("GET", "https://api.example.com/pets/1", headers: ["Prefer": "example=cat"])
        #expect(String(decoding: cat.data, as: UTF8.self) == #"{"name":"Tom","kind":"cat"}"#)
        let missing = try await mock.send("GET", "https://api.example.com/pets/1", headers: ["Prefer": "code=404"])
        #expect(missing.status == 404)
        #expect(String(decoding: missing.data, as: UTF8.self) == #"{"message":"string"}"#)
        #expect(mock.requests.last?.response?.headerFields[HTTPField.Name("X-Reason")!] == "gone")
        let unknown = try await mock.send("GET", "https://api.example.com/pets/1", headers: ["Prefer": "example=bird"])
        #expect(unknown.status == 500)
        #expect(String(decoding: unknown.data, as: UTF8.self).contains(#"has no example \"bird\" for 200 application/json; it has dog, cat."#))
    }

    @Test func aRequestThatBreaksTheContractGetsAProblemListingEachViolation() async throws {
        let mock = HTTPMock()
        mock.registerStubs(from: try Examples.contract("v3.0/petstore.yaml"))
        let (status, data) = try await mock.send("POST", "https://petstore.swagger.io/v1/pets", headers: ["Content-Type": "application/json"], body: #"{"name": 3}"#)
        #expect(status == 422)
        #expect(mock.requests.last?.response?.headerFields[.contentType] == "application/problem+json")
        let problem = try JSONValue.parse(data)
        #expect(problem[JSONPointer(["status"])] == .number(422))
        #expect(problem[JSONPointer(["detail"])] == .string("2 violations of createPets (POST /pets)"))
        let pointers = problem[JSONPointer(["violations"])]?.arrayElementsForTests.compactMap { $0[JSONPointer(["pointer"])] }
        #expect(pointers?.count == 2)
        #expect(pointers?.contains(.string("#/components/schemas/Pet/required")) == true)
        #expect(pointers?.contains(.string("#/components/schemas/Pet/properties/name/type")) == true)
    }

    @Test func aMethodThePathLacksIs405WithAllow() async throws {
        let mock = HTTPMock()
        mock.registerStubs(from: try Examples.contract("v3.0/petstore.yaml"))
        let (status, _) = try await mock.send("DELETE", "https://petstore.swagger.io/v1/pets")
        #expect(status == 405)
        #expect(mock.requests.last?.response?.headerFields[.allow] == "GET, POST")
    }

    /// Every operation of every example answers, by default, what its contract allows: the
    /// answers pass the same checks `validate(against:)` makes.
    @Test(arguments: [
        "v3.0/api-with-examples.yaml", "v3.0/callback-example.yaml", "v3.0/link-example.yaml",
        "v3.0/petstore-expanded.yaml", "v3.0/petstore.yaml", "v3.0/uspto.yaml", "v3.1/non-oauth-scopes.yaml",
    ])
    func everyDefaultAnswerKeepsItsContract(path: String) async throws {
        let contract = try Examples.contract(path)
        let mock = HTTPMock()
        mock.registerStubs(from: contract)
        let violations = Violations()
        mock.validate(against: contract, onViolation: violations.record)
        var answered = 0
        for operation in contract.operations {
            let request = try #require(ValidRequests.make(for: operation, in: contract))
            let (status, _) = try await mock.send(operation.method, request.url, headers: request.headers, body: request.body)
            if (200..<400).contains(status) { answered += 1 }
        }
        #expect(answered == contract.operations.count)
        #expect(violations.messages == [])
    }
}

extension JSONValue {
    var arrayElementsForTests: [JSONValue] {
        if case .array(let elements) = self { return elements }
        return []
    }
}
