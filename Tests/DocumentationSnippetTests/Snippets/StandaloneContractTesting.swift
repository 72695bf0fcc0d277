import AirlockOpenAPI
import Foundation
import HTTPMock
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run.

// AirlockOpenAPI's Contract Testing: check every exchange.
@Suite(.disabled("a documentation sample: compiled, not run"))
struct ContractTestingSample {
    @Test func addsAPet() async throws {
        let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("petstore.yaml")
        let mock = HTTPMock()
        mock.validate(against: try OpenAPIContract(contentsOf: spec))
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") {
            MockResponse.empty(status: .created)
        }

        var request = URLRequest(url: URL(string: "https://petstore.swagger.io/v1/pets")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name": "Rex"}"#.utf8)
        let (_, response) = try await mock.urlSession.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
    }
}

// AirlockOpenAPI: the overview, mocks from the contract and generated clients.
func contractTestingSamples() throws {
    let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
    let mock = HTTPMock()
    mock.validate(against: contract)
    _ = mock
    do {
        let mock = HTTPMock()
        mock.registerStubs(from: contract)
    }

    do {
        let mock = HTTPMock()
        mock.addResponses(forOperation: "showPetById") {
            MockResponse.dictionary(["id": 1, "name": "Rex"])
        }
        let client = Client(serverURL: try Servers.Server1.url(), transport: AirlockTransport(mock: mock))
        _ = client
    }
}

// README.md: AirlockOpenAPI quick start.
func contractQuickStart() throws {
    let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
    let mock = HTTPMock()
    mock.validate(against: contract)     // every request and answer checked; a violation fails the test
    mock.registerStubs(from: contract)   // every operation answers its example
}
