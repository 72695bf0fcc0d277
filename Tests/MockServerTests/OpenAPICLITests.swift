import AsyncHTTPClient
import Foundation
import Testing
import ProcessSupport

/// `airlock serve --openapi`, as a child process: the contract answers, a request that breaks it
/// gets a problem, and every violation is printed.
struct OpenAPICLITests {
    static let examples = Repository.openAPIExamples

    @Test func servesTheContractAndPrintsEachViolation() async throws {
        let spec = Self.examples.appendingPathComponent("v3.0/petstore.yaml").path
        let errors = Pipe()
        let airlock = try LaunchedAirlock(["serve", "--openapi", spec, "--port", "0"], standardError: errors)
        defer { airlock.stopIfRunning() }
        let (banner, base) = try await airlock.banner()
        #expect(banner == "Airlock serving 3 operation(s) of Swagger Petstore from \(spec) at \(base)")
        try await withClient { client in
            let list = try await send(client, "\(base)/v1/pets")
            #expect(list.status == 200)
            #expect(list.text == #"[{"id":1,"name":"string","tag":"string"}]"#)
            let broken = try await send(client, "\(base)/v1/pets", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"name": "Rex"}"#)
            #expect(broken.status == 422)
            #expect(broken.headers["Content-Type"].first == "application/problem+json")
            #expect(broken.headers["Airlock-Error"].first == "contract-violation")
            #expect(broken.text.contains(##""pointer":"#/components/schemas/Pet/required""##))
        }
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
        let printed = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == #"airlock: contract violation: createPets (POST /pets): the request body is missing required property "id" (required at #/components/schemas/Pet/required)"# + "\n")
    }

    /// A stub file answers first; the contract checks what it answers.
    @Test func aStubFileBesideTheContractIsChecked() async throws {
        let spec = Self.examples.appendingPathComponent("v3.0/petstore.yaml").path
        let stubs = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-openapi-\(UUID().uuidString).json")
        try Data(#"{"stubs": [{"path": "/v1/pets/7", "responses": [{"json": {"id": 7}, "lifetime": "eternal"}]}]}"#.utf8).write(to: stubs)
        defer { try? FileManager.default.removeItem(at: stubs) }
        let errors = Pipe()
        let airlock = try LaunchedAirlock(["serve", stubs.path, "--openapi", spec, "--port", "0"], standardError: errors)
        defer { airlock.stopIfRunning() }
        let (banner, base) = try await airlock.banner()
        #expect(banner == "Airlock serving 1 stub(s) from \(stubs.path) and 3 operation(s) of Swagger Petstore from \(spec) at \(base)")
        try await withClient { client in
            let lie = try await send(client, "\(base)/v1/pets/7")
            #expect(lie.text == #"{"id":7}"#)
            let fromContract = try await send(client, "\(base)/v1/pets/8")
            #expect(fromContract.text == #"{"id":1,"name":"string","tag":"string"}"#)
        }
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
        let printed = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == #"airlock: contract violation: showPetById (GET /pets/{petId}): the response body is missing required property "name" (required at #/components/schemas/Pet/required)"# + "\n")
    }

    @Test func aDocumentThatCannotBeUsedStopsTheCommandNamingIt() throws {
        let spec = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-openapi-\(UUID().uuidString).yaml")
        try Data("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n".utf8).write(to: spec)
        defer { try? FileManager.default.removeItem(at: spec) }
        let (status, _, errors) = try LaunchedAirlock.run(["serve", "--openapi", spec.path, "--port", "0"])
        #expect(status == 65)
        #expect(errors == "airlock: \(spec.path): it is a Swagger 2.0 document. Fix: convert it to OpenAPI 3 first (for example with swagger2openapi).\n")
    }
}
