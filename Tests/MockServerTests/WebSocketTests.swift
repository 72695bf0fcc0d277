import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPMockTesting
import MockServer
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Testing
import WebSocketKit
import WebSocketTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension WebSocketTestClient {
    /// Connects to `url` on these tests' event loops.
    static func connect(_ url: String, proxyPort: Int? = nil, configuration: WebSocketClient.Configuration = .init()) async throws -> WebSocketTestClient {
        try await connect(url, proxyPort: proxyPort, configuration: configuration, on: testEventLoops)
    }
}

/// WebSocket stubs through the real path: websocket-kit connects to MockServer (directly and
/// through a `CONNECT` tunnel), plays a script, receives pushes and close codes; the journal keeps
/// every frame.
struct WebSocketTests {
    static let chat: WebSocketScript = [
        .send(.text("welcome")),
        .expect(.text(matching: "hello*")),
        .send(.text("hi")),
        .echo(count: 2),
        .close(code: 4000, reason: "bye"),
    ]

    @Test func aWebSocketKitClientPlaysTheScriptedConversation() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("**") { Path("/chat") { MockResponse.webSocket(Self.chat) } } }
        try await withServer(mock) { server in
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/chat")
            #expect(await client.next() == .text("welcome"))
            // A message the script does not wait for is passed over.
            try await client.send("not yet")
            try await client.send("hello there")
            #expect(await client.next() == .text("hi"))
            try await client.send("one")
            #expect(await client.next() == .text("one"))
            try await client.send("two")
            #expect(await client.next() == .text("two"))
            // The close code reaches the client.
            #expect(try await client.closed() == .unknown(4000))
            #expect(await client.next() == nil)

            let opening = try #require(mock.requests(matching: .path("/chat")).first)
            #expect(opening.response?.status == 101)
            #expect(opening.webSocketMessagesFromClient == [.text("not yet"), .text("hello there"), .text("one"), .text("two")])
            let frames = opening.webSocketFrames
            #expect(frames.first == RecordedWebSocketFrame(direction: .toClient, content: .message(.text("welcome")), date: frames.first?.date ?? Date()))
            #expect(frames.contains { $0.direction == .toClient && $0.content == .close(code: 4000, reason: "bye") })
            // Every frame has its time, in order.
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.date <= $1.date })
            #expect(frames.allSatisfy { $0.date >= opening.date })
            // verify what the client sent.
            #expect(mock.verify(.path("/chat") && .webSocketMessageFromClient(.text(matching: "hello*")), .exactly(1)))
            #expect(mock.requests(matching: .webSocketMessageFromClient(.text("goodbye"))).isEmpty)
        }
    }

    @Test func aStubFilesWaitHoldsBackTheStepsAfterItAndWhatTheClientSetsOffMeanwhile() async throws {
        let json = #"{"stubs": [{"path": "/slow", "responses": [{"webSocket": {"script": [{"send": "first"}, {"wait": 0.3}, {"send": "second"}, {"echo": "untilClosed"}]}}]}]}"#
        let file = try StubFile(data: Data(json.utf8), source: "wait.json", baseDirectory: URL(fileURLWithPath: "/"))
        let mock = HTTPMock()
        #expect(mock.registerStubs(file).isEmpty)
        try await withServer(mock) { server in
            let connecting = Date()
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/slow")
            #expect(await client.next() == .text("first"))
            // Sent during the wait: its echo goes out after "second", which the wait holds back.
            try await client.send("meanwhile")
            #expect(await client.next() == .text("second"))
            #expect(Date().timeIntervalSince(connecting) >= 0.3 - 0.002)
            #expect(await client.next() == .text("meanwhile"))
            try await client.socket.close(code: .normalClosure).get()
        }
    }

    @Test func aPushReachesEveryConnectionWhoseOpeningRequestMatchedAndNoOther() async throws {
        let mock = HTTPMock()
        let script: WebSocketScript = [.send(.text("ready")), .echoUntilClosed]
        mock.registerResponses {
            Host("**") {
                Path("/chat") { MockResponse.webSocket(script, lifetime: .eternal) }
                Path("/other") { MockResponse.webSocket(script, lifetime: .eternal) }
            }
        }
        try await withServer(mock) { server in
            let first = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/chat?room=a")
            let second = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/chat?room=b")
            let other = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/other")
            for client in [first, second, other] { #expect(await client.next() == .text("ready")) }
            #expect(server.webSockets.openRequests.count == 3)

            #expect(server.webSockets.send(.text("news"), toConnectionsMatching: .path("/chat")) == 2)
            #expect(await first.next() == .text("news"))
            #expect(await second.next() == .text("news"))
            // The other connection's next message is the one pushed to it, not "news".
            #expect(server.webSockets.send(.binary(Data([1, 2])), toConnectionsMatching: .path("/other")) == 1)
            #expect(await other.next() == .binary(Data([1, 2])))
            // Per-connection state: each echoes its own messages.
            try await first.send("from a")
            #expect(await first.next() == .text("from a"))

            #expect(server.webSockets.close(connectionsMatching: .query(["room": "b"]), code: 4001) == 1)
            #expect(try await second.closed() == .unknown(4001))
            for client in [first, other] { try await client.socket.close(code: .normalClosure).get() }
            let pushed = mock.requests(matching: .path("/chat")).map { $0.webSocketFrames.compactMap(\.message) }
            #expect(pushed.allSatisfy { $0.prefix(2) == [.text("ready"), .text("news")] })
        }
    }

    @Test func theAdminAPIPushesAndListsFrames() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("**") { Path("/feed") { MockResponse.webSocket([.send(.text("ready"))]) } } }
        try await withServer(mock) { server in
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/feed")
            #expect(await client.next() == .text("ready"))
            try await withClient { http in
                let base = "http://127.0.0.1:\(server.port)"
                let pushed = try await send(http, base + "/__admin/websockets/send", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"text": "breaking", "path": "/feed"}"#)
                #expect(pushed.status == 200)
                #expect(pushed.text.contains(#""sent" : 1"#))
                #expect(await client.next() == .text("breaking"))
                let none = try await send(http, base + "/__admin/websockets/send", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"text": "x", "path": "/elsewhere"}"#)
                #expect(none.text.contains(#""sent" : 0"#))
                let listed = try await send(http, base + "/__admin/websockets")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any])
                let open = try #require(object["webSockets"] as? [[String: Any]])
                #expect(open.count == 1)
                let frames = try #require(open.first?["frames"] as? [[String: Any]])
                #expect(frames.map { $0["data"] as? String } == ["ready", "breaking"])
                #expect(frames.map { $0["type"] as? String } == ["receive", "receive"])
                let bad = try await send(http, base + "/__admin/websockets/send", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"path": "/feed"}"#)
                #expect(bad.status == 400)
            }
            try await client.socket.close().get()
        }
    }

    /// `GET /__admin/websockets` shows frames as the journal's other views do: a secret-named
    /// field the client sent is hidden, and so is its value wherever else it comes back (the echo).
    @Test func theAdminAPIListsFramesWithTheirSecretsRedacted() async throws {
        let secret = "hunter2-frame-secret"
        let mock = HTTPMock()
        mock.registerResponses { Host("**") { Path("/login") { MockResponse.webSocket([.send(.text("ready")), .echoUntilClosed]) } } }
        try await withServer(mock) { server in
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/login")
            #expect(await client.next() == .text("ready"))
            try await client.send(#"{"user": "ann", "password": "\#(secret)"}"#)
            #expect(await client.next() == .text(#"{"user": "ann", "password": "\#(secret)"}"#), "the client gets the echo as sent")
            try await withClient { http in
                let listed = try await send(http, "http://127.0.0.1:\(server.port)/__admin/websockets")
                #expect(!listed.text.contains(secret), "\(listed.text)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any])
                let frames = try #require((object["webSockets"] as? [[String: Any]])?.first?["frames"] as? [[String: Any]])
                #expect(frames.map { $0["data"] as? String } == ["ready", #"{"user": "ann", "password": "[REDACTED]"}"#, #"{"user": "ann", "password": "[REDACTED]"}"#])
            }
            try await client.socket.close().get()
        }
    }

    /// The journal keeps a conversation's frames up to the per-body limit and counts the rest
    /// (`webSocketFramesDropped`, `"framesDropped"` in the admin API); the client gets them all.
    @Test func theJournalKeepsAConversationsFramesUpToTheBodyLimitAndCountsTheRest() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("**") { Path("/feed") { MockResponse.webSocket([.send(.text("ready")), .echoUntilClosed]) } } }
        // "ready" (5 bytes) and the first message (10) fit in 16 bytes; nothing after them does.
        mock.journalCapacity = JournalCapacity(entries: 10, bodyBytes: 16)
        try await withServer(mock) { server in
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/feed")
            #expect(await client.next() == .text("ready"))
            for message in ["0123456789", "abcdefghij"] {
                try await client.send(message)
                #expect(await client.next() == .text(message), "the client gets every frame")
            }
            let entry = try #require(mock.requests(matching: .path("/feed")).first)
            #expect(entry.webSocketFrames.compactMap(\.message) == [.text("ready"), .text("0123456789")])
            #expect(entry.webSocketFramesDropped == 3)
            try await withClient { http in
                let listed = try await send(http, "http://127.0.0.1:\(server.port)/__admin/websockets")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any])
                let open = try #require((object["webSockets"] as? [[String: Any]])?.first)
                #expect(open["framesDropped"] as? Int == 3)
                #expect((open["frames"] as? [[String: Any]])?.count == 2)
            }
            try await client.socket.close().get()
        }
    }

    /// Frames count toward the journal's byte limit: a long conversation pushes older entries out
    /// (the newest entry always stays).
    @Test func framesCountTowardTheJournalsByteLimit() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") {
                Path("/ping") { MockResponse.plaintext("pong", lifetime: .eternal) }
                Path("/feed") { MockResponse.webSocket([.send(.text("ready")), .echoUntilClosed]) }
            }
        }
        mock.journalCapacity = JournalCapacity(entries: 10, bytes: 40)
        try await withServer(mock) { server in
            #expect(try await rawExchange(port: server.port, "GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").hasSuffix("pong"))
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/feed")
            #expect(await client.next() == .text("ready"))
            #expect(mock.requests.map(\.path) == ["/ping", "/feed"], "5 + 4 bytes so far")
            let message = String(repeating: "x", count: 20)
            try await client.send(message)
            #expect(await client.next() == .text(message))
            // "ready", the message and its echo: 45 bytes of frames, over 40 with "pong".
            #expect(mock.requests.map(\.path) == ["/feed"])
            #expect(mock.droppedRequestCount == 1)
            #expect(mock.requests.first?.webSocketFrames.count == 3, "the newest entry keeps its frames")
            try await client.socket.close().get()
        }
    }

    /// websocket-kit sends a `ws://` URL through an HTTP proxy in absolute form (`GET ws://host/chat`).
    @Test func aWebSocketThroughTheServerAsAnHTTPProxyReachesTheHostsStub() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("chat.example.test") { Path("/chat") { MockResponse.webSocket(Self.chat) } } }
        try await withServer(mock) { server in
            let client = try await WebSocketTestClient.connect("ws://chat.example.test/chat", proxyPort: server.port)
            #expect(await client.next() == .text("welcome"))
            try await client.send("hello")
            #expect(await client.next() == .text("hi"))
            try await client.send("a")
            #expect(await client.next() == .text("a"))
            try await client.send("b")
            #expect(await client.next() == .text("b"))
            #expect(try await client.closed() == .unknown(4000))
            #expect(mock.requests.map(\.host) == ["chat.example.test"])
        }
    }

    /// The handshake and frames inside a `CONNECT` tunnel, byte by byte (websocket-kit tunnels only `wss`).
    @Test func aWebSocketInsideACONNECTTunnelUpgradesAndPlaysItsScript() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("chat.example.test") { Path("/chat") { MockResponse.webSocket([.send(.text("welcome")), .close(code: 4002)]) } } }
        try await withServer(mock) { server in
            try await withRawConnection(to: server) { connection in
                try await connection.send("CONNECT chat.example.test:80 HTTP/1.1\r\nHost: chat.example.test:80\r\n\r\n")
                await connection.read { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
                #expect(connection.text.hasPrefix("HTTP/1.1 200 Connection Established\r\n"), "\(connection.text)")
                let established = connection.received.count
                try await connection.send(
                    "GET /chat HTTP/1.1\r\nHost: chat.example.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                )
                // The 101 (with RFC 6455's accept value for that key), "welcome", then the close frame with 4002.
                let expectedFrames: [UInt8] = [0x81, 7] + Array("welcome".utf8) + [0x88, 2, 0x0F, 0xA2]
                await connection.read { bytes in
                    bytes.count > established && String(decoding: bytes[established...], as: UTF8.self).contains("\r\n\r\n")
                        && bytes.reversed().starts(with: expectedFrames.reversed())
                }
                let answer = String(decoding: connection.received[established...], as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"), "\(answer)")
                #expect(answer.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "\(answer)")
                #expect(connection.received.reversed().starts(with: expectedFrames.reversed()), "\(connection.received)")
            }
            #expect(mock.requests.map(\.url) == ["http://chat.example.test/chat"])
        }
    }

    @Test func aPlainRequestToAWebSocketStubGets400SayingWhy() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("**") { Path("/chat") { MockResponse.webSocket(Self.chat) } } }
        try await withServer(mock) { server in
            try await withClient { client in
                let response = try await send(client, "http://127.0.0.1:\(server.port)/chat")
                #expect(response.status == 400)
                #expect(response.text.contains("is a WebSocket stub"), "\(response.text)")
                #expect(response.text.contains("Upgrade: websocket"), "\(response.text)")
            }
        }
    }

    @Test func aClientCloseIsAnsweredWithItsCodeAndRecorded() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("**") { Path("/chat") { MockResponse.webSocket([.echoUntilClosed]) } } }
        try await withServer(mock) { server in
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/chat")
            try await client.send("ping")
            #expect(await client.next() == .text("ping"))
            try await client.socket.close(code: .unknown(4100)).get()
            // The server answers with the client's code, then closes.
            try await client.socket.onClose.get()
            let frames = try #require(mock.requests.first).webSocketFrames
            #expect(frames.contains { $0.direction == .fromClient && $0.content == .close(code: 4100, reason: "") }, "\(frames)")
            #expect(frames.last?.direction == .toClient && frames.last?.content == .close(code: 4100, reason: ""), "\(frames)")
        }
    }
}

/// What HTTPMock (a URLProtocol) does with a WebSocket stub: fails, saying to use MockServer.
struct WebSocketInProcessTests {
    @Test func httpMockAnswersAWebSocketStubWithAnErrorThatNamesMockServer() async throws {
        let mock = HTTPMock()
        mock.registerResponses { Host("api.example.com") { Path("/chat") { MockResponse.webSocket([.echoUntilClosed]) } } }
        let error = await #expect(throws: URLError.self) {
            _ = try await mock.urlSession.data(from: URL(string: "https://api.example.com/chat")!)
        }
        #expect("\(error.map { $0.localizedDescription } ?? "")".contains("MockServer"), "\(String(describing: error))")
        guard case .failure(.webSocketNeedsServer)? = mock.requests.first?.response?.outcome else {
            Issue.record("the journal should say a WebSocket needs a server: \(String(describing: mock.requests.first?.response?.outcome))")
            return
        }
    }
}

/// PyPI's `websockets` (a client no one here wrote, driven by `Tests/Tools/websocket_client.py`)
/// runs the WebSockets article's conversation against `airlock serve` serving its stub file.
struct WebSocketPyPIClientTests {
    static let stubFile = """
        {"stubs": [{"path": "/chat", "responses": [{"webSocket": {"script": [
            {"send": "welcome"}, {"expect": "hello*"}, {"send": "hi"}, {"echo": 2}, {"close": 4000, "reason": "bye"}
        ]}, "lifetime": "eternal"}]}]}
        """

    @Test func thePyPIWebsocketsClientTalksToAirlockServe() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-ws-\(UUID().uuidString).json")
        try Data(Self.stubFile.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let airlock = try LaunchedAirlock(["serve", file.path, "--port", "0", "--quiet"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        let url = base.replacingOccurrences(of: "http://", with: "ws://") + "/chat"
        let run = try await ToolScriptRun.run(["chat", "--url", url], script: "websocket_client.py")
        run.expectSuccess()
        #expect(run.lines.contains { $0.contains("\"checks\": 6") }, "\(run.lines.suffix(5))")
    }
}

#if HTTPS
import MockServerHTTPClient

/// `wss://` through the real path: websocket-kit with certificate verification on, trusting the
/// server's CA, in origin mode and through a `CONNECT` tunnel whose TLS the server ends.
struct WebSocketTLSTests {
    @Test(arguments: [false, true])
    func aWebSocketKitClientPlaysTheScriptOverTLS(throughATunnel: Bool) async throws {
        try await TLSTests.withCAFolder { folder in
            let mock = HTTPMock()
            mock.registerResponses { Host("**") { Path("/chat") { MockResponse.webSocket(WebSocketTests.chat) } } }
            try await withServer(mock, configuration: .init(tls: .init(certificateAuthorityDirectory: folder))) { server in
                let tls = try #require(server.httpClientConfiguration().tlsConfiguration)
                let configuration = WebSocketClient.Configuration(tlsConfiguration: tls)
                let client = throughATunnel
                    ? try await WebSocketTestClient.connect("wss://chat.example.test/chat", proxyPort: server.port, configuration: configuration)
                    : try await WebSocketTestClient.connect("wss://127.0.0.1:\(server.port)/chat", configuration: configuration)
                #expect(await client.next() == .text("welcome"))
                try await client.send("hello")
                #expect(await client.next() == .text("hi"))
                try await client.send("a")
                #expect(await client.next() == .text("a"))
                try await client.send("b")
                #expect(await client.next() == .text("b"))
                #expect(try await client.closed() == .unknown(4000))
                // websocket-kit's Host names no port: the URL is as the client addressed it.
                let url = try #require(mock.requests.first?.url)
                #expect(url == (throughATunnel ? "https://chat.example.test/chat" : "https://127.0.0.1/chat"))
            }
        }
    }
}
#endif
