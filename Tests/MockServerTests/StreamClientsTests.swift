import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import ProcessSupport
import Testing

/// Streams spelled in stub files, served by `airlock serve` (a child process) and read by clients
/// no one here wrote: PyPI's httpx-sse and `curl -N` (Tests/Tools/stream_clients.py).
struct StreamClientsTests {
    private static func write(_ text: String, named name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-streams-\(UUID().uuidString)-\(name)")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// An LLM-style `POST` answered by events: httpx-sse parses each event (ids and retry
    /// included), curl -N prints them one by one, each no sooner than its pauses allow.
    @Test func httpxSSEAndCurlReadTheEventsOfAStubFileOneByOne() async throws {
        let stubs = try Self.write(
            #"""
            {"stubs": [{"path": "/v1/chat/completions", "method": "POST", "responses": [{"lifetime": "eternal", "events": [
              {"data": {"choices": [{"delta": {"content": "Hel"}}]}, "id": "1", "retry": 2500},
              {"data": {"choices": [{"delta": {"content": "lo"}}]}, "id": "2", "event": "delta", "delay": 0.4},
              {"comment": "keep-alive"},
              {"data": "[DONE]", "delay": 0.4}
            ]}]}]}
            """#,
            named: "stubs.json"
        )
        let expected = try Self.write(
            #"""
            [{"event": "message", "data": "{\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}", "id": "1", "retry": 2500, "after": 0},
             {"event": "delta", "data": "{\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}", "id": "2", "after": 0.4},
             {"comment": true},
             {"event": "message", "data": "[DONE]", "id": "2", "after": 0.8}]
            """#,
            named: "expected.json"
        )
        defer {
            try? FileManager.default.removeItem(at: stubs)
            try? FileManager.default.removeItem(at: expected)
        }
        let airlock = try LaunchedAirlock(["serve", stubs.path, "--port", "0"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        let run = try await ToolScriptRun.run(
            ["sse", "--url", "\(base)/v1/chat/completions", "--method", "POST", "--body", #"{"stream":true}"#, "--comments", "1", "--expect", expected.path],
            script: "stream_clients.py"
        )
        run.expectSuccess()
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
    }

    /// A browser's own `EventSource` (headless Chromium, driven by Selenium) reads a stub file's
    /// events: multi-line data, a custom event type, ids; when the stream ends it reconnects after
    /// the `retry` the stream set, sending `Last-Event-ID`, and a scenario's templated stub resumes
    /// from it.
    @Test func chromiumsEventSourceReadsTheEventsAndResumesWithLastEventID() async throws {
        let page = #"""
            <!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>events</title><script>
            window.received = []; window.finished = false; const opened = performance.now();
            const source = new EventSource('/events');
            function keep(event) { window.received.push({type: event.type, data: event.data, lastEventId: event.lastEventId, at: performance.now() - opened}); }
            source.onmessage = keep;
            source.addEventListener('delta', keep);
            source.addEventListener('done', (event) => { keep(event); source.close(); window.finished = true; });
            </script>
            """#
        let stubs: [String: Any] = ["stubs": [
            ["path": "/page", "responses": [["body": page, "headers": ["Content-Type": "text/html; charset=utf-8"], "lifetime": "eternal"]]],
            ["path": "/events", "scenarioName": "feed", "newScenarioState": "resumed", "responses": [["events": [
                ["data": "one", "id": "1", "retry": 300],
                ["data": "two\nlines", "event": "delta", "id": "2", "delay": 0.2],
            ]]]],
            ["path": "/events", "scenarioName": "feed", "requiredScenarioState": "resumed", "responses": [["template": true, "events": [
                ["data": "resumed after {{request.headers.Last-Event-ID}}", "event": "done", "id": "3"],
            ]]]],
        ]]
        let file = try Self.write(String(decoding: try JSONSerialization.data(withJSONObject: stubs), as: UTF8.self), named: "browser.json")
        defer { try? FileManager.default.removeItem(at: file) }
        let airlock = try LaunchedAirlock(["serve", file.path, "--port", "0"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        let run = try await ToolScriptRun.run(["eventsource", "--page", "\(base)/page"], script: "browser_clients.py")
        run.expectSuccess()
        let result = try #require(run.resultLine.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        guard let events = result["events"] as? [[String: Any]] else {
            // No Chromium on this machine: the script says so as a finding (CI installs it).
            #expect(run.findings.contains { $0.contains("Chromium") }, "\(run.lines.suffix(20))")
            return
        }
        #expect(events.map { $0["type"] as? String } == ["message", "delta", "done"])
        #expect(events.map { $0["data"] as? String } == ["one", "two\nlines", "resumed after 2"])
        #expect(events.map { $0["lastEventId"] as? String } == ["1", "2", "3"])
        let times = events.compactMap { $0["at"] as? Double }
        if times.count == 3 {
            // Times count from the page's start, before the request went out: the pause before the
            // second event, then the retry the stream asked for, are lower bounds on them (an
            // event may be handled late on a loaded machine, never before its time).
            #expect(times[1] >= 200)
            #expect(times[2] >= 200 + 300)
        }
        #expect((result["console"] as? [String]) == [], "the page logged errors")
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
    }

    /// NDJSON parts from a stub file keep their boundaries; a template in an event echoes the
    /// `Last-Event-ID` a reconnecting client sends.
    @Test func stubFilePartsAndTemplatedEventsThroughTheServer() async throws {
        let mock = HTTPMock()
        mock.registerStubs(
            try StubFile(
                data: Data(
                #"""
                {"stubs": [
                  {"path": "/api/generate", "responses": [{"parts": [
                    {"json": {"response": "Hel"}},
                    {"json": {"response": "lo", "done": true}, "delay": 0.1}
                  ], "headers": {"Content-Type": "application/x-ndjson"}}]},
                  {"path": "/events", "responses": [{"template": true, "lifetime": "eternal", "events": [
                    {"data": "resumed after {{request.headers.Last-Event-ID}}", "id": "{{request.headers.Last-Event-ID}}-next"}
                  ]}]}
                ]}
                """#.utf8
                ),
                source: "streams.json",
                baseDirectory: FileManager.default.temporaryDirectory
            )
        )
        try await withServer(mock) { server in
            try await withClient { client in
                var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/api/generate")
                request.method = .GET
                let response = try await client.execute(request, timeout: hangGuard)
                #expect(response.headers["Content-Type"] == ["application/x-ndjson"])
                var parts: [String] = []
                for try await buffer in response.body { parts.append(String(buffer: buffer)) }
                #expect(parts == [#"{"response":"Hel"}"# + "\n", #"{"response":"lo","done":true}"# + "\n"])

                let resumed = try await send(client, server.baseURL.absoluteString + "/events", headers: [("Last-Event-ID", "41")])
                #expect(resumed.headers["Content-Type"] == ["text/event-stream"])
                #expect(resumed.headers["Cache-Control"] == ["no-cache"])
                #expect(resumed.text == "id: 41-next\ndata: resumed after 41\n\n")
            }
        }
    }

    /// Stream fields a stub file gets wrong are refused with the field named.
    @Test(arguments: [
        (#"{"path": "/e", "responses": [{"events": [{"data": "x", "delay": -1}]}]}"#, "the delay -1.0 is not a finite, non-negative number of seconds"),
        (#"{"path": "/e", "responses": [{"events": [{"id": "1\n2"}]}]}"#, "holds a line break or NUL"),
        (#"{"path": "/e", "responses": [{"events": [{"delay": 1}]}]}"#, "has none of data, event, id, retry and comment"),
        (#"{"path": "/e", "responses": [{"parts": [{"text": "a", "json": 1}]}]}"#, "has more than one of text, json and base64"),
        (#"{"path": "/e", "responses": [{"events": [], "body": "x"}]}"#, "has more than one of body, json, file, fault, events, parts and webSocket"),
        (#"{"path": "/e", "responses": [{"body": "x", "ending": "keepOpen"}]}"#, "is given for a response that is not a stream"),
        (#"{"path": "/e", "responses": [{"events": [{"data": "x"}], "ending": "later"}]}"#, "expected \"close\" (the default) or \"keepOpen\""),
        (#"{"path": "/e", "responses": [{"events": [{"data": "x"}], "dribble": {"chunks": 2, "seconds": 1}}]}"#, "a \"delay\" on each event or part instead"),
    ])
    func badStreamFieldsAreRefusedNamingTheField(document: String, message: String) throws {
        let mock = HTTPMock()
        do {
            mock.registerStubs(try StubFile(data: Data(document.utf8), source: "bad.json", baseDirectory: FileManager.default.temporaryDirectory))
            Issue.record("accepted \(document)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }
}
