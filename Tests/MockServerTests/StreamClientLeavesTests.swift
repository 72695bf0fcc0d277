import AirlockBase
import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPTestSupport
import MockServer
import NIOCore
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streams a client leaves before the upstream ends them, recorded through `airlock record` with
/// real clients: AsyncHTTPClient cancelling its request, httpx-sse closing the stream once it has
/// an event (as the MCP Python SDK closes each answer), and Chromium's `EventSource` closed by its
/// page. Each is recorded with the part the client got and that it left, and the upstream ending
/// the stream a moment later does not lose it. The upstream holds its second event until the test
/// opens a gate, which it does only once the recorder's journal holds the exchange: the client has
/// left by construction. A replay keeps the stream open after its last part for as long as the
/// recording's client stayed, then ends it; so does a standing stream the server ended.
@Suite struct StreamClientLeavesTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-leaves")

    /// The recorded response's `content` of the one entry of `/gated?gate=NAME` in `file`.
    private func recordedContent(_ file: String, path: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        let entries = try #require((object?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let entry = try #require(entries.first { (($0["request"] as? [String: Any])?["url"] as? String)?.hasSuffix(path) == true }, "no entry for \(path) in \(entries.count)")
        return try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
    }

    /// Waits until the recorder's journal holds the ended exchange of `path` (answered, or failed):
    /// the relay has recorded it, so the client has left and the upstream's end can no longer come
    /// first.
    private func waitUntilRecorded(_ path: String, base: String, client: HTTPClient) async throws {
        for _ in 0..<6000 {
            let answer = try await send(client, "\(base)/__admin/requests")
            let object = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
            let requests = object?["requests"] as? [[String: Any]] ?? []
            let ended = requests.contains { request in
                ((request["request"] as? [String: Any])?["url"] as? String) == path
                    && (((request["response"] as? [String: Any])?["status"] as? Int ?? 0) != 0 || request["error"] != nil)
            }
            if ended { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the recorder's journal never held an ended \(path) (a hang guard of 300 s, not a performance limit)")
    }

    /// Records `/gated?gate=NAME` through `airlock record` while `leave` reads it and leaves; then
    /// opens the gate (the upstream ends the stream a moment later) and stops the recorder.
    /// Returns the cassette's path and what the recorder printed last.
    private func recordALeftStream(
        _ name: String,
        leave: @Sendable (_ base: String, _ upstream: Int) async throws -> Void
    ) async throws -> (cassette: String, printed: String?) {
        let cassette = temporary.url.appendingPathComponent("\(name).har").path
        var printed: String?
        try FileManager.default.createDirectory(at: temporary.url, withIntermediateDirectories: true)
        try await withPythonUpstream("sse_upstream.py") { upstream in
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0"])
            defer { recorder.stopIfRunning() }
            let base = "http://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            try await leave(base, upstream)
            try await withClient { client in
                try await waitUntilRecorded("/gated?gate=\(name)", base: base, client: client)
                // The upstream now ends the stream the client left (its write fails, or the
                // connection is already gone): the recording stays as the client saw it.
                let released = try await send(client, "http://127.0.0.1:\(upstream)/release?gate=\(name)")
                #expect(released.text == "released")
            }
            let (status, lines) = await recorder.interrupt()
            #expect(status == 0)
            printed = lines.last
        }
        return (cassette, printed)
    }

    /// What every left stream's recording holds: the one event the client got, and that it left.
    private func expectRecordedAsLeft(_ cassette: String, gate: String, printed: String?, recorded: Int = 1) throws {
        #expect(printed == "Airlock recorded \(recorded) exchange(s); \(cassette) holds \(recorded).")
        let content = try recordedContent(cassette, path: "/gated?gate=\(gate)")
        let parts = content["_parts"] as? [[String: Any]] ?? []
        #expect(parts.map { $0["text"] as? String } == ["id: 1\ndata: {\"n\":1}\n\n"])
        let end = try #require(content["_end"] as? [String: Any], "no _end in \(content)")
        #expect(end["clientLeft"] as? Bool == true)
        #expect(((end["wait"] as? Double) ?? -1) >= 0)
        #expect(content["text"] as? String == "id: 1\ndata: {\"n\":1}\n\n")
    }

    /// Reads `url` with AsyncHTTPClient until the first event, then cancels the request.
    private static func leaveWithAsyncHTTPClient(_ url: String) async throws {
        try await withClient { client in
            let firstEvent = AsyncStream<String>.makeStream()
            let reading = Task {
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "Accept", value: "text/event-stream")
                let response = try await client.execute(request, timeout: hangGuard)
                for try await buffer in response.body {
                    firstEvent.continuation.yield(String(buffer: buffer))
                }
            }
            var iterator = firstEvent.stream.makeAsyncIterator()
            let first = await iterator.next()
            #expect(first == "id: 1\ndata: {\"n\":1}\n\n")
            // The client leaves: the request is cancelled mid-stream.
            reading.cancel()
            _ = await reading.result
        }
    }

    @Test func asyncHTTPClientCancellingMidStreamIsRecordedWithWhatItGot() async throws {
        let (cassette, printed) = try await recordALeftStream("ahc") { base, _ in
            try await Self.leaveWithAsyncHTTPClient("\(base)/gated?gate=ahc")
        }
        try expectRecordedAsLeft(cassette, gate: "ahc", printed: printed)
    }

    @Test func httpxSSEClosingAfterItsEventIsRecordedWithWhatItGot() async throws {
        let (cassette, printed) = try await recordALeftStream("httpx") { base, _ in
            let run = try await ToolScriptRun.run(["read", "--url", "\(base)/gated?gate=httpx", "--max-events", "1"], script: "stream_clients.py")
            run.expectSuccess()
            let result = try #require(run.resultLine.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            let events = try #require(result["events"] as? [[String: Any]])
            #expect(events.compactMap { $0["data"] as? String } == [#"{"n":1}"#])
        }
        try expectRecordedAsLeft(cassette, gate: "httpx", printed: printed)
    }

    @Test func chromiumsEventSourceClosedByItsPageIsRecordedWithWhatItGot() async throws {
        let hasBrowser = Locked(true)
        let (cassette, printed) = try await recordALeftStream("browser") { base, _ in
            let run = try await ToolScriptRun.run(["eventsource", "--page", "\(base)/page?gate=browser"], script: "browser_clients.py")
            run.expectSuccess()
            let result = try #require(run.resultLine.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            guard let events = result["events"] as? [[String: Any]] else {
                // No Chromium on this machine: the script says so as a finding (CI installs it);
                // another client reads the stream and leaves, so that the recording ends.
                #expect(run.findings.contains { $0.contains("Chromium") }, "\(run.lines.suffix(20))")
                hasBrowser.withLock { $0 = false }
                return try await Self.leaveWithAsyncHTTPClient("\(base)/gated?gate=browser")
            }
            #expect(events.map { $0["data"] as? String } == [#"{"n":1}"#])
            #expect((result["console"] as? [String]) == [], "the page logged errors")
        }
        // With the browser, its page is recorded too.
        try expectRecordedAsLeft(cassette, gate: "browser", printed: printed, recorded: hasBrowser.withLock { $0 } ? 2 : 1)
    }

    /// A replay keeps a left stream open after its last part for as long as the recording's
    /// client stayed (a lower bound: never sooner), then ends it by itself.
    @Test func aLeftStreamReplaysOpenForAsLongAsItsClientStayedThenEnds() async throws {
        let cassette = temporary.url.appendingPathComponent("left.har")
        try FileManager.default.createDirectory(at: temporary.url, withIntermediateDirectories: true)
        // A recording whose client left 1.5 s after the event, the stream still open.
        let har = #"""
            {"log": {"version": "1.2", "creator": {"name": "Airlock", "version": "0.1"}, "entries": [{
              "startedDateTime": "2026-11-28T12:00:00.000Z", "time": 1500,
              "request": {"method": "GET", "url": "https://api.example.com/events", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
              "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                "content": {"size": 16, "mimeType": "text/event-stream", "text": "data: hello\n\n",
                  "_parts": [{"wait": 0, "text": "data: hello\n\n"}], "_end": {"wait": 1500, "clientLeft": true}},
                "redirectURL": "", "headersSize": -1, "bodySize": 16},
              "cache": {}, "timings": {"send": 0, "wait": 1500, "receive": 0}}]}}
            """#
        try Data(har.utf8).write(to: cassette)
        let server = try LaunchedAirlock(["serve", cassette.path, "--port", "0"])
        defer { server.stopIfRunning() }
        let (_, base) = try await server.banner()
        try await withClient { client in
            let replayed = try await readStream(client, "\(base)/events")
            #expect(replayed.text == "data: hello\n\n")
            // It ended by itself (the read above returned), and no sooner than 1.5 s after the event.
            let ended = Date().timeIntervalSince(replayed.sent)
            #expect(ended >= 1.5, "the replay ended \(ended) s after the request")
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
    }

    /// A standing stream (MCP's GET stream: a head, no event) that the server ends after a while
    /// is recorded as a stream with its wait, and a replay stays open as long: a client does not
    /// reconnect at once into a replay miss. The upstream ends it only when the test opens its
    /// gate, a second after the client had the head (which the recorder had before): the recorded
    /// wait is at least that second by construction.
    @Test func aStandingStreamTheServerEndsIsRecordedWithItsWaitAndReplaysOpen() async throws {
        let cassette = temporary.url.appendingPathComponent("standing.har").path
        try FileManager.default.createDirectory(at: temporary.url, withIntermediateDirectories: true)
        try await withPythonUpstream("sse_upstream.py") { upstream in
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0"])
            defer { recorder.stopIfRunning() }
            let base = "http://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            try await withClient { client in
                let response = try await client.execute(HTTPClientRequest(url: "\(base)/standing?gate=standing"), timeout: hangGuard)
                #expect(response.status.code == 200)
                try await Task.sleep(for: .seconds(1))
                _ = try await send(client, "http://127.0.0.1:\(upstream)/release?gate=standing")
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(body.readableBytes == 0)
            }
            let (status, lines) = await recorder.interrupt()
            #expect(status == 0)
            #expect(lines.last == "Airlock recorded 1 exchange(s); \(cassette) holds 1.")
        }
        let content = try recordedContent(cassette, path: "/standing?gate=standing")
        #expect((content["_parts"] as? [Any])?.isEmpty == true)
        let end = try #require(content["_end"] as? [String: Any], "no _end in \(content)")
        #expect(end["clientLeft"] == nil)
        let wait = try #require(end["wait"] as? Double)
        #expect(wait >= 1000, "the upstream ended the stream a second or more after its head: \(wait) ms")

        let server = try LaunchedAirlock(["serve", cassette, "--port", "0"])
        defer { server.stopIfRunning() }
        let (_, base) = try await server.banner()
        try await withClient { client in
            let replayed = try await readStream(client, "\(base)/standing?gate=standing")
            #expect(replayed.status == 200)
            #expect(replayed.headers["Content-Type"] == ["text/event-stream"])
            let ended = Date().timeIntervalSince(replayed.sent)
            #expect(ended >= wait / 1000, "the replay ended \(ended) s after the request")
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
    }

    /// In process: an `HTTPMock` cassette records through its passthrough a stream whose client —
    /// a data delegate — cancels its task once it has the first event; the upstream (a mock
    /// server whose stream stays open until a gate the test opens) ends it only afterwards.
    @Test func anHTTPMockCassetteRecordsAStreamItsDataDelegateLeft() async throws {
        let gate = StreamGate()
        let upstreamMock = HTTPMock()
        upstreamMock.registerResponses {
            Host("**") {
                Path("/feed") { MockResponse.events([ServerSentEvent("one", id: "1")], ending: .gate(gate)) }
            }
        }
        try await withServer(upstreamMock) { upstream in
            try FileManager.default.createDirectory(at: temporary.url, withIntermediateDirectories: true)
            let cassette = try Cassette(contentsOf: temporary.url.appendingPathComponent("in-process.har"), mode: .all, environment: [:])
            let mock = HTTPMock(cassette: cassette)
            let task = Locked<URLSessionDataTask?>(nil)
            // The client has the first event and leaves.
            let collector = PieceCollector { _ in task.withLock { $0 }?.cancel() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = mock.urlSession.configuration.protocolClasses
            let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let feed = session.dataTask(with: upstream.baseURL.appendingPathComponent("feed"))
            task.withLock { $0 = feed }
            feed.resume()
            for await error in collector.ended { #expect((error as? URLError)?.code == .cancelled) }
            try await waitUntil("the cassette holds the stream its client left") { !cassette.recordedEntries.isEmpty }
            gate.open()
            let stream = try #require(cassette.recordedEntries.first?.response?.stream)
            #expect(stream.body == Data("id: 1\ndata: one\n\n".utf8))
            guard case .clientLeft(let wait) = stream.ending else {
                Issue.record("the stream's ending is \(stream.ending), not the client's leaving")
                return
            }
            #expect(wait >= 0)
            try cassette.save()
            #expect(try String(contentsOf: cassette.url, encoding: .utf8).contains(#""clientLeft" : true"#))
        }
    }
}
