import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Faults and dribbled bodies through URLSession, and stub files loaded into a mock.
struct FaultAndStubFileTests {
    @Test(arguments: [
        (MockResponse.Fault.connectionReset, URLError.Code.networkConnectionLost),
        (.emptyResponse, .badServerResponse),
        (.malformedChunkedBody, .cannotParseResponse),
        (.randomBytesThenClose, .badServerResponse),
    ])
    func aFaultFailsTheRequestAsAClientWouldSeeIt(fault: MockResponse.Fault, code: URLError.Code) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/f", host: "a.test") { MockResponse.fault(fault) }
        let error = await urlError { _ = try await mock.fetch("https://a.test/f") }
        #expect(error?.code == code)
        #expect(error?.localizedDescription.contains("fault \(fault)") == true)
    }

    @Test func aDribbledBodyArrivesWholeAfterItsSpread() async throws {
        let mock = HTTPMock()
        let body = String(repeating: "abcdefghij", count: 20)
        mock.addResponses(forPath: "/d", host: "a.test") { MockResponse.plaintext(body).dribbled(inChunks: 4, over: 0.4) }
        let clock = ContinuousClock()
        let start = clock.now
        let dribbled = try await mock.fetch("https://a.test/d").text
        #expect(dribbled == body, "got \(dribbled.count) bytes: \(dribbled.prefix(80))")
        #expect(clock.now - start >= .milliseconds(380))
    }

    @Test func aStubFileRegistersItsStubs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"from": "file"}"#.utf8).write(to: directory.appendingPathComponent("user.json"))
        let file = directory.appendingPathComponent("stubs.json")
        try Data(#"""
            {"stubs": [
              {"host": "api.example.com", "path": "/users/*", "method": "GET",
               "responses": [{"json": {"id": 1}, "headers": {"X-Env": "file"}}, {"file": "user.json"}, {"status": 503, "body": "down", "lifetime": 2}]},
              {"path": "/search", "query": {"tag": ["a", "b"]}, "queryMatching": "contains", "responses": [{"body": "tags", "lifetime": "eternal"}]},
              {"path": "/reset", "responses": [{"fault": "connectionReset"}]}
            ]}
            """#.utf8).write(to: file)
        let mock = HTTPMock()
        #expect(mock.registerStubs(try StubFile(contentsOf: file)).isEmpty)

        let first = try await mock.fetch("https://api.example.com/users/1")
        #expect(first.text == #"{"id":1}"# && first.header("Content-Type") == "application/json" && first.header("X-Env") == "file")
        #expect(try await mock.fetch("https://api.example.com/users/1").text == #"{"from": "file"}"#)
        #expect(try await mock.texts("https://api.example.com/users/1", count: 2) == ["down", "down"])
        #expect(try await mock.fetch("https://api.example.com/users/1").status == 404)
        #expect(try await mock.fetch("https://api.example.com/users/1", method: "POST").status == 404)
        #expect(try await mock.fetch("https://any.host.test/search?tag=b&tag=a&x=1").text == "tags")
        #expect(await urlError { _ = try await mock.fetch("https://x.test/reset") }?.code == .networkConnectionLost)
    }

    @Test func aMissingStubFileSaysSo() {
        #expect {
            _ = try StubFile(contentsOf: URL(fileURLWithPath: "/nonexistent/stubs.json"))
        } throws: { error in
            "\(error)".hasPrefix("/nonexistent/stubs.json: cannot be read")
        }
    }
}
