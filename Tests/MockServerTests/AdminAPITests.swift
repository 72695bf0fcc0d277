import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOHTTP1
import Testing
import WebSocketTestSupport

struct AdminAPITests {
    @Test func stubsRequestsAndResetRoundTrip() async throws {
        let mock = HTTPMock()
        try await withServer(mock) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let added = try await send(client, "\(base)/__admin/stubs", method: .POST, headers: [("Content-Type", "application/json")], body: #"""
                    {"stubs": [{"path": "/hello", "method": "GET", "responses": [{"status": 200, "body": "hi", "lifetime": "eternal"}]}]}
                    """#)
                #expect(added.status == 201)
                #expect(added.text.contains(#""added" : 1"#))

                let listed = try await send(client, "\(base)/__admin/stubs")
                let stubs = try #require(try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any])["stubs"] as? [[String: Any]]
                #expect(stubs?.first?["path"] as? String == "/hello")
                #expect(stubs?.first?["host"] as? String == "**")

                #expect(try await send(client, "\(base)/hello").text == "hi")
                #expect(try await send(client, "\(base)/helo", headers: [("Authorization", "Bearer secret")]).status == 404)

                let journal = try await send(client, "\(base)/__admin/requests")
                let requests = try #require(try JSONSerialization.jsonObject(with: Data(journal.text.utf8)) as? [String: Any])["requests"] as? [[String: Any]]
                // Newest first, as WireMock lists the journal.
                #expect(requests?.map { $0["url"] as? String } == ["\(base)/helo", "\(base)/hello"])
                #expect(requests?.map { $0["status"] as? Int } == [404, 200])
                #expect(!journal.text.contains("Bearer secret"))

                let unmatched = try await send(client, "\(base)/__admin/requests/unmatched")
                let entries = try #require(try JSONSerialization.jsonObject(with: Data(unmatched.text.utf8)) as? [String: Any])["requests"] as? [[String: Any]]
                #expect(entries?.count == 1)
                let diagnostic = try #require(entries?.first?["diagnostic"] as? String)
                #expect(diagnostic.contains("Nearest registered stubs:"))
                #expect(diagnostic.contains("path ✗ /hello vs /helo"))

                #expect(try await send(client, "\(base)/__admin/stubs", method: .DELETE).status == 200)
                #expect(try await send(client, "\(base)/hello").status == 404)
                #expect(try await send(client, "\(base)/__admin/reset", method: .POST, headers: [("Content-Type", "application/json")]).status == 200)
                #expect(mock.requests.isEmpty)
            }
        }
    }

    /// Streams and WebSockets added over HTTP, as another process would: events (a `POST`),
    /// NDJSON parts and a WebSocket script, each read as a client reads it. Parts may merge on a
    /// loaded machine (a client reads late); when they arrive apart, each is its own and no part
    /// comes before its pauses have passed.
    @Test func streamAndWebSocketStubsAddedOverTheAdminAPIAreServedPartByPart() async throws {
        let mock = HTTPMock()
        try await withServer(mock) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let added = try await send(client, "\(base)/__admin/stubs", method: .POST, headers: [("Content-Type", "application/json")], body: #"""
                    {"stubs": [
                      {"path": "/v1/chat/completions", "method": "POST", "responses": [{"events": [
                        {"data": {"delta": "Hel"}, "id": "1"},
                        {"data": {"delta": "lo"}, "id": "2", "event": "delta", "delay": 0.2},
                        {"data": "[DONE]", "retry": 1500, "delay": 0.2}
                      ]}]},
                      {"path": "/api/generate", "responses": [{"headers": {"Content-Type": "application/x-ndjson"}, "parts": [
                        {"json": {"response": "Hel"}},
                        {"text": "{\"response\":\"lo\",\"done\":true}\n", "delay": 0.2}
                      ]}]},
                      {"path": "/chat", "responses": [{"webSocket": {"script": [
                        {"send": "welcome"}, {"expect": "hello*"}, {"send": "hi"}, {"echo": 1}, {"close": 4000, "reason": "bye"}
                      ]}}]}
                    ]}
                    """#)
                #expect(added.status == 201, "\(added.text)")
                #expect(added.text.contains(#""added" : 3"#))

                let events = try await readStream(client, "\(base)/v1/chat/completions", method: .POST, body: #"{"stream":true}"#)
                let expectedEvents = [
                    "id: 1\ndata: {\"delta\":\"Hel\"}\n\n",
                    "event: delta\nid: 2\ndata: {\"delta\":\"lo\"}\n\n",
                    "retry: 1500\ndata: [DONE]\n\n",
                ]
                #expect(events.status == 200)
                #expect(events.headers["Content-Type"] == ["text/event-stream"])
                #expect(events.headers["Content-Length"].isEmpty)
                #expect(events.text == expectedEvents.joined())
                if events.parts.count == expectedEvents.count {
                    #expect(events.parts.map(\.text) == expectedEvents)
                    #expect(events.arrivals[1] >= 0.2)
                    #expect(events.arrivals[2] >= 0.4)
                }

                let lines = try await readStream(client, "\(base)/api/generate")
                let expectedLines = [#"{"response":"Hel"}"# + "\n", #"{"response":"lo","done":true}"# + "\n"]
                #expect(lines.headers["Content-Type"] == ["application/x-ndjson"])
                #expect(lines.headers["Content-Length"].isEmpty)
                #expect(lines.text == expectedLines.joined())
                if lines.parts.count == expectedLines.count {
                    #expect(lines.parts.map(\.text) == expectedLines)
                    #expect(lines.arrivals[1] >= 0.2)
                }
            }

            let chat = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/chat")
            #expect(await chat.next() == .text("welcome"))
            try await chat.send("hello there")
            #expect(await chat.next() == .text("hi"))
            try await chat.send("again")
            #expect(await chat.next() == .text("again"))
            #expect(try await chat.closed() == .unknown(4000))
            #expect(mock.requests(matching: .path("/chat")).first?.webSocketMessagesFromClient == [.text("hello there"), .text("again")])
        }
    }

    @Test func aMalformedStubIsRejectedWithItsFieldPath() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let answer = try await send(client, "\(server.baseURL.absoluteString)/__admin/stubs", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"stubs": [{"path": "/x", "responses": [{"status": "ok"}]}]}"#)
                #expect(answer.status == 400)
                #expect(answer.text.contains("stubs[0].responses[0].status: has the wrong type; expected an integer"))
            }
        }
    }

    /// A field of the wrong type is a `400` naming its path, never a default: the admin API reads
    /// stubs as `airlock serve` reads a stub file.
    @Test func aFieldOfTheWrongTypeIsRejectedWithItsPathNotDefaulted() async throws {
        let cases = [
            (#"{"status": "ok"}"#, "stubs[0].responses[0].status: has the wrong type; expected an integer"),
            (#"{"delay": "1"}"#, "stubs[0].responses[0].delay: has the wrong type; expected a number"),
            (#"{"lifetime": 1.5}"#, "stubs[0].responses[0].lifetime: has the wrong type; expected an integer"),
            (#"{"headers": {"X-A": 1}}"#, "stubs[0].responses[0].headers.X-A: has the wrong type; expected a string"),
            (#"{"dribble": {"chunks": "4", "seconds": 1}}"#, "stubs[0].responses[0].dribble.chunks: has the wrong type; expected an integer"),
        ]
        let mock = HTTPMock()
        try await withServer(mock) { server in
            try await withClient { client in
                for (response, message) in cases {
                    let stub = #"{"stubs": [{"path": "/x", "query": {"a": "1"}, "responses": [\#(response)]}]}"#
                    let answer = try await send(client, "\(server.baseURL.absoluteString)/__admin/stubs", method: .POST, headers: [("Content-Type", "application/json")], body: stub)
                    #expect(answer.status == 400, "\(response)")
                    let error = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
                    #expect(error?["error"] as? String == "request body, \(message)")
                }
                let query = try await send(client, "\(server.baseURL.absoluteString)/__admin/stubs", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"path": "/x", "query": {"a": 1}, "responses": [{}]}"#)
                #expect(query.text.contains("query.a: has the wrong type; expected a string or an array of strings"), "\(query.text)")
            }
        }
        #expect(mock.unusedStubs.isEmpty, "no rejected stub was registered")
    }

    @Test func aTokenGuardsTheAdminAPIWhenSet() async throws {
        try await withServer(HTTPMock(), configuration: .init(adminToken: "t0ken")) { server in
            try await withClient { client in
                let url = "\(server.baseURL.absoluteString)/__admin/stubs"
                let refused = try await send(client, url)
                let allowed = try await send(client, url, headers: [("Authorization", "Bearer t0ken")])
                #expect(refused.status == 401)
                #expect(allowed.status == 200)
            }
        }
    }

    @Test func theJournalSaysHowManyRequestsItDropped() async throws {
        let mock = HTTPMock()
        mock.journalCapacity = JournalCapacity(entries: 1)
        try await withServer(mock) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                for path in ["/a", "/b", "/c"] { _ = try await send(client, base + path) }
                let page = try #require(try JSONSerialization.jsonObject(with: Data(try await send(client, "\(base)/__admin/requests").text.utf8)) as? [String: Any])
                #expect(page["total"] as? Int == 3)
                #expect(page["dropped"] as? Int == 2)
                #expect((page["requests"] as? [[String: Any]])?.count == 1)
            }
        }
    }
}
