import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The journal records every request, and the complete body however it travelled.
struct JournalTests {
    static let json = #"{"name":"Alice","roles":["admin"]}"#

    private func postRequest(_ url: String = "https://api.example.com/users") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        return request
    }

    private func mockAcceptingAlice() -> HTTPMock {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "api.example.com", requiring: .post && .json(#"{ "roles": ["admin"], "name": "Alice" }"#)) {
            MockResponse.empty(status: .created, lifetime: .eternal)
        }
        return mock
    }

    private func expectAliceRecorded(_ mock: HTTPMock, status: Int?) throws {
        let recorded = try #require(mock.requests.first)
        #expect(status == 201, "the JSON body must have reached the matcher")
        #expect(recorded.method == "POST")
        #expect(recorded.url == "https://api.example.com/users")
        #expect(recorded.bodyText == Self.json)
        #expect(recorded.header("content-type") == "application/json")
        #expect(recorded.stub?.contains(#"path "/users""#) == true)
        #expect(recorded.response?.status == 201)
    }

    @Test func aJSONPostBodySentAsHTTPBodyIsRecorded() async throws {
        let mock = mockAcceptingAlice()
        var request = postRequest()
        request.httpBody = Data(Self.json.utf8)
        let (_, response) = try await mock.urlSession.boundedData(for: request)
        try expectAliceRecorded(mock, status: (response as? HTTPURLResponse)?.statusCode)
    }

    @Test func aJSONPostBodySentAsAStreamIsRecorded() async throws {
        let mock = mockAcceptingAlice()
        var request = postRequest()
        request.httpBodyStream = InputStream(data: Data(Self.json.utf8))
        let (_, response) = try await mock.urlSession.boundedData(for: request)
        try expectAliceRecorded(mock, status: (response as? HTTPURLResponse)?.statusCode)
    }

    @Test func aJSONPostBodySentAsAnUploadIsRecorded() async throws {
        let mock = mockAcceptingAlice()
        let (_, response) = try await mock.urlSession.boundedUpload(for: postRequest(), from: Data(Self.json.utf8))
        try expectAliceRecorded(mock, status: (response as? HTTPURLResponse)?.statusCode)
    }

    @Test func aJSONPostBodyUploadedFromAFileIsRecorded() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-upload-\(UUID().uuidString).json")
        try Data(Self.json.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let mock = mockAcceptingAlice()
        let (_, response) = try await mock.urlSession.boundedUpload(for: postRequest(), fromFile: file)
        try expectAliceRecorded(mock, status: (response as? HTTPURLResponse)?.statusCode)
    }

    @Test func aStreamedBodyStillReachesTheNetworkOnPassthrough() async throws {
        try await LoopbackServer.with { server in
            let mock = HTTPMock()
            mock.unmockedPolicy = .passthrough
            var request = URLRequest(url: URL(string: server.url("/echo"))!)
            request.httpMethod = "PUT"
            request.httpBodyStream = InputStream(data: Data("streamed".utf8))
            let (data, _) = try await mock.urlSession.boundedData(for: request)
            #expect(String(decoding: data, as: UTF8.self) == "real PUT /echo body=streamed")
            #expect(mock.requests.first?.bodyText == "streamed")
            #expect(mock.requests.first?.response?.status == 200)
        }
    }

    @Test func everyRequestIsRecordedInOrderMatchedOrNot() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/a", host: "a.test") { MockResponse.plaintext("a") }
        _ = try await mock.fetch("https://a.test/a?x=1", headers: ["X-Trace": "t1"])
        _ = try await mock.fetch("https://a.test/missing", method: "DELETE")
        let requests = mock.requests
        #expect(requests.map(\.sequence) == [1, 2])
        #expect(requests.map(\.method) == ["GET", "DELETE"])
        #expect(requests[0].queryItems == [.init(name: "x", value: "1")])
        #expect(requests[0].header("X-Trace") == "t1")
        #expect(requests[0].wasMatched)
        #expect(!requests[1].wasMatched)
        #expect(requests[1].response?.status == 404)
        #expect(mock.unmatchedRequests.map(\.path) == ["/missing"])
        mock.clearRequests()
        #expect(mock.requests.isEmpty)
    }

    @Test func recordingNeverLosesARequestUnderConcurrency() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/n/*", host: "a.test") { MockResponse.plaintext("n", lifetime: .eternal) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask { _ = try await mock.fetch("https://a.test/n/\(index)") }
            }
            try await group.waitForAll()
        }
        let requests = mock.requests
        #expect(requests.count == 300)
        #expect(requests.map(\.sequence) == Array(1...300))
        #expect(Set(requests.map(\.path)) == Set((0..<300).map { "/n/\($0)" }))
    }

    @Test func redactedRequestsHideCredentials() async throws {
        let mock = HTTPMock()
        var request = postRequest("https://api.example.com/users?access_token=abc&page=2")
        request.setValue("k-123", forHTTPHeaderField: "X-API-Key")
        request.httpBody = Data(#"{"name":"Alice","password":"hunter2"}"#.utf8)
        _ = try await mock.urlSession.boundedData(for: request)
        let raw = try #require(mock.requests.first)
        #expect(raw.header("Authorization") == "Bearer secret-token")
        let shown = try #require(mock.redactedRequests.first)
        #expect(shown.header("Authorization") == "[REDACTED]")
        #expect(shown.header("X-API-Key") == "[REDACTED]")
        #expect(shown.url == "https://api.example.com/users?access_token=%5BREDACTED%5D&page=2")
        #expect(shown.bodyText == #"{"name":"Alice","password":"[REDACTED]"}"#)
    }
}
