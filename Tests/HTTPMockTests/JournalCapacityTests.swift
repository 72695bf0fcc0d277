import AirlockBase
import HTTPTestSupport
import Foundation
import HTTPMock
import HTTPMockTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The journal keeps what its capacity allows, drops the oldest first, and keeps exact counts.
struct JournalCapacityTests {
    private func get(_ mock: HTTPMock, _ path: String, body: String? = nil) async throws {
        _ = try await status(mock, path, body: body)
    }

    @Test func theOldestEntriesGoFirstAndCountsStayExact() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/n/*", host: "api.example.com") { MockResponse.plaintext("ok", lifetime: .eternal) }
        mock.journalCapacity = JournalCapacity(entries: 3)
        for index in 1...5 { try await get(mock, "/n/\(index)") }
        #expect(mock.requests.map(\.path) == ["/n/3", "/n/4", "/n/5"])
        #expect(mock.requests.map(\.sequence) == [3, 4, 5])
        #expect(mock.requests.allSatisfy { $0.response?.status == 200 }, "outcomes land on the kept entries")
        #expect(mock.requestCount == 5)
        #expect(mock.droppedRequestCount == 2)

        let captured = Locked("")
        withKnownIssue {
            mock.verify(.path("/n/1"), .exactly(1))
        } matching: { issue in
            captured.withLock { $0 = "\(issue)" }
            return true
        }
        let message = captured.withLock { $0 }
        #expect(message.contains("the journal dropped the 2 oldest of 5 requests"), "\(message)")

        mock.clearRequests()
        #expect(mock.requestCount == 0 && mock.droppedRequestCount == 0 && mock.requests.isEmpty)
    }

    @Test func bodiesAboveTheLimitKeepAPrefixTheirLengthAndADigest() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/upload", host: "api.example.com") { MockResponse.empty(status: .created, lifetime: .eternal) }
        mock.journalCapacity = JournalCapacity(entries: 10, bytes: 20, bodyBytes: 8)
        try await get(mock, "/upload", body: "0123456789abcdef")
        try await get(mock, "/upload", body: "0123456789ABCDEF")
        try await get(mock, "/upload", body: "short")
        let kept = mock.requests
        #expect(kept.count == 2, "20 bytes hold the last two (8 + 5); the first went")
        #expect(kept[0].body == Data("01234567".utf8))
        #expect(kept[0].bodySize == 16)
        let digest = try #require(kept[0].bodyDigest)
        #expect(digest.count >= 8)
        #expect(kept[1].bodyText == "short" && kept[1].bodyDigest == nil && kept[1].bodySize == 5)
        #expect(mock.droppedRequestCount == 1)
    }

    /// Response bodies count toward the byte limit, and a stream's twice: its parts are kept
    /// beside its body.
    @Test func responseBodiesAndStreamsCountTowardTheByteLimit() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/text", host: "api.example.com") { MockResponse.plaintext(String(repeating: "t", count: 30), lifetime: .eternal) }
        mock.addResponses(forPath: "/stream", host: "api.example.com") {
            MockResponse.stream([StreamPart(String(repeating: "a", count: 10)), StreamPart(String(repeating: "b", count: 10))], lifetime: .eternal)
        }
        mock.journalCapacity = JournalCapacity(entries: 10, bytes: 100)
        try await get(mock, "/text")
        try await get(mock, "/text")
        try await get(mock, "/text")
        #expect(mock.requests.count == 3, "90 bytes of response bodies fit in 100")
        // A stream of 20 bytes holds 40: its body and its parts.
        try await get(mock, "/stream")
        #expect(mock.requests.map(\.path) == ["/text", "/text", "/stream"], "130 bytes: the oldest went")
        try await get(mock, "/stream")
        #expect(mock.requests.map(\.path) == ["/stream", "/stream"], "140 bytes, then 110: the two oldest went")
        #expect(mock.requests.last?.response?.stream?.parts.count == 2)
        #expect(mock.droppedRequestCount == 3)
    }

    @Test func aJournalThatIsOffCountsOnlyAndStubsStillAnswer() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "api.example.com") { MockResponse.plaintext("ok", lifetime: .eternal) }
        mock.journalCapacity = .off
        for _ in 0..<4 { try await get(mock, "/x") }
        #expect(mock.requests.isEmpty)
        #expect(mock.requestCount == 4)
        #expect(mock.unusedStubs.isEmpty)
    }

    @Test func aJournalThatIsOffStillLetsAStubCheckTheRequest() async throws {
        // The entry a stub's condition looks at is made for it even when the journal keeps none.
        let json = #"{ "stubs": [ { "host": "api.example.com", "path": "/orders", "method": "POST", "responses": [ { "body": "created", "lifetime": "eternal" } ] } ] }"#
        let mock = HTTPMock()
        mock.journalCapacity = .off
        #expect(mock.registerStubs(try StubFile(data: Data(json.utf8), source: "orders.json", baseDirectory: URL(fileURLWithPath: "/tmp"))).isEmpty)
        let post = try await status(mock, "/orders", body: "{}")
        let get = try await status(mock, "/orders")
        #expect(post == 200)
        #expect(get == 404)
        #expect(mock.requests.isEmpty)
        #expect(mock.requestCount == 2)
    }

    /// Sends a GET (a POST with `body`) to `api.example.com` and returns the status.
    @discardableResult
    private func status(_ mock: HTTPMock, _ path: String, body: String? = nil) async throws -> Int? {
        var request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
        if let body {
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
        }
        return (try await mock.urlSession.boundedData(for: request).1 as? HTTPURLResponse)?.statusCode
    }

    @Test func aCassetteRecordsEvenWhenTheJournalKeepsNothing() async throws {
        try await LoopbackServer.with { server in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-off-\(UUID().uuidString).har")
            defer { try? FileManager.default.removeItem(at: file) }
            let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
            let mock = HTTPMock(cassette: cassette)
            mock.journalCapacity = .off
            _ = try await mock.urlSession.boundedData(for: URLRequest(url: URL(string: server.url("/a"))!))
            try cassette.save()
            #expect(try HTTPArchive(contentsOf: file).entries.map(\.path) == ["/a"])
        }
    }
}
