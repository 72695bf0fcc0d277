@_spi(AirlockTransport) import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPMock
import HTTPTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock.validate(against:)` through a real `URLSession`: the OpenAPI Initiative's petstore.
@Suite struct ContractValidationTests {
    let petstore: OpenAPIContract

    init() throws {
        petstore = try Examples.contract("v3.0/petstore.yaml")
    }

    @Test func readsTheOperationsOfTheDocument() {
        #expect(petstore.title == "Swagger Petstore")
        #expect(petstore.openAPIVersion == "3.0.0")
        #expect(petstore.operations.map(\.description) == [
            "listPets (GET /pets)", "createPets (POST /pets)", "showPetById (GET /pets/{petId})",
        ])
        #expect(petstore.operation(id: "showPetById")?.pointer.fragment == "#/paths/~1pets~1%7BpetId%7D/get")
    }

    @Test func anExchangeTheContractAllowsPassesAndKeepsItsOperation() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: petstore, onViolation: violations.record)
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") {
            MockResponse(data: Data(#"[{"id": 1, "name": "Rex"}, {"id": 2, "name": "Tom", "tag": "cat"}]"#.utf8), contentType: "application/json", headers: ["x-next": "/v1/pets?page=2"])
        }
        let (status, _) = try await mock.send("GET", "http://petstore.swagger.io/v1/pets?limit=10")
        #expect(status == 200)
        #expect(violations.messages == [])
        #expect(mock.requests.first?.operationID == "listPets")
    }

    @Test func aQueryParameterOverItsMaximumNamesTheRuleAndValue() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: petstore, onViolation: violations.record)
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") {
            MockResponse(data: Data("[]".utf8), contentType: "application/json")
        }
        try await mock.send("GET", "http://petstore.swagger.io/v1/pets?limit=500")
        let violation = try #require(violations.all.first)
        #expect(violations.all.count == 1)
        #expect(violation.side == .request)
        #expect(violation.operation?.operationID == "listPets")
        #expect(violation.rule == "maximum")
        #expect(violation.pointer.fragment == "#/paths/~1pets/get/parameters/0/schema/maximum")
        #expect(violation.location == "query parameter limit")
        #expect(violation.value == "500")
    }

    @Test func aBodyThatBreaksTheSchemaNamesEachProblemByPointer() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: petstore, onViolation: violations.record)
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") { MockResponse.empty(status: .created) }
        try await mock.send("POST", "http://petstore.swagger.io/v1/pets", headers: ["Content-Type": "application/json"], body: #"{"name": 3}"#)
        let found = violations.all.map { "\($0.rule) \($0.pointer.fragment) \($0.location) \($0.value ?? "-")" }
        #expect(found.sorted() == [
            #"required #/components/schemas/Pet/required body {"name":3}"#,
            "type #/components/schemas/Pet/properties/name/type body at /name 3",
        ])
    }

    @Test func aMissingRequiredBodyAndAWrongContentTypeAreViolations() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: petstore, onViolation: violations.record)
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") {
            MockResponse.empty(status: .created)
            MockResponse.empty(status: .created)
        }
        try await mock.send("POST", "http://petstore.swagger.io/v1/pets")
        try await mock.send("POST", "http://petstore.swagger.io/v1/pets", headers: ["Content-Type": "text/plain"], body: "Rex")
        #expect(violations.messages == [
            "createPets (POST /pets): the request body is missing (required at #/paths/~1pets/post/requestBody/required)",
            "createPets (POST /pets): the request header Content-Type is text/plain, which the operation does not accept (it accepts application/json) (content-type at #/paths/~1pets/post/requestBody/content)",
        ])
    }

    @Test func aPathOrMethodTheContractLacksIsAViolation() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: petstore, onViolation: violations.record)
        mock.unmockedPolicy = .mock(.empty(status: .noContent))
        try await mock.send("GET", "http://petstore.swagger.io/v1/owners")
        try await mock.send("DELETE", "http://petstore.swagger.io/v1/pets")
        try await mock.send("GET", "http://petstore.swagger.io/pets")
        #expect(violations.messages == [
            #"GET http://petstore.swagger.io/v1/owners: the request path is /v1/owners, which matches no path of the contract after its server path "/v1" (path at #/paths)"#,
            "DELETE http://petstore.swagger.io/v1/pets: the request method is DELETE, which /pets does not have (it has GET, POST) (method at #/paths/~1pets)",
            #"GET http://petstore.swagger.io/pets: the request path is /pets, which matches no path of the contract after its server path "/v1" (path at #/paths)"#,
        ])
    }

    @Test func aMockedAnswerTheContractDoesNotAllowIsAViolation() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: petstore, onViolation: violations.record)
        mock.addResponses(forPath: "/v1/pets/42", host: "petstore.swagger.io") {
            MockResponse(data: Data(#"{"id": "42"}"#.utf8), contentType: "application/json")
            MockResponse.plaintext("Rex")
        }
        try await mock.send("GET", "http://petstore.swagger.io/v1/pets/42")
        try await mock.send("GET", "http://petstore.swagger.io/v1/pets/42")
        #expect(violations.all.allSatisfy { $0.side == .response && $0.operation?.operationID == "showPetById" })
        #expect(violations.messages == [
            #"showPetById (GET /pets/{petId}): the response body at /id is "42", which is not of type "integer" (type at #/components/schemas/Pet/properties/id/type)"#,
            #"showPetById (GET /pets/{petId}): the response body is missing required property "name" (required at #/components/schemas/Pet/required)"#,
            "showPetById (GET /pets/{petId}): the response header Content-Type is text/plain, which the response does not have (it has application/json) (content-type at #/paths/~1pets~1%7BpetId%7D/get/responses/200/content)",
        ])
    }

    @Test func harExportsKeepTheOperation() async throws {
        let mock = HTTPMock()
        mock.validate(against: petstore, onViolation: { _ in })
        mock.addResponses(forPath: "/v1/pets/7", host: "petstore.swagger.io") {
            MockResponse(data: Data(#"{"id": 7, "name": "Rex"}"#.utf8), contentType: "application/json")
        }
        try await mock.send("GET", "http://petstore.swagger.io/v1/pets/7")
        let har = try JSONSerialization.jsonObject(with: mock.exportHAR()) as? [String: Any]
        let entries = (har?["log"] as? [String: Any])?["entries"] as? [[String: Any]]
        #expect(entries?.first?["_operationId"] as? String == "showPetById")
    }

    @Test func stoppingEndsTheChecks() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        let validation = mock.validate(against: petstore, onViolation: violations.record)
        mock.unmockedPolicy = .mock(.empty(status: .noContent))
        try await mock.send("GET", "http://petstore.swagger.io/v1/owners")
        validation.stop()
        try await mock.send("GET", "http://petstore.swagger.io/v1/owners")
        #expect(violations.all.count == 1)
        #expect(validation.violations.count == 1)
    }

    /// A template's output is what the app gets, and what the contract checks.
    @Test func aTemplatesOutputIsChecked() async throws {
        let file = try StubFile(data: Data(#"""
            {"stubs": [{"path": "/v1/pets/*", "responses": [{"template": true, "lifetime": "eternal",
              "headers": {"Content-Type": "application/json"},
              "body": "{\"id\": \"{{request.path.[2]}}\", \"name\": \"Rex\"}"}]}]}
            """#.utf8), source: "template.json", baseDirectory: URL(fileURLWithPath: "/"))
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: petstore, onViolation: violations.record)
        #expect(mock.registerStubs(file).isEmpty)
        try await mock.send("GET", "http://petstore.swagger.io/v1/pets/42")
        #expect(violations.messages == [
            #"showPetById (GET /pets/{petId}): the response body at /id is "42", which is not of type "integer" (type at #/components/schemas/Pet/properties/id/type)"#,
        ])
    }

    /// A cassette's recorded answers are checked as they replay: a recording the API no longer
    /// matches fails the test.
    @Test func aReplayedCassetteEntryIsChecked() async throws {
        let recorder = HTTPMock()
        recorder.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") {
            MockResponse(data: Data(#"[{"id": 1}]"#.utf8), contentType: "application/json")
        }
        try await recorder.send("GET", "http://petstore.swagger.io/v1/pets")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-contract-\(UUID().uuidString).har")
        try recorder.exportHAR().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let replay = try HTTPMock(cassette: Cassette(contentsOf: file, mode: .none))
        let violations = Violations()
        replay.validate(against: petstore, onViolation: violations.record)
        try await replay.send("GET", "http://petstore.swagger.io/v1/pets")
        #expect(violations.messages == [
            #"listPets (GET /pets): the response body at /0 is missing required property "name" (required at #/components/schemas/Pet/required)"#,
        ])
    }
}

/// A validation does not keep its mock alive: the mock, its journal and the validation go when
/// the test lets go of them.
@Suite struct ContractValidationLifetimeTests {
    @Test func aValidatedMockIsFreedWhenReleased() throws {
        let petstore = try Examples.contract("v3.0/petstore.yaml")
        weak var released: ContractValidation?
        weak var releasedMock: HTTPMock?
        do {
            let mock = HTTPMock()
            let validation = mock.validate(against: petstore, onViolation: { _ in })
            released = validation
            releasedMock = mock
        }
        #expect(releasedMock == nil)
        #expect(released == nil)
    }
}
