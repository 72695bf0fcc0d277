import AirlockOpenAPI
import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import Testing

// The Swift samples of MockServer's articles and of the README, verbatim; compiled, not run.

// MockServer.md.
func serverOverAMock() async throws {
    let mock = HTTPMock()
    mock.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("[]") }
    let server = MockServer(mock: mock)         // the mock's stubs, also over a socket
    try await server.start()                    // 127.0.0.1, a free port: server.baseURL
    // … URLSession clients use mock.urlSession, every other client server.baseURL …
    try await server.shutdown()
}


// InspectingTraffic.md.
func inspectorForAnInProcessMock() async throws {
    let mock = HTTPMock()
    let inspector = MockServer(mock: mock)        // loopback, a free port
    try await inspector.start()
    print("Traffic:", inspector.inspectorURL)     // open it while the test runs
    // … the test's requests through mock.urlSession appear on the page …
    try await inspector.shutdown()
}


// AirlockOpenAPICore.md.
func contractOverASocket() throws {
    let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
    let server = MockServer()
    server.registerStubs(from: contract)
}

// Recording.md, "Keeping recordings true": a test target run on purpose (nightly).
@Suite(.disabled("a documentation sample: compiled, not run"))
struct KeepingRecordingsTrueSample {
    @Test func usersCassetteIsStillTrue() async throws {
        let cassette = try Cassette(verifying: URL(fileURLWithPath: "Fixtures/users.har"))
        var options = DriftOptions()
        options.ignoredFields = ["$.requestId"]
        options.ignoredHeaders = ["Date"]
        let report = try await cassette.verify(against: URL(string: "https://staging.example.com")!, options: options)
        #expect(!report.hasDrift && !report.hasUnverified, "\(report.table)")
    }

    @Test func usersCassetteKeepsTheContract() async throws {
        let cassette = try Cassette(verifying: URL(fileURLWithPath: "Fixtures/users.har"))
        var options = DriftOptions()
        options.exchangeCheck = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml")).exchangeCheck()
        let report = try await cassette.verify(against: URL(string: "https://staging.example.com")!, options: options)
        #expect(!report.entries.contains { $0.drifts.contains { $0.kind == .contractViolation } }, "\(report.table)")
    }
}
