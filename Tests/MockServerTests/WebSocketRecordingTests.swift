import AirlockBase
import Foundation
import HTTPMock
import MockServer
import ProcessSupport
import Testing
import WebSocketKit
import WebSocketTestSupport

/// WebSocket conversations recorded live and replayed: relayed frame by frame to a real upstream
/// (PyPI `websockets`' server) through `airlock record` and through a recording `MockServer`,
/// written to the HAR as Chrome's `_webSocketMessages` with their secrets redacted, and replayed
/// by `airlock serve` and a `MockServer` to the same client, the server's messages no sooner than
/// their recorded pauses allow. Times are lower bounds only; every exchange is a conversation
/// (each answer follows the client's message), so a relay that held frames back would hang, not
/// pass.
@Suite struct WebSocketRecordingTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-ws-record")
    private var folder: URL { temporary.url }

    /// What the PyPI client (`websocket_client.py conversation`) received.
    struct Conversation {
        /// Each message: `text:…` or `binary:<base64>`, with the seconds since the client's last
        /// send or receive.
        let received: [(message: String, after: Double)]
        let closeCode: Int?
        let closeReason: String?
        let subprotocol: String?
    }

    /// Runs `Tests/Tools/websocket_upstream.py serve` (PyPI `websockets`' server, installed on
    /// first use) for `body`, and always stops it.
    private func withWebSocketUpstream(_ body: (Int) async throws -> Void) async throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", ToolScriptRun.tools.appendingPathComponent("websocket_upstream.py").path, "serve"]
        let output = Pipe()
        process.standardOutput = output
        let exit = try ChildProcess(running: process)
        defer { process.stop() }
        let lines = LineReader(output.fileHandleForReading)
        var seen: [String] = []
        var port: Int?
        while port == nil, let line = await lines.next() {
            seen.append(line)
            if line.hasPrefix("port ") { port = Int(line.dropFirst("port ".count)) }
        }
        try await body(try #require(port, "the upstream printed no port: \(seen.suffix(20))"))
        process.terminate()
        _ = await exit.status()
    }

    /// Runs the PyPI client's conversation against `url` (through the HTTP proxy `proxy`, if given).
    private func converse(_ url: String, token: String, proxy: String? = nil) async throws -> Conversation {
        let run = try await ToolScriptRun.run(["conversation", "--url", url, "--token", token] + (proxy.map { ["--proxy", $0] } ?? []), script: "websocket_client.py")
        run.expectSuccess()
        let result = try #require(run.resultLine.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, "\(run.lines.suffix(20))")
        let received = (result["received"] as? [[String: Any]] ?? []).map { message in
            let shown = (message["text"] as? String).map { "text:" + $0 } ?? "binary:" + (message["binary"] as? String ?? "")
            return (message: shown, after: message["after"] as? Double ?? -1)
        }
        let close = result["close"] as? [String: Any]
        return Conversation(received: received, closeCode: close?["code"] as? Int, closeReason: close?["reason"] as? String, subprotocol: result["subprotocol"] as? String)
    }

    /// The `_webSocketMessages` of a HAR file's only entry, and the entry.
    private func recordedMessages(_ file: String) throws -> (messages: [[String: Any]], entry: [String: Any]) {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        let entries = try #require((object?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        return (try #require(entry["_webSocketMessages"] as? [[String: Any]], "\(entry.keys.sorted())"), entry)
    }

    @Test func aConversationRecordedThroughTheCLIReplaysToTheSameClient() async throws {
        let cassette = folder.appendingPathComponent("chat.har").path
        let secret = "ws-secret-8831"
        var recorded: Conversation?
        try await withWebSocketUpstream { upstream in
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0"])
            defer { recorder.stopIfRunning() }
            let base = "ws://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            // Live: the upstream's answers, each after the client's message it answers.
            let live = try await converse(base + "/chat", token: secret)
            #expect(live.received.map(\.message) == [
                "text:welcome", "text:echo: hello", #"text:echo: {"type": "auth", "token": "\#(secret)"}"#,
                "binary:" + Data("echo: \u{10} ".utf8).base64EncodedString(), "binary:AAEC//4=", "text:late",
            ])
            #expect(live.closeCode == 4001 && live.closeReason == "done")
            #expect(live.subprotocol == "chat.v1", "the upstream's 101 reaches the client with the negotiated subprotocol")
            recorded = live
            let (status, printed) = await recorder.interrupt()
            #expect(status == 0)
            #expect(printed.last == "Airlock recorded 1 exchange(s); \(cassette) holds 1.", "\(printed)")
        }

        // The HAR: the 101 with its fields, every message and close both ways, the secret redacted.
        let file = try String(contentsOfFile: cassette, encoding: .utf8)
        #expect(!file.contains(secret), "the secret reached the cassette")
        let (messages, entry) = try recordedMessages(cassette)
        let response = try #require(entry["response"] as? [String: Any])
        #expect(response["status"] as? Int == 101)
        let fields = (response["headers"] as? [[String: String]] ?? []).map { ($0["name"]?.lowercased() ?? "", $0["value"] ?? "") }
        #expect(fields.contains { $0 == ("sec-websocket-protocol", "chat.v1") }, "\(fields)")
        #expect(!fields.contains { $0.0 == "sec-websocket-extensions" }, "no extension is negotiated through the relay")
        #expect((response["content"] as? [String: Any])?["text"] == nil)
        let shown = messages.map { "\($0["type"] as? String ?? "?") \($0["opcode"] as? Int ?? 0) \($0["data"] as? String ?? "?")" }
        #expect(shown == [
            "receive 1 welcome", "send 1 hello", "receive 1 echo: hello",
            #"send 1 {"type": "auth", "token": "[REDACTED]"}"#, #"receive 1 echo: {"type": "auth", "token": "[REDACTED]"}"#,
            "send 2 ECA=", "receive 2 " + Data("echo: \u{10} ".utf8).base64EncodedString(),
            "send 1 binary please", "receive 2 AAEC//4=", "send 1 slow", "receive 1 late", "send 1 bye",
            "receive 8 done", "send 8 done",
        ], "\(shown)")
        #expect(messages.filter { $0["opcode"] as? Int == 8 }.map { $0["code"] as? Int } == [4001, 4001])
        let times = messages.compactMap { $0["time"] as? Double }
        #expect(times.count == messages.count && zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        // Python reads the file as JSON, each message with Chrome's four fields.
        let python = TestProcess()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import json, sys
            messages = json.load(open(sys.argv[1], encoding="utf-8"))["log"]["entries"][0]["_webSocketMessages"]
            assert all(m["type"] in ("send", "receive") and isinstance(m["time"], float) and m["opcode"] in (1, 2, 8) and isinstance(m["data"], str) for m in messages)
            print(len(messages))
            """, cassette]
        let pythonOutput = Pipe()
        python.standardOutput = pythonOutput
        let pythonExit = try ChildProcess(running: python)
        let counted = LineReader(pythonOutput.fileHandleForReading)
        #expect(await counted.next() == "\(messages.count)")
        #expect(await pythonExit.status() == 0)

        // Replayed by `airlock serve` at the recorded pace: the same client gets the same frames
        // (the secret as redacted), the same subprotocol and close, and "late" no sooner than it
        // came after "slow" in the recording.
        let server = try LaunchedAirlock(["serve", cassette, "--port", "0", "--pace", "as-recorded"])
        defer { server.stopIfRunning() }
        let (_, base) = try await server.banner()
        let replayed = try await converse(base.replacingOccurrences(of: "http://", with: "ws://") + "/chat", token: "another-token")
        let live = try #require(recorded)
        var expected = live.received.map(\.message)
        expected[2] = #"text:echo: {"type": "auth", "token": "[REDACTED]"}"#
        #expect(replayed.received.map(\.message) == expected)
        #expect(replayed.closeCode == 4001 && replayed.closeReason == "done")
        #expect(replayed.subprotocol == "chat.v1")
        let slow = try #require(messages.firstIndex { $0["data"] as? String == "slow" })
        let pause = times[slow + 1] - times[slow]
        #expect(pause >= 0.25, "the upstream waited 0.3 s before \"late\": \(pause)")
        if let late = replayed.received.last, late.message == "text:late" {
            #expect(late.after >= pause - 0.002, "\"late\" came \(late.after) s after \"slow\"; recorded \(pause) s")
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
    }

    /// A conversation longer than the body limit is relayed whole, but not recorded: the relay
    /// stops keeping its frames at the limit, the cassette gets nothing, and the journal says why.
    @Test func aConversationOverTheBodyLimitIsRelayedWholeButNotRecorded() async throws {
        let file = folder.appendingPathComponent("over-limit.har")
        let upstreamMock = HTTPMock()
        upstreamMock.registerResponses {
            Host("**") { Path("/socket") { MockResponse.webSocket([.send(.text("ready")), .echo(count: 3), .close(code: 4002, reason: "enough")]) } }
        }
        try await withServer(upstreamMock) { upstream in
            let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
            var recording: MockServer?
            try await withRecordingServer(cassette, upstream: upstream, maxBodySize: 64) { recorder in
                recording = recorder
                let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(recorder.port)/socket")
                #expect(await client.next() == .text("ready"))
                for index in 1...3 {
                    let message = String(repeating: "\(index)", count: 20)
                    try await client.send(message)
                    #expect(await client.next() == .text(message), "every frame reaches the client")
                }
                #expect(try await client.closed() == .unknown(4002))
            }
            // The server has stopped, which ends every conversation.
            let entry = try #require(recording?.requests.first?.response)
            #expect(entry.outcome == .failure(.notRecorded(.webSocket, limit: 64)), "\(entry.error ?? "")")
            try cassette.save()
            #expect(cassette.recordedEntries.isEmpty)
        }
    }

    @Test func aRecordingMockServerRelaysAndRedactsAndAMockServerReplaysTheConversation() async throws {
        let secret = "in-process-ws-secret-2207"
        let file = folder.appendingPathComponent("in-process.har")
        let upstreamMock = HTTPMock()
        upstreamMock.registerResponses {
            Host("**") { Path("/socket") { MockResponse.webSocket([.send(.text("ready")), .echo(count: 2), .close(code: 4002, reason: "enough")]) } }
        }
        let token = #"{"type":"auth","token":"\#(secret)"}"#
        try await withServer(upstreamMock) { upstream in
            let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
            var configuration = MockServer.Configuration(upstream: upstream.baseURL)
            configuration.eventLoopGroup = testEventLoops
            let recorder = MockServer(cassette: cassette, configuration: configuration)
            try await withStarted(recorder) {
                let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(recorder.port)/socket")
                #expect(await client.next() == .text("ready"))
                try await client.send(token)
                #expect(await client.next() == .text(token), "the client gets the upstream's answer as sent")
                try await client.send("Bearer \(secret)")
                #expect(await client.next() == .text("Bearer \(secret)"))
                #expect(try await client.closed() == .unknown(4002))
                // The journal keeps the frames as they passed (it redacts when it shows them).
                let opening = try #require(recorder.requests.first)
                #expect(opening.response?.status == 101)
                #expect(opening.webSocketMessagesFromClient == [.text(token), .text("Bearer \(secret)")])
            }
            // The server has stopped, which ends every conversation: the cassette has this one.
            try cassette.save()

            // Recording again in newEpisodes mode, the conversation the file has is replayed,
            // not forwarded: the upstream sees no second WebSocket.
            let again = try Cassette(contentsOf: file, mode: .newEpisodes, environment: [:])
            let replaying = MockServer(cassette: again, configuration: configuration)
            try await withStarted(replaying) {
                let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(replaying.port)/socket")
                #expect(await client.next() == .text("ready"))
                try await client.send("one")
                #expect(await client.next() == .text(#"{"type":"auth","token":"[REDACTED]"}"#))
                try await client.send("two")
                #expect(await client.next() == .text("Bearer [REDACTED]"))
                #expect(try await client.closed() == .unknown(4002))
                #expect(upstreamMock.requests.count == 1, "the recorded conversation was forwarded again")
            }
            #expect(again.recordedEntries.isEmpty)
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains(secret), "the secret reached the cassette")
        let archive = try HTTPArchive(contentsOf: file)
        let entry = try #require(archive.entries.first)
        #expect(entry.response?.status == 101)
        #expect(entry.webSocketFrames.compactMap(\.message) == [
            .text("ready"), .text(#"{"type":"auth","token":"[REDACTED]"}"#), .text(#"{"type":"auth","token":"[REDACTED]"}"#),
            .text("Bearer [REDACTED]"), .text("Bearer [REDACTED]"),
        ])
        #expect(entry.webSocketFrames.contains { $0.direction == .toClient && $0.content == .close(code: 4002, reason: "enough") })

        // A MockServer serving the cassette replays it to the same client.
        let replay = HTTPMock()
        replay.insert(try Cassette(contentsOf: file, mode: .none, matching: .init(matchesAnyHost: true), environment: [:], pace: .instant))
        try await withServer(replay) { server in
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/socket")
            #expect(await client.next() == .text("ready"))
            try await client.send("first")
            #expect(await client.next() == .text(#"{"type":"auth","token":"[REDACTED]"}"#))
            try await client.send("second")
            #expect(await client.next() == .text("Bearer [REDACTED]"))
            #expect(try await client.closed() == .unknown(4002))
            #expect(replay.requests.first?.webSocketMessagesFromClient == [.text("first"), .text("second")])
        }
    }

    @Test func aRecordingForwardProxyRelaysAWebSocketInsideACONNECTTunnel() async throws {
        let cassette = folder.appendingPathComponent("proxy.har").path
        try await withWebSocketUpstream { upstream in
            let recorder = try LaunchedAirlock(["record", "--cassette", cassette, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let proxy = "http://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            // PyPI's client opens a CONNECT tunnel to the upstream through its HTTP proxy.
            let live = try await converse("ws://127.0.0.1:\(upstream)/chat", token: "tunnelled-token", proxy: proxy)
            #expect(live.received.first?.message == "text:welcome")
            #expect(live.closeCode == 4001)
            let (status, printed) = await recorder.interrupt()
            #expect(status == 0)
            #expect(printed.last == "Airlock recorded 1 exchange(s); \(cassette) holds 1.", "\(printed)")
        }
        let (messages, entry) = try recordedMessages(cassette)
        let url = try #require((entry["request"] as? [String: Any])?["url"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/chat"), "\(url)")
        #expect(messages.count == 14, "\(messages)")
    }

    /// A HAR as Chrome exports a WebSocket (a `wss://` URL, status 101, `_webSocketMessages`):
    /// "welcome" 0.2 s after the opening, then "go" from the client, "one" 0.2 s after it and "two"
    /// 0.3 s after that, then the server's close.
    private func chromeHAR() throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let opened = 1_790_000_000.0
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
              {"_resourceType": "websocket", "startedDateTime": "\(formatter.string(from: Date(timeIntervalSince1970: opened)))", "time": 0,
               "request": {"method": "GET", "url": "wss://chat.example.com/live", "headers": []},
               "response": {"status": 101, "statusText": "Switching Protocols", "headers": [{"name": "Upgrade", "value": "websocket"},
                 {"name": "Sec-WebSocket-Accept", "value": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="}], "content": {"size": 0, "mimeType": "x-unknown"}},
               "_webSocketMessages": [
                 {"type": "receive", "time": \(opened + 0.2), "opcode": 1, "data": "welcome"},
                 {"type": "send", "time": \(opened + 1), "opcode": 1, "data": "go"},
                 {"type": "receive", "time": \(opened + 1.2), "opcode": 1, "data": "one"},
                 {"type": "receive", "time": \(opened + 1.5), "opcode": 2, "data": "dHdv"},
                 {"type": "receive", "time": \(opened + 1.5), "opcode": 8, "data": "over", "code": 4003}
               ]}
            ]}}
            """
        let file = folder.appendingPathComponent("chrome.har")
        try Data(har.utf8).write(to: file)
        return file
    }

    @Test(arguments: [StreamPace.asRecorded, .scaled(by: 2), .instant])
    func aChromeHARReplaysItsConversationAtThePaceAsked(_ pace: StreamPace) async throws {
        let mock = HTTPMock()
        mock.insert(try Cassette(contentsOf: chromeHAR(), mode: .none, matching: .init(matchesAnyHost: true), environment: [:], pace: pace))
        try await withServer(mock) { server in
            let connected = Date()
            let client = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/live")
            #expect(await client.next() == .text("welcome"))
            #expect(Date().timeIntervalSince(connected) >= 0.2 * pace.factor - 0.002)
            let sent = Date()
            try await client.send("anything")
            #expect(await client.next() == .text("one"))
            #expect(Date().timeIntervalSince(sent) >= 0.2 * pace.factor - 0.002)
            #expect(await client.next() == .binary(Data("two".utf8)))
            #expect(Date().timeIntervalSince(sent) >= 0.5 * pace.factor - 0.002)
            #expect(try await client.closed() == .unknown(4003))
        }
    }

    @Test func aConversationMapsOntoAScript() {
        let start = Date(timeIntervalSince1970: 1_000)
        func at(_ seconds: Double, _ direction: RecordedWebSocketFrame.Direction, _ content: RecordedWebSocketFrame.Content) -> RecordedWebSocketFrame {
            RecordedWebSocketFrame(direction: direction, content: content, date: start.addingTimeInterval(seconds))
        }
        let frames = [
            at(0, .toClient, .message(.text("hi"))),
            at(0.5, .toClient, .message(.binary(Data([1])))),
            at(1, .fromClient, .message(.text("q"))),
            at(1.25, .toClient, .message(.text("a"))),
            at(2, .fromClient, .message(.text("bye"))),
            at(2, .toClient, .close(code: 1005, reason: String(repeating: "é", count: 70))),
            at(3, .fromClient, .close(code: 1000, reason: "")),
        ]
        let script = WebSocketScript(replaying: frames, openedAt: start, pace: .scaled(by: 2))
        #expect(script.steps == [
            .send(.text("hi")), .wait(1), .send(.binary(Data([1]))), .expect(.any), .wait(0.5), .send(.text("a")), .expect(.any),
            .close(code: 1000, reason: String(repeating: "é", count: 61)),
        ])
        // A client that closes first: the replay's server answers it, nothing after it plays.
        #expect(WebSocketScript(replaying: [at(0, .fromClient, .close(code: 1000, reason: "")), at(1, .toClient, .message(.text("late")))]).steps == [])
        #expect(WebSocketScript(replaying: frames, pace: .instant).steps.contains { if case .wait = $0 { true } else { false } } == false)
    }

    @Test(arguments: [
        (#"{"type": "sent", "time": 1, "opcode": 1, "data": "x"}"#, "_webSocketMessages[0].type", #"is "sent""#),
        (#"{"type": "send", "time": -1, "opcode": 1, "data": "x"}"#, "_webSocketMessages[0].time", "is -1"),
        (#"{"type": "send", "opcode": 1, "data": "x"}"#, "_webSocketMessages[0].time", "is missing"),
        (#"{"type": "send", "time": 1, "opcode": 2, "data": "%%%"}"#, "_webSocketMessages[0].data", "is not base64"),
        (#"{"type": "send", "time": 1, "opcode": 5, "data": "x"}"#, "_webSocketMessages[0].opcode", "is 5"),
        (#"{"type": "receive", "time": 1, "opcode": 8, "data": "", "code": 70000}"#, "_webSocketMessages[0].code", "is 70000"),
        (#"{"type": "send", "time": "soon", "opcode": 1, "data": "x"}"#, "_webSocketMessages[0].time", "has the wrong type"),
    ])
    func badWebSocketMessagesAreRefusedNamingTheEntryAndTheField(_ message: String, _ field: String, _ problem: String) throws {
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [
              {"startedDateTime": "2026-11-27T10:00:00.000Z", "request": {"method": "GET", "url": "ws://127.0.0.1/chat"},
               "response": {"status": 101}, "_webSocketMessages": [\(message)]}
            ]}}
            """
        let error = #expect(throws: StubFileError.self) { try HTTPArchive(data: Data(har.utf8), source: "bad.har") }
        let description = error?.description ?? ""
        #expect(description.hasPrefix("bad.har, log.entries[0].\(field): \(problem)"), "\(description)")
    }
}
