import AirlockBase
import AsyncHTTPClient
import Foundation
import HTTPLogging
import HTTPMock
import HTTPTestSupport
import MockServer
import NIOCore
import NIOHTTP1
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streams from a live upstream: relayed part by part while they are recorded (a client sees an
/// event before the upstream has sent the next — by construction: the upstream holds it until
/// the test, having seen the first, opens a gate), written to the HAR with their parts and pauses
/// (`content._parts`), redacted as one body (a secret two parts share included), and replayed
/// with their boundaries at the recorded pace, scaled, or at once. Times are lower bounds only: a part can arrive late, never early.
@Suite struct StreamRecordingTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-relay")
    private var folder: URL { temporary.url }

    /// Opens the upstream's gate `name` (a request straight to the upstream, not through Airlock).
    private func release(_ name: String, upstream: Int, client: HTTPClient) async throws {
        let answer = try await send(client, "http://127.0.0.1:\(upstream)/release?gate=\(name)")
        #expect(answer.text == "released")
    }

    /// The `content._parts` of each entry of a HAR file, by request path and query.
    private func recordedParts(_ file: String) throws -> [String: (parts: [(wait: Double, text: String)], text: String)] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        let entries = try #require((object?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        var result: [String: (parts: [(wait: Double, text: String)], text: String)] = [:]
        for entry in entries {
            let address = try #require((entry["request"] as? [String: Any])?["url"] as? String)
            let url = try #require(URLComponents(string: address))
            let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
            let parts = (content["_parts"] as? [[String: Any]] ?? []).map { part in
                ((part["wait"] as? Double) ?? -1, (part["text"] as? String) ?? "")
            }
            result[url.path + (url.query.map { "?" + $0 } ?? "")] = (parts, content["text"] as? String ?? "")
        }
        return result
    }

    @Test func aStreamRecordedThroughTheCLIReachesTheClientLiveAndReplaysWithItsPartsAndPace() async throws {
        let cassette = folder.appendingPathComponent("sse.har").path
        let secret = "sse-secret-7731"
        let curlIsThere = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
        try await withPythonUpstream("sse_upstream.py") { upstream in
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0"])
            defer { recorder.stopIfRunning() }
            // The banner names the target first, then the proxy's own base URL.
            let base = "http://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            try await withClient { client in
                // The upstream sends its last event only once the gate opens, and the gate opens
                // only once the client has the first: the relay streams, or this never ends.
                let released = Locked(false)
                let gated = try await readStream(client, "\(base)/gated?gate=client") { index, text in
                    guard index == 0 else { return }
                    #expect(text.contains(#"data: {"n":1}"#), "\(text)")
                    #expect(!released.withLock { $0 })
                    released.withLock { $0 = true }
                    try await release("client", upstream: upstream, client: client)
                }
                #expect(gated.status == 200)
                #expect(gated.headers["Content-Type"] == ["text/event-stream"])
                #expect(gated.headers["X-Upstream"] == ["one", "two"])
                #expect(gated.headers["Content-Length"].isEmpty)
                #expect(gated.text == "id: 1\ndata: {\"n\":1}\n\nid: 2\ndata: {\"n\":2,\"last\":true}\n\n")

                // Three events 0.3 s apart, and a careless echo of the credential.
                let paced = try await readStream(client, "\(base)/events?count=3&pause=0.3", headers: [("Authorization", "Bearer \(secret)")])
                #expect(paced.text.hasSuffix("id: echo\ndata: {\"echo\":\"Bearer \(secret)\"}\n\n"), "the client sees the upstream's answer as sent")
                #expect(paced.parts.count >= 3)
            }
            try await streamsThroughCurl(base: base, upstream: upstream)
            let (status, printed) = await recorder.interrupt()
            #expect(status == 0)
            #expect(printed.last == "Airlock recorded \(curlIsThere ? 3 : 2) exchange(s); \(cassette) holds \(curlIsThere ? 3 : 2).", "\(printed)")
        }

        // The HAR keeps the parts and the pauses; the secret is redacted in each part and the text.
        let file = try String(contentsOfFile: cassette, encoding: .utf8)
        #expect(!file.contains(secret), "the secret reached the cassette")
        let recorded = try recordedParts(cassette)
        let events = try #require(recorded["/events?count=3&pause=0.3"])
        #expect(events.parts.map(\.text).joined() == events.text, "content.text is the parts, one after the other")
        #expect(events.parts.count == 4, "\(events.parts.map(\.text))")
        #expect(events.parts.first?.text == "id: 1\ndata: {\"n\":1}\n\n")
        #expect(events.parts.last?.text.contains("[REDACTED]") == true, "\(events.parts.last?.text ?? "")")
        if events.parts.count == 4 {
            // The upstream paused 0.3 s before the second and the third event: the recording
            // cannot have seen them sooner than 0.6 s after the first (less the first's own wait).
            let waits = events.parts.map(\.wait)
            #expect(waits.allSatisfy { $0 >= 0 })
            #expect(waits[1] + waits[2] >= 600 - waits[0] - 50, "\(waits)")
        }
        #expect(try #require(recorded["/gated?gate=client"]).parts.count == 2)

        // Replayed at the recorded pace: each part no sooner than its recorded waits allow.
        let server = try LaunchedAirlock(["serve", cassette, "--port", "0", "--repeat-last"])
        defer { server.stopIfRunning() }
        let (_, base) = try await server.banner()
        try await withClient { client in
            let replayed = try await readStream(client, "\(base)/events?count=3&pause=0.3")
            #expect(replayed.headers["Content-Type"] == ["text/event-stream"])
            #expect(replayed.headers["Content-Length"].isEmpty)
            #expect(replayed.text == events.text)
            #expect(replayed.parts.map(\.text) == events.parts.map(\.text))
            if replayed.parts.count == events.parts.count {
                var due = 0.0
                for (index, arrival) in replayed.arrivals.enumerated() {
                    due += events.parts[index].wait / 1000
                    #expect(arrival >= due - 0.002, "part \(index) came \(arrival) s after the request, its pauses add up to \(due) s")
                }
            }
        }
        // httpx-sse reads the same replay event by event, each no sooner than its pauses allow.
        let run = try await ToolScriptRun.run(["read", "--url", "\(base)/events?count=3&pause=0.3"], script: "stream_clients.py")
        run.expectSuccess()
        let result = try #require(run.resultLine.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let sseEvents = try #require(result["events"] as? [[String: Any]])
        #expect(sseEvents.compactMap { $0["id"] as? String } == ["1", "2", "3", "echo"])
        #expect(sseEvents.compactMap { $0["data"] as? String }.prefix(3) == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
        #expect((sseEvents.last?["data"] as? String)?.contains("[REDACTED]") == true)
        if sseEvents.count == events.parts.count {
            var due = 0.0
            for (index, event) in sseEvents.enumerated() {
                due += events.parts[index].wait / 1000
                #expect(((event["at"] as? Double) ?? 0) >= due - 0.002, "event \(index) read by httpx-sse before its pauses had passed")
            }
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)

        // Replayed at once (--pace 0): every part in a chunk of its own all the same.
        let instant = try LaunchedAirlock(["serve", cassette, "--port", "0", "--pace", "0"])
        defer { instant.stopIfRunning() }
        let port = try lastPort(in: try await instant.banner().line)
        let raw = try await rawBytesExchange(port: port, Array("GET /events?count=3&pause=0.3 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8))
        #expect(Self.chunks(ofRawResponse: raw) == events.parts.map(\.text))
        instant.process.interrupt()
        #expect(await instant.exit.status() == 0)
    }

    /// A credential the upstream echoes cut in two by the chunks it sends (the second half only
    /// once the client has the first): the recording is redacted as one body, so neither a part
    /// nor the text keeps either half, and the parts keep their boundary.
    @Test func aSecretTheUpstreamSplitsAcrossTwoPartsIsRedactedInTheHARsPartsAndText() async throws {
        let cassette = folder.appendingPathComponent("split.har").path
        let secret = "split-secret-40961"
        try await withPythonUpstream("sse_upstream.py") { upstream in
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0"])
            defer { recorder.stopIfRunning() }
            let base = "http://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            try await withClient { client in
                let received = try await readStream(client, "\(base)/split?gate=split", headers: [("Authorization", "Bearer \(secret)")]) { index, text in
                    guard index == 0 else { return }
                    #expect(!text.contains(secret), "the first part holds only half of the secret: \(text)")
                    try await release("split", upstream: upstream, client: client)
                }
                #expect(received.text == "id: echo\ndata: {\"echo\":\"Bearer \(secret)\"}\n\n", "the client sees the upstream's answer as sent")
                #expect(received.parts.count == 2)
            }
            let (status, _) = await recorder.interrupt()
            #expect(status == 0)
        }
        let file = try String(contentsOfFile: cassette, encoding: .utf8)
        #expect(!file.contains(String(secret.prefix(secret.count / 2))) && !file.contains(String(secret.suffix(secret.count / 2))), "a half of the secret reached the cassette")
        let split = try #require(try recordedParts(cassette)["/split?gate=split"])
        #expect(split.parts.map(\.text) == ["id: echo\ndata: {\"echo\":\"Bearer [REDACTED]", "\"}\n\n"])
        #expect(split.text == "id: echo\ndata: {\"echo\":\"Bearer [REDACTED]\"}\n\n")
    }

    /// `curl -N` (when the machine has it) prints the first event through the recording proxy
    /// before the upstream has sent the last.
    private func streamsThroughCurl(base: String, upstream: Int) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { return }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-N", "-s", "--max-time", "300", "\(base)/gated?gate=curl"]
        let output = Pipe()
        process.standardOutput = output
        let exit = try ChildProcess(running: process)
        defer { process.stop() }
        let lines = LineReader(output.fileHandleForReading)
        var seen: [String] = []
        while let line = await lines.next() {
            seen.append(line)
            if line == #"data: {"n":1}"# { break }
        }
        #expect(seen.last == #"data: {"n":1}"#, "curl printed \(seen) before the upstream was released")
        try await withClient { client in try await release("curl", upstream: upstream, client: client) }
        while let line = await lines.next() { seen.append(line) }
        #expect(await exit.status() == 0)
        #expect(seen.contains(#"data: {"n":2,"last":true}"#), "\(seen)")
    }

    @Test func aStreamRecordedInProcessReplaysToADataDelegatePartByPartWithItsSecretRedacted() async throws {
        let secret = "in-process-secret-4417"
        let upstreamMock = HTTPMock()
        upstreamMock.registerResponses {
            Host("**") {
                Path("/v1/chat", requiring: .post) {
                    MockResponse.events([
                        ServerSentEvent(#"{"delta":"Hel"}"#, id: "1"),
                        ServerSentEvent(#"{"delta":"lo","token":"\#(secret)"}"#, id: "2", after: 0.2),
                        ServerSentEvent("[DONE]", after: 0.2),
                    ])
                }
            }
        }
        let file = folder.appendingPathComponent("in-process.har")
        try await withServer(upstreamMock) { upstream in
            let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
            var configuration = MockServer.Configuration(upstream: upstream.baseURL)
            configuration.eventLoopGroup = testEventLoops
            let recorder = MockServer(cassette: cassette, configuration: configuration)
            try await withStarted(recorder) {
                try await withClient { client in
                    var request = HTTPClientRequest(url: recorder.baseURL.absoluteString + "/v1/chat")
                    request.method = .POST
                    request.headers.add(name: "Authorization", value: "Bearer \(secret)")
                    request.body = .bytes(ByteBuffer(string: #"{"stream":true}"#))
                    let response = try await client.execute(request, timeout: hangGuard)
                    var parts: [String] = []
                    for try await buffer in response.body { parts.append(String(buffer: buffer)) }
                    #expect(parts.joined().contains(secret), "the client gets the answer as sent")
                }
            }
            try cassette.save()
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains(secret))
        #expect(text.contains("_parts"))
        let archive = try HTTPArchive(contentsOf: file)
        let stream = try #require(archive.entries.first?.response?.stream)
        #expect(stream.kind == .events)
        #expect(stream.parts.count == 3, "\(stream.parts.map { String(decoding: $0.bytes, as: UTF8.self) })")
        #expect(String(decoding: stream.parts[1].bytes, as: UTF8.self) == "id: 2\ndata: {\"delta\":\"lo\",\"token\":\"[REDACTED]\"}\n\n")
        #expect(archive.entries.first?.response?.body == stream.body)

        // Replayed in process, to a URLSession data delegate: one piece per recorded part.
        let mock = try HTTPMock(cassette: Cassette(contentsOf: file, mode: .none, environment: [:]))
        let collector = PieceCollector()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = mock.urlSession.configuration.protocolClasses
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let address = try #require(archive.entries.first?.url)
        var request = URLRequest(url: try #require(URL(string: address)))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"stream":true}"#.utf8)
        let sent = Date()
        session.dataTask(with: request).resume()
        for await error in collector.ended { #expect(error == nil) }
        let pieces = collector.pieces.withLock { $0 }
        #expect(pieces.map(\.data) == stream.parts.map(\.bytes))
        if pieces.count == stream.parts.count {
            var due = 0.0
            for (index, piece) in pieces.enumerated() {
                due += stream.parts[index].delay
                #expect(piece.at.timeIntervalSince(sent) >= due - 0.002)
            }
        }
    }

    @Test func aHARWithoutPartsReplaysWholeAndOneWithPartsReplaysThemAtThePaceAsked() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("written.har")
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [
              {"startedDateTime": "2026-11-27T10:00:00.000Z", "time": 10,
               "request": {"method": "GET", "url": "https://api.example.com/feed", "headers": []},
               "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                 "content": {"size": 26, "mimeType": "text/event-stream", "text": "data: one\\n\\ndata: two\\n\\n",
                   "_parts": [{"wait": 0, "text": "data: one\\n\\n"}, {"wait": 300, "text": "ZGF0YTogdHdvCgo=", "encoding": "base64"}]}}},
              {"startedDateTime": "2026-11-27T10:00:01.000Z", "time": 10,
               "request": {"method": "GET", "url": "https://api.example.com/plain", "headers": []},
               "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"}],
                 "content": {"size": 5, "mimeType": "text/plain", "text": "whole"}}}
            ]}}
            """
        try Data(har.utf8).write(to: file)
        let archive = try HTTPArchive(contentsOf: file)
        let stream = try #require(archive.entries.first?.response?.stream)
        #expect(stream.parts.map(\.delay) == [0, 0.3])
        #expect(stream.parts.map { String(decoding: $0.bytes, as: UTF8.self) } == ["data: one\n\n", "data: two\n\n"])
        #expect(archive.entries.last?.response?.stream == nil)
        // Written again, the parts come back as they were.
        let again = try HTTPArchive(data: archive.data(redaction: .none), source: "again")
        #expect(again.entries.first?.response?.stream?.parts == stream.parts)

        for pace in [StreamPace.asRecorded, .scaled(by: 2), .instant] {
            let mock = try HTTPMock(cassette: Cassette(contentsOf: file, mode: .none, matching: .init(matchesAnyHost: true), environment: [:], pace: pace))
            try await withServer(mock) { server in
                try await withClient { client in
                    let feed = try await readStream(client, server.baseURL.absoluteString + "/feed")
                    #expect(feed.text == "data: one\n\ndata: two\n\n")
                    #expect(feed.headers["Transfer-Encoding"] == ["chunked"])
                    if feed.parts.count == 2 {
                        #expect(feed.arrivals[1] >= 0.3 * pace.factor - 0.002, "\(pace): \(feed.arrivals)")
                    }
                    let plain = try await readStream(client, server.baseURL.absoluteString + "/plain")
                    #expect(plain.text == "whole")
                    #expect(plain.headers["Content-Length"] == ["5"])
                }
                let raw = try await rawBytesExchange(port: server.port, Array("GET /feed HTTP/1.1\r\nHost: api.example.com\r\nConnection: close\r\n\r\n".utf8))
                let miss = String(decoding: raw, as: UTF8.self)
                #expect(miss.hasPrefix("HTTP/1.1 502"), "each recorded response answers once: \(miss.prefix(40))")
            }
        }
    }

    @Test func anHTTPMockCassetteRecordsAStreamPartByPartThroughItsPassthroughToADataDelegate() async throws {
        let gate = StreamGate()
        let upstreamMock = HTTPMock()
        upstreamMock.registerResponses {
            Host("**") {
                Path("/feed") { MockResponse.events([ServerSentEvent("one", id: "1"), ServerSentEvent("two", id: "2", after: 0.2)], ending: .gate(gate)) }
            }
        }
        try await withServer(upstreamMock) { upstream in
            let cassette = try Cassette(contentsOf: folder.appendingPathComponent("passthrough.har"), mode: .all, environment: [:])
            let mock = HTTPMock(cassette: cassette)
            // The upstream ends the stream only once the delegate has both events.
            let opened = Locked(false)
            let collector = PieceCollector { data in
                guard String(decoding: data, as: UTF8.self).contains("data: two") else { return }
                opened.withLock { $0 = true }
                gate.open()
            }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = mock.urlSession.configuration.protocolClasses
            let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            session.dataTask(with: upstream.baseURL.appendingPathComponent("feed")).resume()
            for await error in collector.ended { #expect(error == nil) }
            #expect(opened.withLock { $0 })
            let stream = try #require(cassette.recordedEntries.first?.response?.stream)
            #expect(stream.kind == .events)
            #expect(stream.body == Data("id: 1\ndata: one\n\nid: 2\ndata: two\n\n".utf8))
            #expect(stream.parts.count >= 2)
            try cassette.save()
            #expect(try String(contentsOf: cassette.url, encoding: .utf8).contains("_parts"))
        }
    }

    @Test func aStreamOverTheBodyLimitIsRelayedWholeButNotRecorded() async throws {
        let upstreamMock = HTTPMock()
        upstreamMock.registerResponses {
            Host("**") {
                Path("/long") { MockResponse.events((1...4).map { ServerSentEvent(String(repeating: "x", count: 20), id: "\($0)", after: 0.05) }) }
            }
        }
        let file = folder.appendingPathComponent("limit.har")
        try await withServer(upstreamMock) { upstream in
            let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
            try await withRecordingServer(cassette, upstream: upstream, maxBodySize: 64) { recorder in
                try await withClient { client in
                    let received = try await readStream(client, recorder.baseURL.absoluteString + "/long")
                    #expect(received.text.components(separatedBy: "data: ").count == 5, "every event reaches the client: \(received.text)")
                }
                let entry = try #require(recorder.requests.last?.response)
                #expect(entry.outcome == .failure(.notRecorded(.stream, limit: 64)), "\(entry.error ?? "")")
            }
            #expect(cassette.recordedEntries.isEmpty)
        }
    }

    @Test func httpLoggingPassesEachPieceOnToADataDelegateAsItArrivesAndRecordsTheParts() async throws {
        let gate = StreamGate()
        let upstreamMock = HTTPMock()
        upstreamMock.registerResponses {
            Host("**") {
                Path("/feed") {
                    MockResponse.events([ServerSentEvent("one", id: "1"), ServerSentEvent("two", id: "2", after: 0.2)], lifetime: .eternal, ending: .gate(gate))
                }
            }
        }
        try await withServer(upstreamMock) { upstream in
            let httpLog = HTTPLogger()
            let url = upstream.baseURL.appendingPathComponent("feed")
            // The upstream ends the stream only once the gate opens, and the gate opens only
            // once the delegate has both events: the logger passes pieces on, or this never ends.
            let opened = Locked(false)
            let collector = PieceCollector { data in
                guard String(decoding: data, as: UTF8.self).contains("data: two") else { return }
                opened.withLock { $0 = true }
                gate.open()
            }
            let session = httpLog.makeURLSession(configuration: .ephemeral, delegate: collector)
            defer { session.finishTasksAndInvalidate() }
            let sent = Date()
            session.dataTask(with: url).resume()
            for await error in collector.ended { #expect(error == nil) }
            #expect(opened.withLock { $0 })
            let pieces = collector.pieces.withLock { $0 }
            #expect(pieces.map { String(decoding: $0.data, as: UTF8.self) }.joined() == "id: 1\ndata: one\n\nid: 2\ndata: two\n\n")
            #expect(pieces.count >= 2)
            if let last = pieces.last { #expect(last.at.timeIntervalSince(sent) >= 0.2) }
            let recorded = try #require(httpLog.requests.last?.response)
            #expect(recorded.status == 200)
            #expect(recorded.stream?.kind == .events)
            #expect(recorded.stream?.body == recorded.body)
            #expect((recorded.stream?.parts.count ?? 0) >= 2)

            // A completion handler still gets the whole body, through the logger's own session.
            let plain = httpLog.makeURLSession(configuration: .ephemeral)
            defer { plain.finishTasksAndInvalidate() }
            let (data, _) = try await plain.data(from: url)
            #expect(String(decoding: data, as: UTF8.self) == "id: 1\ndata: one\n\nid: 2\ndata: two\n\n")
        }
    }

    @Test(arguments: [("as-recorded", 1.0), ("instant", 0), ("0", 0), ("2", 2), ("0.5", 0.5)])
    func aPaceIsSpelledAsTheCommandLineTakesIt(_ text: String, _ factor: Double) {
        #expect(StreamPace(text)?.factor == factor)
    }

    @Test(arguments: ["fast", "-1", "nan"])
    func aPaceTheCommandLineCannotTakeIsRefused(_ text: String) throws {
        #expect(StreamPace(text) == nil)
        let (status, _, errors) = try LaunchedAirlock.run(["serve", "Examples/stubs.json", "--pace=\(text)"])
        #expect(status == 64)
        #expect(errors.contains("--pace is \"\(text)\"; use as-recorded, instant, or a factor"), "\(errors)")
    }

    /// The payloads of a raw HTTP/1.1 response's chunks, in order; `nil` when it is not chunked.
    static func chunks(ofRawResponse bytes: [UInt8]) -> [String]? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = (0...(bytes.count - separator.count)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        var index = headEnd + 4
        var chunks: [String] = []
        while index < bytes.count {
            guard let lineEnd = (index..<(bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16)
            else { return nil }
            if size == 0 { return chunks }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { return nil }
            chunks.append(String(decoding: bytes[start..<start + size], as: UTF8.self))
            index = start + size + 2
        }
        return nil
    }
}
