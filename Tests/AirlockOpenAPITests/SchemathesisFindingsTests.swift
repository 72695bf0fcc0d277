import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What schemathesis found in Airlock's contract checks (`SchemathesisTests` runs it against
/// `airlock serve --openapi`), each fixed and kept here: integers at the ends of `int64`, which a
/// `Double` cannot tell from their neighbours, and a query parameter of one value given twice.
@Suite struct SchemathesisFindingsTests {
    /// `createPets` with each `id`: the violations of the request.
    private func violations(creatingPetWithID id: String) async throws -> [ContractViolation] {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: try Examples.contract("v3.0/petstore.yaml"), onViolation: violations.record)
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") { MockResponse.empty(status: .created) }
        try await mock.send("POST", "http://petstore.swagger.io/v1/pets", headers: ["Content-Type": "application/json"], body: #"{"id": \#(id), "name": "Rex"}"#)
        return violations.all
    }

    @Test(arguments: ["9223372036854775807", "9223372036854775806", "-9223372036854775808", "-9223372036854775807", "9007199254740993"])
    func anInt64AtTheEndsOfItsRangeIsAnInt64(_ id: String) async throws {
        #expect(try await violations(creatingPetWithID: id).map(\.description) == [])
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775809", "9223372036854776000", "18446744073709551616"])
    func anIntegerJustBeyondInt64IsNotOne(_ id: String) async throws {
        let found = try await violations(creatingPetWithID: id)
        let violation = try #require(found.first, "\(id) passed as an int64")
        #expect(found.count == 1)
        #expect(violation.rule == "format")
        #expect(violation.location == "body at /id")
        #expect(violation.value == id)
        #expect(violation.problem.contains("is \(id), which is not of format \"int64\""), "\(violation.problem)")
    }

    @Test func anInt64PathParameterIsCheckedByItsText() async throws {
        let mock = HTTPMock()
        mock.registerStubs(from: try Examples.contract("v3.0/petstore-expanded.yaml"))
        #expect(try await mock.send("GET", "https://petstore.swagger.io/v2/pets/9223372036854775807").status == 200)
        #expect(try await mock.send("GET", "https://petstore.swagger.io/v2/pets/-9223372036854775808").status == 200)
        let (status, data) = try await mock.send("GET", "https://petstore.swagger.io/v2/pets/-9223372036854775809")
        #expect(status == 422)
        #expect(String(decoding: data, as: UTF8.self).contains(#""value":"-9223372036854775809""#))
    }

    @Test func aQueryParameterOfOneValueGivenTwiceIsAViolation() async throws {
        let mock = HTTPMock()
        let violations = Violations()
        mock.validate(against: try Examples.contract("v3.0/petstore.yaml"), onViolation: violations.record)
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") { MockResponse(data: Data("[]".utf8), contentType: "application/json") }
        try await mock.send("GET", "http://petstore.swagger.io/v1/pets?limit=1&limit=x")
        let violation = try #require(violations.all.first)
        #expect(violations.all.count == 1)
        #expect(violation.rule == "type")
        #expect(violation.location == "query parameter limit")
        #expect(violation.value == #"[1,"x"]"#)

        // The mock of the contract refuses it as it refuses any request that breaks it.
        let served = HTTPMock()
        served.registerStubs(from: try Examples.contract("v3.0/petstore-expanded.yaml"))
        #expect(try await served.send("GET", "https://petstore.swagger.io/v2/pets?limit=1&limit=2").status == 422)
        #expect(try await served.send("GET", "https://petstore.swagger.io/v2/pets?limit=1").status == 200)
        // An array parameter (form, exploded) is the one whose name repeats.
        #expect(try await served.send("GET", "https://petstore.swagger.io/v2/pets?tags=a&tags=b").status == 200)
    }

    @Test func theParserKeepsTheTextOfLongIntegersByPath() throws {
        let document = #"{"a": [1, 12345678901234567890, {"b": -9223372036854775809}], "c": 1.2345678901234567e3, "d": 123456789012345}"#
        let (value, literals) = try JSONValue.parseKeepingLongIntegers(Data(document.utf8))
        #expect(value == (try JSONValue.parse(Data(document.utf8))))
        #expect(literals == [["a", "1"]: "12345678901234567890", ["a", "2", "b"]: "-9223372036854775809"])
    }
}
