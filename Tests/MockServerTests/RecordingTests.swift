import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOHTTP1
import Testing
import ProcessSupport

/// Recording for every client, through the server: `airlock record` as a reverse proxy, the
/// forward-proxy mode, `airlock serve` replaying the result, `airlock redact` and
/// `airlock cassette check` — the CLI as a child process, clients over real sockets.
struct RecordingTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-recording")
    private var folder: URL { temporary.url }

    /// An upstream standing in for the real API: `/items` answers "one", then "two"; `POST /users`
    /// echoes nothing secret but a created id.
    private func upstream() -> HTTPMock {
        let api = HTTPMock()
        api.addResponses(forPath: "/items", host: "**") {
            MockResponse.plaintext("one")
            MockResponse.plaintext("two")
        }
        api.addResponses(forPath: "/users", host: "**", requiring: .post) {
            MockResponse.plaintext(#"{"id":7}"#, status: .created)
        }
        return api
    }

    /// Starts `airlock` with `arguments`; returns the process, its exit watcher, its output lines
    /// and the base URL its banner printed.
    private func launch(_ arguments: [String]) async throws -> (TestProcess, ChildProcess, LineReader, String) {
        let path = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let exit = try ChildProcess(running: process)
        let lines = LineReader(output.fileHandleForReading)
        let banner = try #require(await lines.next(), "airlock printed nothing")
        let start = try #require(banner.range(of: "http://127.0.0.1:", options: .backwards), "\(banner)")
        let base = String(banner[start.lowerBound...].prefix { !$0.isWhitespace })
        return (process, exit, lines, base)
    }

    /// Many exchanges recorded at once all reach the file while the recorder runs: the file is
    /// written in the background, one queued write at a time, each with every entry recorded
    /// by the time it runs — none is left out.
    @Test func everyExchangeOfAConcurrentLoadReachesTheFileWhileRecording() async throws {
        let cassette = folder.appendingPathComponent("load.har")
        let api = HTTPMock()
        api.addResponses(forPath: "/n", host: "**") { MockResponse.plaintext("n", lifetime: .eternal) }
        try await withServer(api) { real in
            let (process, _, _, base) = try await launch(["record", "--target", real.baseURL.absoluteString, "--cassette", cassette.path, "--port", "0", "--quiet"])
            defer { process.stop() }
            let total = 240
            try await withClient { client in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            for index in stride(from: worker, to: total, by: 8) {
                                let answer = try await send(client, "\(base)/n?i=\(index)")
                                #expect(answer.text == "n")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Polled with a hang guard, not a time limit: a lost write would leave it short for good.
            var recorded = Set<String>()
            let deadline = ContinuousClock.now + .seconds(120)
            while recorded.count < total, ContinuousClock.now < deadline {
                if let data = try? Data(contentsOf: cassette),
                    let log = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["log"] as? [String: Any],
                    let entries = log["entries"] as? [[String: Any]]
                {
                    recorded = Set(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String })
                }
                if recorded.count < total { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(recorded == Set((0..<total).map { "\(real.baseURL.absoluteString)/n?i=\($0)" }), "\(recorded.count) of \(total) in the file")
        }
    }

    @Test func recordsThroughTheCLIReverseProxyThenServesTheCassette() async throws {
        let cassette = folder.appendingPathComponent("api.har").path
        let api = upstream()
        try await withServer(api) { real in
            let (process, exit, lines, base) = try await launch(["record", "--target", real.baseURL.absoluteString, "--cassette", cassette, "--port", "0"])
            defer { process.stop() }
            try await withClient { client in
                #expect(try await send(client, "\(base)/items").text == "one")
                #expect(try await send(client, "\(base)/items").text == "two")
                let created = try await send(
                    client,
                    "\(base)/users?access_token=QUERYSECRET",
                    method: .POST,
                    headers: [("Authorization", "Bearer HEADERSECRET"), ("Content-Type", "application/json")],
                    body: #"{"name":"Alice","password":"BODYSECRET"}"#
                )
                #expect(created.status == 201)
            }
            for _ in 0..<3 { _ = await lines.next() }
            process.interrupt()
            #expect(await exit.status() == 0)
            #expect(await lines.next() == "Airlock recorded 3 exchange(s); \(cassette) holds 3.")
        }
        #expect(api.requests.count == 3)
        let text = try String(contentsOfFile: cassette, encoding: .utf8)
        for secret in ["QUERYSECRET", "HEADERSECRET", "BODYSECRET"] {
            #expect(!text.contains(secret), "\(secret) reached the cassette")
        }
        let archive = try HTTPArchive(contentsOf: URL(fileURLWithPath: cassette))
        #expect(archive.entries.map(\.path) == ["/items", "/items", "/users"])
        #expect(archive.entries.allSatisfy { $0.url.hasPrefix("http://127.0.0.1:") })

        // The upstream is gone; the cassette answers, in recorded order, on any host.
        let (process, exit, _, base) = try await launch(["serve", cassette, "--port", "0"])
        defer { process.stop() }
        try await withClient { client in
            #expect(try await send(client, "\(base)/items").text == "one")
            #expect(try await send(client, "\(base)/items").text == "two")
            let created = try await send(client, "\(base)/users?access_token=OTHER", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"password":"x","name":"Alice"}"#)
            #expect(created.status == 201 && created.text == #"{"id":7}"#)
            // A third /items was never recorded: an answer no client takes for the service's.
            let missing = try await send(client, "\(base)/items")
            #expect(missing.status == 502)
            #expect(missing.headers["Airlock-Error"] == ["replay-miss"])
            #expect(missing.text.contains("used up (served 2)"), "\(missing.text)")
            #expect(missing.text.contains("To record it: airlock record"), "\(missing.text)")
        }
        process.interrupt()
        #expect(await exit.status() == 0)
    }

    @Test func theForwardProxyModeRecordsPlainHTTPTargets() async throws {
        try await withServer(upstream()) { real in
            let cassette = try Cassette(contentsOf: folder.appendingPathComponent("proxy.har"), mode: .all, environment: [:])
            var configuration = MockServer.Configuration()
            configuration.eventLoopGroup = testEventLoops
            let recorder = MockServer(cassette: cassette, configuration: configuration)
            try await recorder.start()
            try await withClient(proxyPort: recorder.port) { (client: HTTPClient) async throws in
                #expect(try await send(client, "\(real.baseURL.absoluteString)/items").text == "one")
            }
            try await recorder.shutdown()
            try cassette.save()
            let archive = try HTTPArchive(contentsOf: cassette.url)
            #expect(archive.entries.map(\.url) == ["\(real.baseURL.absoluteString)/items"])
            #expect(archive.entries.first?.response?.body == Data("one".utf8))
        }
    }

    /// A forward proxy never forwards a request addressed to itself — in origin form (`Host`
    /// naming it) or absolute form (proxy-style, to its own address): that would loop until the
    /// file descriptors run out. The request is unmatched (`404`, with the diagnosis), and the
    /// same holds for a server whose unmocked policy passes requests through.
    @Test func aRequestAddressedToTheProxyItselfIsNotForwarded() async throws {
        let recorder = try LaunchedAirlock(["record", "--cassette", folder.appendingPathComponent("loop.har").path, "--port", "0", "--quiet"])
        defer { recorder.stopIfRunning() }
        let port = try lastPort(in: try #require(await recorder.lines.next(), "airlock record printed nothing"))
        try await withClient { client in
            let origin = try await send(client, "http://127.0.0.1:\(port)/loop")
            #expect(origin.status == 404 && origin.text.hasPrefix("Airlock: no stub for GET http://127.0.0.1:\(port)/loop"), "\(origin.text)")
        }
        try await withClient(proxyPort: port) { (client: HTTPClient) async throws in
            let absolute = try await send(client, "http://127.0.0.1:\(port)/loop")
            #expect(absolute.status == 404, "\(absolute.text)")
            let viaLocalhost = try await send(client, "http://localhost:\(port)/loop")
            #expect(viaLocalhost.status == 404, "\(viaLocalhost.text)")
        }
        let passing = HTTPMock()
        passing.unmockedPolicy = .passthrough
        try await withServer(passing) { server in
            try await withClient(proxyPort: server.port) { (client: HTTPClient) async throws in
                #expect(try await send(client, server.baseURL.absoluteString + "/loop").status == 404)
            }
        }
    }

    @Test func redactRewritesAFileWithoutItsSecrets() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("leaky.har")
        let leaky = """
            {"log": {"version": "1.2", "creator": {"name": "browser", "version": "1"}, "entries": [{
              "startedDateTime": "2026-11-22T10:00:00.000Z", "time": 5, "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0},
              "request": {"method": "POST", "url": "https://api.example.com/login?api_key=KEYSECRET", "httpVersion": "HTTP/1.1",
                "cookies": [{"name": "session", "value": "COOKIESECRET"}],
                "headers": [{"name": "Authorization", "value": "Bearer HEADERSECRET"}, {"name": "Content-Type", "value": "application/json"}],
                "queryString": [{"name": "api_key", "value": "KEYSECRET"}], "headersSize": -1, "bodySize": 30,
                "postData": {"mimeType": "application/json", "text": "{\\"user\\":\\"a\\",\\"pin\\":\\"PINSECRET\\"}"}},
              "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                "content": {"size": 2, "mimeType": "application/json", "text": "{}"}, "redirectURL": "", "headersSize": -1, "bodySize": 2}
            }]}}
            """
        try Data(leaky.utf8).write(to: file)
        let (status, output, errors) = try run(["redact", file.path, "--json-field", "pin"])
        #expect(status == 0, "\(errors)")
        #expect(output.contains("Redacted 1 entry in"))
        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in ["KEYSECRET", "COOKIESECRET", "HEADERSECRET", "PINSECRET"] {
            #expect(!text.contains(secret), "\(secret) is still in the file")
        }
        #expect(try HTTPArchive(contentsOf: file).entries.count == 1)
    }

    @Test func redactAndRecordTakeTheRedactionRulesAsOptions() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{
              "startedDateTime": "2026-11-22T10:00:00.000Z", "time": 5,
              "request": {"method": "GET", "url": "https://api.example.com/login?code=CODEVALUE&state=s1"},
              "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
                "content": {"size": 60, "mimeType": "application/json",
                  "text": "{\\\"session_key\\\": \\\"SESSIONKEY\\\", \\\"access_token\\\": \\\"ACCESSTOKEN\\\",  \\\"code\\\": 7}"}}
            }]}}
            """
        let file = folder.appendingPathComponent("rules.har")
        try Data(har.utf8).write(to: file)
        let (status, _, errors) = try run(["redact", file.path, "--response-field", "session_key", "--keep", "code"])
        #expect(status == 0, "\(errors)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("SESSIONKEY") && !text.contains("ACCESSTOKEN"), "\(text)")
        #expect(text.contains("code=CODEVALUE"), "--keep code keeps the query item: \(text)")
        // Only the secrets' bytes changed: spacing and the everyday `code` field as they were.
        let body = try #require(try HTTPArchive(contentsOf: file).entries.first?.response?.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"session_key": "[REDACTED]", "access_token": "[REDACTED]",  "code": 7}"#)

        let plain = folder.appendingPathComponent("plain.har")
        try Data(har.utf8).write(to: plain)
        #expect(try run(["redact", plain.path, "--no-redaction"]).status == 0)
        let kept = try String(contentsOf: plain, encoding: .utf8)
        #expect(kept.contains("SESSIONKEY") && kept.contains("ACCESSTOKEN") && kept.contains("code=CODEVALUE"))
    }

    @Test func aPlaceholderOptionHidesAnEnvironmentValueBehindItsName() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("named.har")
        let har = #"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{"startedDateTime": "2026-11-22T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "https://api.example.com/accounts/acct-7731"}, "response": {"status": 200, "content": {"size": 30, "mimeType": "application/json", "text": "{\"id\": \"acct-7731\", \"n\": 1}"}}}]}}"#
        try Data(har.utf8).write(to: file)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: try #require(CLITests.executable))
        process.arguments = ["redact", file.path, "--placeholder", "<ACCOUNT_ID>=AIRLOCK_TEST_ACCOUNT"]
        var environment = ProcessInfo.processInfo.environment
        environment["AIRLOCK_TEST_ACCOUNT"] = "acct-7731"
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("acct-7731"), "\(text)")
        let entry = try #require(try HTTPArchive(contentsOf: file).entries.first)
        #expect(entry.url == "https://api.example.com/accounts/<ACCOUNT_ID>")
        #expect(entry.response.map { String(decoding: $0.body, as: UTF8.self) } == #"{"id": "<ACCOUNT_ID>", "n": 1}"#)

        // Unset, the option says which variable to export (exit 64).
        let (status, _, errors) = try run(["redact", file.path, "--placeholder", "<X>=AIRLOCK_TEST_UNSET_VARIABLE"])
        #expect(status == 64)
        #expect(errors.contains("AIRLOCK_TEST_UNSET_VARIABLE is not set"), "\(errors)")
    }

    @Test(arguments: ["record", "redact"])
    func helpNamesEveryRedactionOptionWithoutStrayBackslashes(_ command: String) throws {
        let (status, output, _) = try run([command, "--help"])
        #expect(status == 0)
        #expect(!output.contains("\\"), "\(output)")
        for option in ["--header", "--query", "--json-field", "--response-field", "--keep", "--placeholder", "--no-redaction"] {
            #expect(output.contains(option), "airlock \(command) --help does not name \(option)")
        }
    }

    @Test func cassetteCheckListsEntriesAndRejectsMalformedFiles() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let good = folder.appendingPathComponent("good.har")
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{"startedDateTime": "2026-11-22T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "https://api.example.com/users?page=2"}, "response": {"status": 200, "content": {"size": 2, "mimeType": "application/json", "text": "[]"}}}]}}"#.utf8).write(to: good)
        let (status, output, _) = try run(["cassette", "check", good.path])
        #expect(status == 0)
        #expect(output.contains("1 replayable entry"))
        #expect(output.contains("1. GET https://api.example.com/users?page=2 → 200"), "\(output)")

        let bad = folder.appendingPathComponent("bad.har")
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{"startedDateTime": "yesterday", "time": 1, "request": {"method": "GET", "url": "https://a.example/"}, "response": {"status": 200}}]}}"#.utf8).write(to: bad)
        let (badStatus, _, errors) = try run(["cassette", "check", bad.path])
        #expect(badStatus == 65)
        #expect(errors.contains("log.entries[0].startedDateTime"), "\(errors)")
        #expect(errors.contains("ISO 8601"), "\(errors)")
    }

    /// Runs `airlock` to completion; returns its exit status, output and errors.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try LaunchedAirlock.run(arguments)
    }
}
