import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOHTTP1
import NIOPosix
import ProcessSupport
import Testing
import WebSocketKit
import WebSocketTestSupport

/// The traffic page (`/__admin/inspector/`): its live feed through a real socket, its protections,
/// and the page itself in headless Chromium, driven by Selenium (`Tests/Tools/browser_clients.py`).
@Suite struct InspectorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func write(_ text: String, named name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-inspector-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    private static let stubs = #"""
        {"stubs": [
          {"path": "/users/1", "responses": [{"json": {"id": 1, "name": "Alice"}, "lifetime": "eternal"}]},
          {"path": "/users/*", "query": {"page": "1"}, "responses": [{"json": {"page": 1}, "lifetime": "eternal"}]}
        ]}
        """#

    /// Runs `Tests/Tools/browser_clients.py` with `arguments` and returns what it reported under
    /// `key`; `nil` on a machine without Chromium, which the script reports as a finding (CI
    /// installs it).
    private static func browserReport(_ arguments: [String], key: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any]? {
        let run = try await ToolScriptRun.run(arguments, script: "browser_clients.py")
        run.expectSuccess(sourceLocation: sourceLocation)
        let result = try #require(run.resultLine.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, sourceLocation: sourceLocation)
        guard let report = result[key] as? [String: Any] else {
            #expect(run.findings.contains { $0.contains("Chromium") }, "\(run.lines.suffix(20))", sourceLocation: sourceLocation)
            return nil
        }
        return report
    }

    /// The `exchange` events of a feed's text, parsed.
    private static func events(in text: String) -> [[String: Any]] {
        text.components(separatedBy: "\n\n").compactMap { block in
            guard block.contains("event: exchange"), let line = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
        }
    }

    /// Reads a feed until its text holds an exchange of `path`.
    private static func readFeed(_ response: HTTPClientResponse, untilPath path: String) async throws -> String {
        var text = ""
        for try await buffer in response.body {
            text += String(buffer: buffer)
            if events(in: text).contains(where: { ($0["url"] as? String)?.contains(path) == true && $0["ended"] as? Bool == true }) { break }
        }
        return text
    }

    /// A test's `MockServer`: the feed sends what the journal has, then each exchange as it ends,
    /// redacted as the journal shows it; the page and its files come with their protections.
    @Test func theFeedSendsEachExchangeAsItEndsRedacted() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") {
                Path("/users/1") { MockResponse.plaintext("Alice", lifetime: .eternal) }
            }
        }
        try await withServer(mock) { server in
            #expect(server.inspectorURL.absoluteString == server.baseURL.absoluteString + "/__admin/inspector/")
            try await withClient { client in
                _ = try await send(client, server.baseURL.absoluteString + "/users/1")
                let page = try await send(client, server.inspectorURL.absoluteString)
                #expect(page.status == 200)
                #expect(page.headers["Content-Type"] == ["text/html; charset=utf-8"])
                #expect(page.headers["Content-Security-Policy"].first?.contains("script-src 'self'") == true)
                #expect(page.headers["Content-Security-Policy"].first?.contains("default-src 'none'") == true)
                #expect(page.text.contains("<script src=\"inspector.js\" defer></script>"))
                let script = try await send(client, server.inspectorURL.absoluteString + "inspector.js")
                #expect(script.headers["Content-Type"] == ["text/javascript; charset=utf-8"])
                #expect(!script.text.contains("innerHTML"), "the page puts traffic in as text only")
                // Without its slash, the page's address is sent on to the page (the client follows).
                #expect(try await send(client, server.baseURL.absoluteString + "/__admin/inspector").text.contains("<title>Airlock traffic</title>"))

                let feed = try await client.execute(HTTPClientRequest(url: server.inspectorURL.absoluteString + "feed"), timeout: hangGuard)
                #expect(feed.status == .ok)
                #expect(feed.headers["Content-Type"] == ["text/event-stream"])
                let reading = Task { try await Self.readFeed(feed, untilPath: "/orders") }
                // The first exchange was in the journal before the page connected; the second ends
                // after: both come, the second without a reload.
                let secret = "s3cr3t-token-value"
                _ = try await send(client, server.baseURL.absoluteString + "/orders?page=2", headers: [("Authorization", "Bearer \(secret)")])
                let text = try await reading.value
                let events = Self.events(in: text)
                let base = server.baseURL.absoluteString
                #expect(events.map { $0["url"] as? String } == [base + "/users/1", base + "/orders?page=2"])
                #expect(events.first?["matched"] as? Bool == true)
                #expect(events.last?["matched"] as? Bool == false)
                #expect(events.last?["status"] as? Int == 404)
                #expect(!text.contains(secret), "the feed shows secrets as the journal does: redacted")
                // The row's detail, asked for when the page opens it.
                let sequence = try #require(events.last?["sequence"] as? Int)
                let detail = try await send(client, server.inspectorURL.absoluteString + "exchanges/\(sequence)")
                #expect(detail.status == 200)
                #expect(!detail.text.contains(secret), "the detail shows secrets as the journal does: redacted")
                let orders = try #require(try JSONSerialization.jsonObject(with: Data(detail.text.utf8)) as? [String: Any])
                #expect((orders["response"] as? [String: Any])?["status"] as? Int == 404)
                let headers = (orders["request"] as? [String: Any])?["headers"] as? [[String: String]] ?? []
                #expect(headers.contains { $0["name"] == "Authorization" && $0["value"]?.contains("REDACTED") == true })
                let copy = try #require(orders["copy"] as? [String: String])
                #expect(copy["curl"]?.hasPrefix("curl -X 'GET' '\(server.baseURL.absoluteString)/orders?page=2'") == true)
                #expect(copy["swift"]?.contains(#"Path("/orders", query: ["page": "2"])"#) == true)
                #expect(copy["stubFile"]?.contains(#""path" : "/orders""#) == true)
                let diagnosis = try #require(orders["diagnosis"] as? [String: Any])
                let nearest = try #require((diagnosis["nearest"] as? [[String: Any]])?.first)
                let verdicts = nearest["verdicts"] as? [[String: Any]] ?? []
                #expect(verdicts.contains { ($0["text"] as? String)?.hasPrefix("path ✗") == true && $0["matches"] as? Bool == false })
            }
        }
    }

    /// A test opts into the page for its in-process mock: a `MockServer` over the mock shows the
    /// exchanges its `URLSession` makes, as they end.
    @Test func theInProcessTrafficOfAMockAppearsOnThePageOfAServerOverIt() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/profile") { MockResponse.plaintext("me", lifetime: .eternal) }
            }
        }
        let inspector = MockServer(mock: mock)
        try await inspector.start()
        do {
            try await withClient { client in
                let feed = try await client.execute(HTTPClientRequest(url: inspector.inspectorURL.absoluteString + "feed"), timeout: hangGuard)
                let reading = Task { try await Self.readFeed(feed, untilPath: "/missing") }
                let (profile, _) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/profile")!)
                #expect(String(decoding: profile, as: UTF8.self) == "me")
                _ = try? await mock.urlSession.data(from: URL(string: "https://api.example.com/missing")!)
                let events = Self.events(in: try await reading.value)
                #expect(events.map { $0["url"] as? String } == ["https://api.example.com/profile", "https://api.example.com/missing"])
                #expect(events.map { $0["ended"] as? Bool } == [true, true])
                #expect(events.map { $0["matched"] as? Bool } == [true, false])
            }
            try await inspector.shutdown()
        } catch {
            try? await inspector.shutdown()
            throw error
        }
    }

    /// The count of a feed's `missed` events.
    private static func missed(in text: String) -> Int {
        text.components(separatedBy: "\n\n").reduce(0) { total, block in
            guard block.hasPrefix("event: missed"), let line = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { return total }
            return total + (Int(line.dropFirst(6)) ?? 0)
        }
    }

    /// A page open on a server under load costs it the rows a page can read, not a row for every
    /// exchange: at most 200 rows a write, the rest counted in a `missed` event. The test holds
    /// the feed's event loop while 500 in-process exchanges end, so all of them wait for the same
    /// write (no timing: the loop runs nothing until the test lets it go).
    @Test func aPageUnderLoadGetsAtMostTwoHundredRowsAWriteAndACountOfTheRest() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/item") { MockResponse.plaintext("x", lifetime: .eternal) }
            }
        }
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = MockServer.Configuration()
        configuration.eventLoopGroup = loops
        let inspector = MockServer(mock: mock, configuration: configuration)
        let gate = DispatchSemaphore(value: 0)
        // The feed's buffers are kept until the client has closed its connection: SwiftNIO reuses
        // a receive buffer once nothing else holds it, and ThreadSanitizer cannot see Swift's
        // reference counts that order the two (swift-nio#303), so it would report this test's
        // read of a buffer and the client loop's later reuse of its storage as a race.
        var received: [ByteBuffer] = []
        defer { withExtendedLifetime(received) {} }
        try await inspector.start()
        do {
            try await withClient { client in
                let feed = try await client.execute(HTTPClientRequest(url: inspector.inspectorURL.absoluteString + "feed"), timeout: hangGuard)
                var body = feed.body.makeAsyncIterator()
                var text = ""
                func read(_ what: String) async throws {
                    let buffer = try #require(try await body.next(), "the feed ended before \(what)")
                    received.append(buffer)
                    text += String(buffer: buffer)
                }
                while !text.contains(": Airlock traffic feed") {
                    try await read("its opening comment")
                }
                // The page watches the journal now. Hold the feed's event loop (resumed from the
                // loop itself: a future's callbacks would need the loop the test holds).
                await withCheckedContinuation { (holding: CheckedContinuation<Void, Never>) in
                    loops.next().execute {
                        holding.resume()
                        gate.wait()
                    }
                }
                defer { gate.signal() }
                for _ in 0..<500 {
                    _ = try await mock.urlSession.data(from: URL(string: "https://api.example.com/item")!)
                }
                gate.signal()
                while Self.events(in: text).count + Self.missed(in: text) < 500 {
                    try await read("every exchange was sent or counted")
                }
                #expect(Self.events(in: text).count == 200)
                #expect(Self.missed(in: text) == 300)
                #expect(Set(Self.events(in: text).compactMap { $0["sequence"] as? Int }).count == 200, "each row once")
            }
            try await inspector.shutdown()
        } catch {
            gate.signal()
            try? await inspector.shutdown()
            try? await loops.shutdownGracefully()
            throw error
        }
        try await loops.shutdownGracefully()
    }

    /// `airlock serve --openapi`: a contract's violations come with their exchange, pointers
    /// included, and so does the operation.
    @Test func theFeedCarriesAContractsViolations() async throws {
        let spec = Repository.openAPIExamples.appendingPathComponent("v3.0/petstore.yaml").path
        let airlock = try LaunchedAirlock(["serve", "--openapi", spec, "--port", "0", "--quiet"], standardError: Pipe())
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        try await withClient { client in
            let feed = try await client.execute(HTTPClientRequest(url: base + "/__admin/inspector/feed"), timeout: hangGuard)
            let reading = Task { try await Self.readFeed(feed, untilPath: "/v1/pets") }
            _ = try await send(client, "\(base)/v1/pets", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"name": "Rex"}"#)
            let row = try #require(Self.events(in: try await reading.value).last)
            #expect(row["problems"] as? Int == 1)
            #expect(row["operation"] as? String == "createPets", "the row names the contract's operation")
            let sequence = try #require(row["sequence"] as? Int)
            let exchange = try #require(try JSONSerialization.jsonObject(with: Data(try await send(client, base + "/__admin/inspector/exchanges/\(sequence)").text.utf8)) as? [String: Any])
            #expect(exchange["operation"] as? String == "createPets")
            let problems = exchange["problems"] as? [String] ?? []
            #expect(problems.count == 1)
            #expect(problems.first?.contains(#"missing required property "id" (required at #/components/schemas/Pet/required)"#) == true, "\(problems)")
        }
    }

    /// `airlock record`: the page's state says which cassette it records into and how many
    /// exchanges it has recorded; scenarios come with their states.
    @Test func theStateShowsTheRecordingAndTheScenarios() async throws {
        let upstream = HTTPMock()
        upstream.registerResponses {
            Host("**") { Path("/items") { MockResponse.plaintext("one", lifetime: .eternal) } }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-inspector-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer(upstream) { real in
            let recorder = try LaunchedAirlock(["record", "--target", real.baseURL.absoluteString, "--cassette", folder.appendingPathComponent("api.har").path, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let banner = try #require(await recorder.lines.next(), "airlock record printed nothing")
            #expect(banner.contains("(traffic page: /__admin/inspector/)"), "\(banner)")
            let port = try lastPort(in: banner)
            let base = "http://127.0.0.1:\(port)"
            try await withClient { client in
                #expect(try await send(client, base + "/items").text == "one")
                let state = try await send(client, base + "/__admin/inspector/state")
                #expect(state.headers["Content-Security-Policy"].isEmpty == false)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(state.text.utf8)) as? [String: Any])
                let cassette = try #require(json["cassette"] as? [String: Any])
                #expect(cassette["file"] as? String == "api.har")
                #expect(cassette["recording"] as? Bool == true)
                #expect(cassette["recorded"] as? Int == 1)
            }
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
        }
        // The cassette replayed: its row names the entry that answered.
        let replay = try LaunchedAirlock(["serve", folder.appendingPathComponent("api.har").path, "--port", "0", "--quiet"])
        defer { replay.stopIfRunning() }
        let (_, replayBase) = try await replay.banner()
        try await withClient { client in
            let feed = try await client.execute(HTTPClientRequest(url: replayBase + "/__admin/inspector/feed"), timeout: hangGuard)
            let reading = Task { try await Self.readFeed(feed, untilPath: "/items") }
            #expect(try await send(client, replayBase + "/items").text == "one")
            let row = try #require(Self.events(in: try await reading.value).last)
            #expect(row["matched"] as? Bool == true)
            #expect((row["stub"] as? String)?.contains("api.har entry 1") == true, "\(row["stub"] ?? "")")
        }
        let stubs = try Self.write(#"{"stubs": [{"path": "/next", "scenarioName": "checkout", "newScenarioState": "paid", "responses": [{"body": "ok"}]}]}"#, named: "s.json")
        defer { try? FileManager.default.removeItem(at: stubs.deletingLastPathComponent()) }
        let server = try LaunchedAirlock(["serve", stubs.path, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let (_, base) = try await server.banner()
        try await withClient { client in
            _ = try await send(client, base + "/next")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try await send(client, base + "/__admin/inspector/state").text.utf8)) as? [String: Any])
            #expect(json["scenarios"] as? [[String: String]] == [["name": "checkout", "state": "paid"]])
            #expect(json["cassette"] is NSNull)
        }
    }

    /// A WebSocket's row comes again with each frame, and its detail has the frames with their
    /// times, both ways.
    @Test func aWebSocketsFramesReachThePageAsTheyPass() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") { Path("/chat") { MockResponse.webSocket([.send(.text("welcome")), .echoUntilClosed]) } }
        }
        try await withServer(mock) { server in
            try await withClient { client in
                let feed = try await client.execute(HTTPClientRequest(url: server.inspectorURL.absoluteString + "feed"), timeout: hangGuard)
                let reading = Task {
                    var text = ""
                    for try await buffer in feed.body {
                        text += String(buffer: buffer)
                        // The welcome and the echo both ways: three frames.
                        if Self.events(in: text).contains(where: { ($0["frames"] as? Int ?? 0) >= 3 }) { break }
                    }
                    return text
                }
                let socket = try await WebSocketTestClient.connect("ws://127.0.0.1:\(server.port)/chat")
                #expect(await socket.next() == .text("welcome"))
                try await socket.send("marco")
                #expect(await socket.next() == .text("marco"))
                let rows = Self.events(in: try await reading.value)
                let sequence = try #require(rows.last?["sequence"] as? Int)
                #expect(rows.last?["status"] as? Int == 101)
                let detail = try #require(try JSONSerialization.jsonObject(with: Data(try await send(client, server.inspectorURL.absoluteString + "exchanges/\(sequence)").text.utf8)) as? [String: Any])
                let frames = detail["frames"] as? [[String: Any]] ?? []
                #expect(frames.prefix(3).map { $0["direction"] as? String } == ["to client", "from client", "to client"])
                #expect(frames.prefix(3).map { ($0["body"] as? [String: Any])?["text"] as? String } == ["welcome", "marco", "marco"])
                try await socket.socket.close().get()
            }
        }
    }

    /// With an admin token, the page's files open without it (they hold no data) and the feed
    /// needs it; a page of another origin is refused.
    @Test func theFeedNeedsTheTokenAndItsOwnOrigin() async throws {
        try await withServer(HTTPMock(), configuration: .init(adminToken: "open-sesame")) { server in
            try await withClient { client in
                let feed = server.inspectorURL.absoluteString + "feed"
                #expect(try await send(client, server.inspectorURL.absoluteString).status == 200)
                #expect(try await send(client, feed).status == 401)
                #expect(try await send(client, feed, headers: [("Authorization", "Bearer open-sesame"), ("Origin", "http://evil.example")]).status == 403)
                let granted = try await client.execute(
                    { var request = HTTPClientRequest(url: feed); request.headers.add(name: "Authorization", value: "Bearer open-sesame"); return request }(),
                    timeout: hangGuard
                )
                #expect(granted.status == .ok)
            }
        }
    }

    /// The page, its feed, its state and an exchange's detail each behind the admin API's
    /// protections, through a raw socket: a DNS-rebinding page (its own name in `Host`) is refused
    /// all four, token or not; without the token only the page opens (it holds no data); with it,
    /// all do.
    @Test(arguments: ["", "feed", "state", "exchanges/1"])
    func everyPartOfThePageIsProtected(_ part: String) async throws {
        try await withServer(HTTPMock(), configuration: .init(adminToken: "open-sesame")) { server in
            _ = try await rawExchange(port: server.port, Self.raw("/missing", host: "127.0.0.1:\(server.port)"))
            let path = "/__admin/inspector/" + part
            let token = "Authorization: Bearer open-sesame"
            func status(host: String, _ headers: [String] = []) async throws -> Int {
                let answer = try await rawExchange(port: server.port, Self.raw(path, host: host, headers: headers))
                return Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
            }
            let own = "127.0.0.1:\(server.port)"
            #expect(try await status(host: "evil.example:\(server.port)", [token]) == 403, "rebinding, with the token")
            #expect(try await status(host: "evil.example:\(server.port)") == (part.isEmpty ? 403 : 401), "rebinding, without the token")
            #expect(try await status(host: "127.0.0.1:1", [token]) == 403, "another port")
            #expect(try await status(host: own) == (part.isEmpty ? 200 : 401), "without the token")
            #expect(try await status(host: own, ["Authorization: Bearer wrong"]) == (part.isEmpty ? 200 : 401), "with a wrong token")
            #expect(try await status(host: own, [token, "Origin: http://evil.example"]) == 403, "from another origin")
            if part != "feed" {  // the feed never ends: InspectorTests.theFeedNeedsTheTokenAndItsOwnOrigin opens it
                #expect(try await status(host: own, [token]) == 200, "with the token")
                #expect(try await status(host: "localhost:\(server.port)", [token, "Origin: http://localhost:\(server.port)"]) == 200, "from its own origin")
            }
        }
    }

    /// A raw `GET` with `Connection: close`.
    private static func raw(_ path: String, host: String, headers: [String] = []) -> String {
        (["GET \(path) HTTP/1.1", "Host: \(host)", "Connection: close"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// The page's views of bodies in headless Chromium: header fields in the order sent, JSON as a
    /// folded tree, a form's fields and a multipart body's parts split, a stream's parts and a
    /// WebSocket's frames each with its time; and a row answered by a WireMock mapping names it.
    @Test func theBodyViewsInABrowser() async throws {
        let file = try Self.write(#"""
            {"stubs": [
              {"path": "/profile", "responses": [{"json": {"user": {"name": "Ada", "langs": ["en", "fr"]}, "active": true}, "lifetime": "eternal"}]},
              {"path": "/form", "method": "POST", "responses": [{"status": 204, "lifetime": "eternal"}]},
              {"path": "/upload", "method": "POST", "responses": [{"status": 201, "lifetime": "eternal"}]},
              {"path": "/events", "responses": [{"events": [{"data": "one"}, {"data": "two", "delay": 0.05}, {"data": "three", "delay": 0.1}], "lifetime": "eternal"}]},
              {"path": "/chat", "responses": [{"webSocket": {"script": [{"send": "welcome"}, {"echo": 1}, {"close": 1000, "reason": "bye"}]}, "lifetime": "eternal"}]}
            ]}
            """#, named: "bodies.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let airlock = try LaunchedAirlock(["serve", file.path, "--port", "0", "--quiet"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        try await withClient { client in
            let mapping = #"{"name": "greeting", "request": {"method": "GET", "url": "/greeting"}, "response": {"status": 200, "body": "hi"}}"#
            let added = try await send(client, base + "/__admin/mappings", method: .POST, headers: [("Content-Type", "application/json")], body: mapping)
            #expect(added.status == 201, "\(added.text)")
        }
        guard let page = try await Self.browserReport(["bodies", "--server", base], key: "bodies") else { return }
        #expect((page["greetingAnsweredBy"] as? String)?.hasSuffix(#" · WireMock mapping "greeting""#) == true, "\(page["greetingAnsweredBy"] ?? "")")
        #expect(page["console"] as? [String] == [], "the page logged errors")
        #expect(page["headerOrder"] as? [String] == ["X-Zeta", "X-Alpha", "X-Middle"], "header fields in the order sent")

        let tree = page["jsonTree"] as? [String: Any]
        let folds = tree?["folds"] as? [[String: Any]] ?? []
        #expect(folds.map { $0["summary"] as? String } == ["{2}", "user: {2}", "langs: [2]"])
        #expect(folds.allSatisfy { $0["open"] as? Bool == true }, "the tree opens unfolded")
        #expect(Set(tree?["leaves"] as? [String] ?? []) == [#"name: "Ada""#, #"0: "en""#, #"1: "fr""#, "active: true"])
        #expect(page["folded"] as? Bool == true, "a click on a level's summary folds it")

        #expect(page["form"] as? [[String]] == [["name", "Ada Lovelace"], ["city", "London"], ["markup", "<b>x</b>"]])
        let parts = page["multipart"] as? [[String: Any]] ?? []
        #expect(parts.map { $0["heading"] as? String } == ["Part 1", "Part 2"])
        #expect(parts.first?["texts"] as? [String] == [#"Content-Disposition: form-data; name="title""#, "Notes"])
        #expect(parts.last?["texts"] as? [String] == ["Content-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain", "line one"])

        #expect(page["eventsStatus"] as? Int == 200)
        let stream = page["stream"] as? [String: Any]
        #expect(stream?["heading"] as? String == "Stream: 3 parts")
        let streamParts = stream?["parts"] as? [[String: Any]] ?? []
        #expect(streamParts.map { $0["at"] as? String } == ["at 0 ms", "at 50 ms", "at 150 ms"], "each part with its time")
        #expect(streamParts.map { $0["text"] as? String } == ["data: one\n\n", "data: two\n\n", "data: three\n\n"])

        #expect(page["webSocket"] as? [String] == ["welcome", "marco"])
        let frames = page["frames"] as? [[String: Any]] ?? []
        let notes = frames.compactMap { $0["note"] as? String }
        #expect(notes.prefix(3).map { $0.components(separatedBy: " at ").first } == ["to client", "from client", "to client"])
        #expect(frames.prefix(3).map { $0["text"] as? String } == ["welcome", "marco", "marco"])
        let times = notes.compactMap { note in note.components(separatedBy: " at ").last.flatMap { Int($0.replacingOccurrences(of: " ms ", with: "")) } }
        #expect(times.count == notes.count && times == times.sorted(), "each frame with its time, in order: \(notes)")
    }

    /// The page in headless Chromium against `airlock serve`: it loads with no console error,
    /// shows exchanges without a reload, marks a near miss's differences, runs no script of an
    /// XSS corpus, and "Add as stub" answers the next such request; its "copy as stub-file
    /// entry", pasted into a stub file, makes another `airlock serve` answer the request.
    @Test func thePageInABrowser() async throws {
        let file = try Self.write(Self.stubs, named: "users.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let airlock = try LaunchedAirlock(["serve", file.path, "--port", "0", "--quiet", "--admin-token", "page-token"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        let screenshots = Self.root.appendingPathComponent(".build/inspector-screenshots")
        // Only this run's pictures: the set is compared with the article's.
        try? FileManager.default.removeItem(at: screenshots)
        guard let page = try await Self.browserReport(["inspector", "--server", base, "--token", "page-token", "--screenshots", screenshots.path], key: "page") else { return }
        #expect(page["console"] as? [String] == [], "the page logged errors")
        #expect(page["sameDocument"] as? Bool == true, "exchanges appear without a reload")
        let sent = try #require(page["sent"] as? Int)
        let rows = page["rows"] as? [[String]] ?? []
        #expect(rows.count == sent)
        #expect(rows.map { $0.first } == (1...sent).reversed().map { String($0) }, "newest first")
        #expect(rows.last?[3] == "200" && rows.last?[4] == #"host "**", path "/users/1""#)
        // The app's session the article's picture shows: answered, a near miss, a wildcard's
        // answer, a sign-up no stub answers, the first request again.
        #expect(page["sessionStatuses"] as? [Int] == [200, 404, 200, 404, 200])
        // The corpus sent raw (markup in the request target, bytes that are not UTF-8 in the
        // path, a header and the body) reached the server as requests: unmatched, each a row;
        // raw bytes that are not UTF-8 in the request target are refused before the journal.
        #expect(page["rawStatuses"] as? [Int] == [404, 404, 404, 400])
        // Each exchange checked while it was the one shown, every section open.
        let details = page["details"] as? [[String: Any]] ?? []
        #expect(details.count == sent)
        for detail in details {
            let sequence = detail["sequence"] as? String ?? "?"
            #expect(detail["shown"] as? Bool == true, "exchange #\(sequence)'s detail was not shown")
            #expect(detail["xss"] is NSNull, "a script from the traffic ran with exchange #\(sequence) shown: \(detail["xss"] ?? "")")
            #expect((detail["foreign"] as? [String])?.isEmpty == true, "elements from the traffic got into exchange #\(sequence)'s detail: \(detail["foreign"] ?? "")")
        }
        #expect(page["xss"] is NSNull, "a script from the traffic ran")
        #expect(page["injectedElements"] as? Int == 0)
        let bytes = page["bytesDetail"] as? [String: Any]
        #expect(bytes?["headerShown"] as? Bool == true, "a header with markup is shown as text")
        #expect((bytes?["hex"] as? [String])?.first?.hasPrefix("00000000  ff fe 3c 73") == true, "bytes that are not UTF-8 are shown as hex")
        let verdicts = page["verdicts"] as? [[String: Any]] ?? []
        #expect(verdicts.contains { ($0["text"] as? String)?.hasSuffix("path ✗ /users/1 vs /users/2") == true && $0["differs"] as? Bool == true && $0["marked"] as? Bool == true })
        #expect(verdicts.contains { ($0["text"] as? String)?.hasSuffix("query page=3 vs 1") == true && $0["differs"] as? Bool == true })
        #expect(verdicts.contains { ($0["text"] as? String)?.hasSuffix("host ✓") == true && $0["differs"] as? Bool == false })
        #expect((page["addResult"] as? String)?.hasPrefix("Added") == true, "\(page["addResult"] ?? "")")
        let afterAdd = page["afterAdd"] as? [String: Any]
        #expect(afterAdd?["status"] as? Int == 200 && afterAdd?["body"] as? String == "…", "the added stub answers the next such request")
        let copy = page["copy"] as? [String: String] ?? [:]

        // "Copy as curl", run by a shell: the same request again — method, URL and header fields —
        // which the server (its added stub used up by the request after it) answers with the
        // diagnosis that repeats them.
        let curl = try #require(copy["curl"])
        #expect(curl.hasPrefix("curl -X 'GET' '\(base)/users/2?page=3'"), "\(curl)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {  // .ci/run installs it
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-curl-\(UUID().uuidString).log")
            defer { try? FileManager.default.removeItem(at: log) }
            let answer = try await runShellCommand(curl + " --silent --show-error --write-out '\\n%{http_code}'", in: Self.root, log: log, hangGuard: .seconds(300))
            #expect(answer.status == 0, "\(answer.output)")
            #expect(answer.output.hasPrefix("Airlock: no stub for GET \(base)/users/2?page=3\n"), "\(answer.output)")
            #expect(answer.output.contains("\n  Accept: application/json\n"), "\(answer.output)")
            #expect(answer.output.hasSuffix("\n404"), "\(answer.output)")
        }
        // "Copy as Swift": the registerResponses block a test pastes, type-checked against the
        // built HTTPMock module.
        let swift = try #require(copy["swift"])
        #expect(swift.hasPrefix("mock.registerResponses {\n    Host(\"127.0.0.1\") {\n        Path(\"/users/2\", query: [\"page\": \"3\"]) {"), "\(swift)")
        try await Self.expectTypeChecks(swift)

        // The keyboard alone reaches the rows (the newest is the request after "Add as stub")
        // and opens one; axe-core finds no violation.
        let keyboard = page["keyboard"] as? [String: Any]
        #expect(keyboard?["firstRowReached"] as? String == String(sent + 1))
        #expect(keyboard?["opened"] as? String == "Exchange #\(sent)")
        // Search, filter, pause: an exchange that ends while paused is held back, then shown.
        #expect(page["searched"] as? [String] == [base + "/users/2?page=3", base + "/users/2?page=3"])
        #expect(
            page["filteredMatched"] as? [String] == [base + "/users/2?page=3", base + "/users/1", base + "/users/7?page=1", base + "/users/1"],
            "the stub added from the page answered the request after the corpus"
        )
        let paused = page["paused"] as? [String: Any]
        #expect(paused?["button"] as? String == "Resume (1 new)")
        #expect(paused?["rowsWhilePaused"] as? Int == 0)
        #expect(paused?["rowsAfterResume"] as? Int == 1)
        let axe = page["axe"] as? [String: Any]
        #expect((axe?["rules"] as? Int ?? 0) > 10, "axe-core ran its rules")
        #expect((axe?["violations"] as? [[String: Any]])?.isEmpty == true, "\(axe?["violations"] ?? "")")

        // "Copy as stub-file entry", pasted into a stub file: another server answers the request.
        let copied = try #require(copy["stub-file"])
        let pasted = try Self.write(#"{"stubs": ["# + copied + "]}", named: "pasted.json")
        defer { try? FileManager.default.removeItem(at: pasted.deletingLastPathComponent()) }
        let second = try LaunchedAirlock(["serve", pasted.path, "--port", "0", "--quiet"])
        defer { second.stopIfRunning() }
        let (_, secondBase) = try await second.banner()
        try await withClient { client in
            let answer = try await send(client, secondBase + "/users/2?page=3")
            #expect(answer.status == 200 && answer.text == "…")
        }
        // "Copy as WireMock mapping" of the unmatched request (its placeholder answer), posted to
        // another server's WireMock admin API: that server answers the request, and its page
        // names the mapping that did.
        let mapping = try #require(copy["wiremock"])
        try await Self.expectWireMockServerAnswers(mapping, path: "/users/2?page=3")

        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
        if let whole = page["nearMissShotShowsAll"] as? Bool {
            #expect(whole, "the near miss's picture shows its detail whole, down to \"Add as stub\"")
        }
        // The article's pictures are the ones this test takes, no more and no fewer.
        let resources = Self.root.appendingPathComponent("Sources/MockServer/Documentation.docc/Resources")
        let taken = Set(try FileManager.default.contentsOfDirectory(atPath: screenshots.path).filter { $0.hasSuffix(".png") })
        #expect(taken == ["inspector-list.png", "inspector-near-miss.png"])
        if ProcessInfo.processInfo.environment["AIRLOCK_UPDATE_SCREENSHOTS"] == "1" {
            // The article's pictures, taken by this test: `AIRLOCK_UPDATE_SCREENSHOTS=1 swift test --filter thePageInABrowser`.
            try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: resources.path) where name.hasPrefix("inspector-") && !taken.contains(name) {
                try FileManager.default.removeItem(at: resources.appendingPathComponent(name))
            }
            for name in taken {
                let target = resources.appendingPathComponent(name)
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: screenshots.appendingPathComponent(name), to: target)
            }
        }
        let committed = Set(try FileManager.default.contentsOfDirectory(atPath: resources.path).filter { $0.hasPrefix("inspector-") })
        #expect(committed == taken, "the article's pictures differ from the ones this test takes: run AIRLOCK_UPDATE_SCREENSHOTS=1 swift test --filter thePageInABrowser")
        let article = try String(contentsOf: Self.root.appendingPathComponent("Sources/MockServer/Documentation.docc/InspectingTraffic.md"), encoding: .utf8)
        for name in taken {
            #expect(article.contains("(\(name))"), "InspectingTraffic.md shows no \(name)")
        }
    }

    /// Type-checks `snippet` — a `registerResponses` block on a `mock` — against the built
    /// HTTPMock module (the `Modules` folder beside the `airlock` executable), as a test that
    /// pastes it compiles it.
    private static func expectTypeChecks(_ snippet: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let executable = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        let modules = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("Modules")
        let file = try write("import Foundation\nimport HTTPMock\n\nfunc register(on mock: HTTPMock) {\n\(snippet)\n}\n", named: "Pasted.swift")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        // The C modules the built ones import: zlib's, and swift-atomics' shims (AirlockCore's route
        // snapshot), from the build folder's checkouts a level or two above the executable.
        let checkouts = [1, 2, 3].lazy
            .map { level in (0..<level).reduce(modules) { folder, _ in folder.deletingLastPathComponent() }.appendingPathComponent("checkouts") }
            .first { FileManager.default.fileExists(atPath: $0.path) } ?? root.appendingPathComponent(".build/checkouts")
        let atomicsShims = checkouts.appendingPathComponent("swift-atomics/Sources/_AtomicsShims/include")
        let command = ["swiftc", "-typecheck", "-I", modules.path, "-I", root.appendingPathComponent("Sources/CZlib").path, "-I", atomicsShims.path, file.path]
            .map(InspectorTests.shellQuoted).joined(separator: " ")
        let result = try await runShellCommand(command, in: file.deletingLastPathComponent(), log: file.deletingLastPathComponent().appendingPathComponent("swiftc.log"), hangGuard: .seconds(600))
        #expect(result.status == 0, "the copied Swift block does not type-check:\n\(snippet)\n\(result.output)", sourceLocation: sourceLocation)
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Posts `mapping` (as copied from the page) to the WireMock admin API of a fresh
    /// `airlock serve --wiremock`, then checks that the server answers `path` with the mapping's
    /// placeholder and that its feed names the mapping in the row.
    private static func expectWireMockServerAnswers(_ mapping: String, path: String) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-wiremock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try LaunchedAirlock(["serve", "--wiremock", root.path, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let (_, base) = try await server.banner()
        var named = try #require(try JSONSerialization.jsonObject(with: Data(mapping.utf8)) as? [String: Any])
        #expect((named["response"] as? [String: Any])?["body"] as? String == "…")
        named["name"] = "pasted from the page"
        let body = String(decoding: try JSONSerialization.data(withJSONObject: named), as: UTF8.self)
        try await withClient { client in
            let added = try await send(client, base + "/__admin/mappings", method: .POST, headers: [("Content-Type", "application/json")], body: body)
            #expect(added.status == 201, "\(added.text)")
            let feed = try await client.execute(HTTPClientRequest(url: base + "/__admin/inspector/feed"), timeout: hangGuard)
            let reading = Task { try await Self.readFeed(feed, untilPath: path.components(separatedBy: "?")[0]) }
            let answer = try await send(client, base + path)
            #expect(answer.status == 200 && answer.text == "…", "\(answer.status) \(answer.text)")
            let row = try #require(Self.events(in: try await reading.value).last)
            #expect(row["source"] as? String == #"WireMock mapping "pasted from the page""#)
        }
    }

    /// A page of another origin, open in the same browser, can neither read the feed nor add a
    /// stub: the admin API refuses its `Origin`, a JSON write needs a preflight it never grants,
    /// and a "simple" cross-origin post (no preflight) is refused for its content type.
    @Test func aPageOfAnotherOriginCannotReadTheFeedOrAddAStub() async throws {
        let target = try Self.write(Self.stubs, named: "users.json")
        defer { try? FileManager.default.removeItem(at: target.deletingLastPathComponent()) }
        let airlock = try LaunchedAirlock(["serve", target.path, "--port", "0", "--quiet"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        let attack = #"""
            <!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>elsewhere</title><script>
            window.results = {}; window.finished = false;
            const stub = JSON.stringify({stubs: [{path: "/owned", responses: [{body: "owned"}]}]});
            (async () => {
              try { const r = await fetch("TARGET/__admin/inspector/feed"); window.results.feed = "read " + r.status; } catch (e) { window.results.feed = "blocked"; }
              try { const r = await fetch("TARGET/__admin/stubs", {method: "POST", headers: {"Content-Type": "application/json"}, body: stub}); window.results.add = "sent " + r.status; } catch (e) { window.results.add = "blocked"; }
              try { await fetch("TARGET/__admin/stubs", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: stub}); window.results.simple = "sent"; } catch (e) { window.results.simple = "blocked"; }
              window.finished = true;
            })();
            </script>
            """#.replacingOccurrences(of: "TARGET", with: base)
        let page = try Self.write(
            String(decoding: try JSONSerialization.data(withJSONObject: ["stubs": [["path": "/attack", "responses": [["body": attack, "headers": ["Content-Type": "text/html"], "lifetime": "eternal"]]]]]), as: UTF8.self),
            named: "attack.json"
        )
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        let elsewhere = try LaunchedAirlock(["serve", page.path, "--port", "0", "--quiet"])
        defer { elsewhere.stopIfRunning() }
        let (_, elsewhereBase) = try await elsewhere.banner()
        guard let results = try await Self.browserReport(["page-results", "--page", elsewhereBase + "/attack"], key: "results")?.compactMapValues({ $0 as? String }) else { return }
        #expect(results["feed"] == "blocked")
        #expect(results["add"] == "blocked")
        try await withClient { client in
            #expect(try await send(client, base + "/owned").status == 404, "no stub was added from another origin")
            let stubs = try await send(client, base + "/__admin/stubs")
            #expect(!stubs.text.contains("/owned"))
        }
    }
}
