import AirlockBase
import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPLogging
import HTTPTestSupport
import MockServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The same checks over a socket (`MockServer`) and on real traffic (`HTTPLogger`): one
/// implementation in the exchange's journal, whichever transport delivers it.
@Suite struct ContractTransportsTests {
    /// A request over a real loopback socket to `MockServer`, answered by a stub the contract
    /// does not allow: both sides are checked.
    @Test func aMockServerChecksWhatItReceivesAndAnswers() async throws {
        let petstore = try Examples.contract("v3.0/petstore.yaml")
        let server = MockServer()
        let violations = Violations()
        server.validate(against: petstore, onViolation: violations.record)
        server.addResponses(forPath: "/v1/pets/*", host: "*") {
            MockResponse(data: Data(#"{"id": 1}"#.utf8), contentType: "application/json")
        }
        try await server.start()
        defer { Task { try? await server.shutdown() } }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.boundedData(for: URLRequest(url: server.baseURL.appendingPathComponent("v1/pets/1")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(violations.messages == [
            #"showPetById (GET /pets/{petId}): the response body is missing required property "name" (required at #/components/schemas/Pet/required)"#,
        ])
        #expect(server.requests.first?.operationID == "showPetById")
    }

    /// An `HTTPLogger` checks real traffic: the request the app sends and the server's answer
    /// (here a `MockServer` on loopback, standing in for the real API).
    @Test func aLoggerChecksRealTraffic() async throws {
        let petstore = try Examples.contract("v3.0/petstore.yaml")
        let server = MockServer()
        server.addResponses(forPath: "/v1/pets", host: "*") {
            MockResponse(data: Data(#"[{"id": 1, "name": "Rex"}, {"id": "2"}]"#.utf8), contentType: "application/json")
        }
        try await server.start()
        defer { Task { try? await server.shutdown() } }
        let logger = HTTPLogger()
        let violations = Violations()
        logger.validate(against: petstore, onViolation: violations.record)
        let configuration = URLSessionConfiguration.ephemeral
        logger.install(in: configuration)
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var components = URLComponents(url: server.baseURL.appendingPathComponent("v1/pets"), resolvingAgainstBaseURL: false)!
        components.query = "limit=1000"
        let (data, _) = try await session.boundedData(for: URLRequest(url: components.url!))
        #expect(String(decoding: data, as: UTF8.self).contains("Rex"))
        #expect(violations.all.map { "\($0.side.rawValue) \($0.rule) \($0.location)" } == [
            "request maximum query parameter limit",
            "response type body at /1/id",
            "response required body at /1",
        ])
        #expect(logger.requests.first?.operationID == "listPets")
    }

    /// Without `onViolation`, a violation found on the server's event loop is an issue of the
    /// test that asked.
    @Test func aViolationOnTheServersThreadIsAnIssueOfTheTest() async throws {
        let petstore = try Examples.contract("v3.0/petstore.yaml")
        let issues = Locked<[String]>([])
        try await withKnownIssue {
            let server = MockServer()
            server.validate(against: petstore)
            server.unmockedPolicy = .mock(.empty(status: .noContent))
            try await server.start()
            defer { Task { try? await server.shutdown() } }
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            _ = try await session.boundedData(for: URLRequest(url: server.baseURL.appendingPathComponent("v1/owners")))
        } matching: { issue in
            issues.withLock { $0.append(contentsOf: issue.comments.map(\.rawValue)) }
            return true
        }
        #expect(issues.withLock { $0 }.count == 1)
        #expect(issues.withLock { $0 }.first?.contains("the request path is /v1/owners, which matches no path of the contract") == true)
    }
}
