import HTTPTestSupport
import Foundation
import HTTPMock
import HTTPMockTesting
import HTTPTypes
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
import ProcessSupport
#endif

/// Record and replay through a real URLSession: recorded against a real loopback server, then
/// replayed with that server stopped.
struct CassetteTests {
    /// A fresh folder per test; cassettes are written below it.
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-cassettes")
    private var folder: URL { temporary.url }

    private func cassette(_ name: String = "api.har", mode: Cassette.RecordMode, matching: Cassette.Matching = .init(), environment: [String: String] = [:]) throws -> Cassette {
        try Cassette(contentsOf: folder.appendingPathComponent(name), mode: mode, matching: matching, environment: environment)
    }

    /// Sends a request through the mock's session; returns status, `X-Request-Number` and body.
    private func send(
        _ mock: HTTPMock,
        _ address: String,
        method: String = "GET",
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> (status: Int, number: String?, text: String) {
        var request = URLRequest(url: URL(string: address)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await mock.urlSession.boundedData(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.value(forHTTPHeaderField: "X-Request-Number"), String(decoding: data, as: UTF8.self))
    }

    @Test func recordsOnceThenReplaysTheSameResponsesInOrderWithTheServerStopped() async throws {
        let server = try await LoopbackServer.start()
        let base = server.url("")
        let recording = try cassette(mode: .once)
        #expect(recording.isRecording)
        let recorder = HTTPMock(cassette: recording)
        let first = try await send(recorder, base + "/items?page=1&sort=name")
        let second = try await send(recorder, base + "/items?page=1&sort=name")
        let created = try await send(recorder, base + "/users", method: "POST", headers: ["Content-Type": "application/json"], body: #"{"name":"Alice","age":30}"#)
        try recording.save()
        #expect([first.number, second.number, created.number] == ["1", "2", "3"])
        #expect(server.requestCount == 3)
        try await server.stop()

        let replaying = try cassette(mode: .once)
        #expect(!replaying.isRecording)
        let mock = HTTPMock(cassette: replaying)
        // Query in another order, JSON with other key order and spacing: same requests by meaning.
        let again1 = try await send(mock, base + "/items?sort=name&page=1")
        let again2 = try await send(mock, base + "/items?page=1&sort=name")
        let againCreated = try await send(mock, base + "/users", method: "POST", headers: ["Content-Type": "application/json"], body: #"{ "age": 30, "name": "Alice" }"#)
        #expect(again1.number == "1" && again1.text == first.text)
        #expect(again2.number == "2" && again2.text == second.text)
        #expect(againCreated.number == "3" && againCreated.text == created.text)
        // Recorded twice, so a third identical request is a replay miss: the file exists, so
        // `once` does not record, and the request fails instead of getting a plausible answer.
        let third = await urlError { _ = try await send(mock, base + "/items?page=1&sort=name") }
        #expect(third?.code == .resourceUnavailable)
        #expect(third?.localizedDescription.contains("used up (served 2)") == true, "\(third?.localizedDescription ?? "")")
        #expect(replaying.misses.map(\.request.path) == ["/items"])
        #expect(mock.unusedStubs.isEmpty)
    }

    @Test func newEpisodesAppendsExactlyTheNewExchange() async throws {
        try await LoopbackServer.with { server in
            let recording = try cassette(mode: .once)
            let recorder = HTTPMock(cassette: recording)
            _ = try await send(recorder, server.url("/a"))
            try recording.save()

            let more = try cassette(mode: .newEpisodes)
            let mock = HTTPMock(cassette: more)
            let replayed = try await send(mock, server.url("/a"))
            let recorded = try await send(mock, server.url("/b"))
            try more.save()
            #expect(replayed.text == "real GET /a" && recorded.text == "real GET /b")
            #expect(server.requestCount == 2, "/a came from the cassette, only /b reached the server")

            let file = try HTTPArchive(contentsOf: more.url)
            #expect(file.entries.map(\.path) == ["/a", "/b"])
        }
    }

    @Test func noneFailsWithTheDiagnosticAndTheCommandThatRecords() async throws {
        try await LoopbackServer.with { server in
            let recording = try cassette(mode: .once)
            _ = try await send(HTTPMock(cassette: recording), server.url("/a"))
            try recording.save()
            let before = try Data(contentsOf: recording.url)

            let replayOnly = try cassette(mode: .none)
            let mock = HTTPMock(cassette: replayOnly)
            let missing = await urlError { _ = try await send(mock, server.url("/new")) }
            #expect(missing?.code == .resourceUnavailable)
            #expect(missing?.failingURL?.absoluteString == server.url("/new"))
            let message = missing?.localizedDescription ?? ""
            #expect(message.contains("Airlock: no stub for GET \(server.url("/new"))"), "\(message)")
            #expect(message.contains("Nearest registered stubs:\n  1. host \"127.0.0.1\", path \"/a\""), "\(message)")
            #expect(message.contains("path ✗ /a vs /new"), "\(message)")
            #expect(message.contains("The cassette api.har has no entry for this request (mode \"none\"). To record it: AIRLOCK_RECORD=newEpisodes swift test"))
            #expect(server.requestCount == 1, "none never reaches the network")
            // Kept for the test frameworks, and in the journal as an unmatched request that failed.
            #expect(replayOnly.misses.count == 1)
            #expect(replayOnly.misses.first?.request.url == server.url("/new"))
            #expect(replayOnly.misses.first?.message == message)
            #expect(mock.unmatchedRequests.map(\.path) == ["/new"])
            #expect(mock.unmatchedRequests.first?.response?.outcome == .failure(.replayMiss(message)))
            try replayOnly.save()
            #expect(try Data(contentsOf: recording.url) == before)
        }
    }

    /// The Recording article's first sample, without its cassette: under `CI` (mode `none`) it
    /// must fail, not pass on a made-up answer.
    @Test func aMissingFileInNoneModeFailsEveryRequestWhateverThePolicy() async throws {
        let absent = try cassette("never-recorded.har", mode: .none)
        let mock = HTTPMock(cassette: absent)
        // A policy that would answer anything: a replay miss does not fall through to it.
        mock.unmockedPolicy = .mock(.plaintext("a plausible answer"))
        let error = await urlError { _ = try await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/users")!) }
        #expect(error?.code == .resourceUnavailable)
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("Airlock: no stub for GET https://api.example.com/users"), "\(message)")
        #expect(message.contains("The cassette never-recorded.har does not exist (\(absent.url.path)), and mode \"none\" does not record. To record it: AIRLOCK_RECORD=newEpisodes swift test"), "\(message)")
        #expect(absent.misses.map(\.request.url) == ["https://api.example.com/users"])
        try absent.save()
        #expect(!FileManager.default.fileExists(atPath: absent.url.path), "a replay miss writes nothing")
    }

    @Test func recordingModesRecordWhatTheFileLacksInsteadOfFailing() async throws {
        try await LoopbackServer.with { server in
            for mode in [Cassette.RecordMode.newEpisodes, .all, .once] {
                let recording = try cassette("\(mode).har", mode: mode)
                let answer = try await send(HTTPMock(cassette: recording), server.url("/\(mode)"))
                #expect(answer.status == 200 && answer.text == "real GET /\(mode)", "\(mode)")
                #expect(recording.misses.isEmpty, "\(mode)")
                #expect(recording.recordedEntries.count == 1, "\(mode)")
            }
        }
    }

    @Test func allRecordsAgainAndDropsWhatIsNoLongerRequested() async throws {
        try await LoopbackServer.with { server in
            let first = try cassette(mode: .all)
            let mock = HTTPMock(cassette: first)
            _ = try await send(mock, server.url("/kept"))
            _ = try await send(mock, server.url("/dropped"))
            try first.save()
            #expect(try HTTPArchive(contentsOf: first.url).entries.map(\.path) == ["/kept", "/dropped"])

            let again = try cassette(mode: .all)
            let rerecorded = try await send(HTTPMock(cassette: again), server.url("/kept"))
            try again.save()
            #expect(rerecorded.number == "3", "all mode forwards even what the file has")
            #expect(try HTTPArchive(contentsOf: again.url).entries.map(\.path) == ["/kept"])
        }
    }

    @Test func secretsOfTheRecordedExchangeReachNoFileAndPlaceholdersStillMatch() async throws {
        let server = try await LoopbackServer.start()
        let recording = try cassette(mode: .once)
        let recorder = HTTPMock(cassette: recording)
        _ = try await send(
            recorder,
            server.url("/login?access_token=QUERYSECRET1"),
            method: "POST",
            headers: ["Authorization": "Bearer HEADERSECRET2", "Content-Type": "application/json", "X-Api-Key": "KEYSECRET3"],
            body: #"{"user":"alice","password":"BODYSECRET4"}"#
        )
        try recording.save()
        try await server.stop()
        let text = try String(contentsOf: recording.url, encoding: .utf8)
        for secret in ["QUERYSECRET1", "HEADERSECRET2", "KEYSECRET3", "BODYSECRET4"] {
            #expect(!text.contains(secret), "\(secret) reached the cassette")
        }
        #expect(text.contains("[REDACTED]"))

        // Replay with other secrets: the placeholders match any value.
        let mock = HTTPMock(cassette: try cassette(mode: .none))
        let replayed = try await send(
            mock,
            server.url("/login?access_token=OTHER"),
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"password":"another","user":"alice"}"#
        )
        #expect(replayed.status == 200 && replayed.number == "1")
    }

    @Test func beforeRecordEditsOrLeavesOutAnExchangeAndRedactionStillRuns() async throws {
        let server = try await LoopbackServer.start()
        let base = server.url("")
        let file = folder.appendingPathComponent("edited.har")
        let recording = try Cassette(contentsOf: file, mode: .all, environment: [:]) { exchange in
            // Leave the health check out; hide the request number the rules do not know.
            guard exchange.path != "/health" else { return nil }
            var edited = exchange
            if let response = exchange.response, let status = response.status {
                var fields = response.headerFields
                fields[HTTPField.Name("X-Request-Number")!] = "<number>"
                edited.response = RecordedResponse(status: status, headerFields: fields, body: response.body, duration: response.duration)
            }
            return edited
        }
        let recorder = HTTPMock(cassette: recording)
        _ = try await send(recorder, base + "/health")
        _ = try await send(recorder, base + "/items?access_token=SECRET-IN-URL")
        try recording.save()
        try await server.stop()

        let entries = try HTTPArchive(contentsOf: file).entries
        #expect(entries.map(\.path) == ["/items"])
        #expect(entries.first?.response?.headerFields[HTTPField.Name("X-Request-Number")!] == "<number>")
        // The closure's result was redacted too.
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("SECRET-IN-URL") && text.contains("access_token=%5BREDACTED%5D"), "\(text)")
    }

    @Test func aNamedValueIsHiddenBehindItsOwnPlaceholderAndStillMatchesOnReplay() async throws {
        let server = try await LoopbackServer.start()
        let base = server.url("")
        let file = folder.appendingPathComponent("named.har")
        var redaction = Redaction.standard
        redaction.filter("acct-7731", as: "<ACCOUNT_ID>")
        let recording = try Cassette(contentsOf: file, mode: .all, redaction: redaction, environment: [:])
        let recorder = HTTPMock(cassette: recording)
        let live = try await send(
            recorder, base + "/accounts/acct-7731/items?owner=acct-7731", method: "POST",
            headers: ["Content-Type": "application/json"], body: #"{"account": "acct-7731", "items": ["acct-77310"]}"#
        )
        try recording.save()
        try await server.stop()

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("acct-7731\""), "\(text)")
        #expect(text.contains("owner=<ACCOUNT_ID>") || text.contains("owner=%3CACCOUNT_ID%3E"), "\(text)")
        #expect(text.contains(#"\"account\": \"<ACCOUNT_ID>\""#), "\(text)")
        // Only the value as a whole token: another word that starts with it stays.
        #expect(text.contains("acct-77310"), "\(text)")

        // A replay with another account matches: the placeholder stands for any value.
        let replay = HTTPMock(cassette: try Cassette(contentsOf: file, mode: .none, redaction: redaction, environment: [:]))
        let replayed = try await send(
            replay, base + "/accounts/acct-7731/items?owner=acct-0001", method: "POST",
            headers: ["Content-Type": "application/json"], body: #"{"account": "acct-0001", "items": ["acct-77310"]}"#
        )
        #expect(replayed.status == live.status && replayed.number == live.number)
    }

    @Test func aBodyThatDriftedFailsWithTheDifferenceAndHowToRecordAgain() async throws {
        try await LoopbackServer.with { server in
            let recording = try cassette(mode: .once)
            _ = try await send(HTTPMock(cassette: recording), server.url("/users"), method: "POST", headers: ["Content-Type": "application/json"], body: #"{"name":"Alice"}"#)
            try recording.save()

            let mock = HTTPMock(cassette: try cassette(mode: .none))
            let drifted = await urlError {
                _ = try await send(mock, server.url("/users"), method: "POST", headers: ["Content-Type": "application/json"], body: #"{"name":"Bob"}"#)
            }
            #expect(drifted?.code == .resourceUnavailable)
            #expect(drifted?.localizedDescription.contains(#"JSON body differs at $.name: "Bob" vs "Alice" recorded"#) == true)
            #expect(drifted?.localizedDescription.contains("To record it: AIRLOCK_RECORD=newEpisodes swift test") == true)
            // The recorded entry was never replayed: verification says so.
            #expect(mock.unusedStubs.count == 1)
            #expect(mock.unusedStubs.first?.contains("1 recorded response(s) never replayed") == true)
        }
    }

    @Test func matchingIgnoresVolatileKeysAndQueryItemsAndCanBeReplaced() async throws {
        try await LoopbackServer.with { server in
            let ignoring = Cassette.Matching(ignoredQueryItems: ["cacheBuster"], ignoredJSONKeys: ["timestamp", "nonce"])
            let recording = try cassette(mode: .once, matching: ignoring)
            _ = try await send(
                HTTPMock(cassette: recording),
                server.url("/events?cacheBuster=1"),
                method: "POST",
                headers: ["Content-Type": "application/json"],
                body: #"{"kind":"click","meta":{"timestamp":1,"nonce":"a"}}"#
            )
            try recording.save()

            let mock = HTTPMock(cassette: try cassette(mode: .none, matching: ignoring))
            let replayed = try await send(
                mock,
                server.url("/events?cacheBuster=2"),
                method: "POST",
                headers: ["Content-Type": "application/json"],
                body: #"{"kind":"click","meta":{"timestamp":2,"nonce":"b"}}"#
            )
            #expect(replayed.status == 200)

            // A custom matcher replaces the comparison: here, only the method counts.
            let loose = Cassette.Matching(custom: { recorded in .method(recorded.method) })
            let custom = HTTPMock(cassette: try cassette(mode: .none, matching: loose))
            let anyBody = try await send(custom, server.url("/events?other=1"), method: "POST", body: "not even JSON")
            #expect(anyBody.status == 200)
            #expect(server.requestCount == 1)
        }
    }

    @Test func theLastResponseRepeatsOnlyWhenAsked() async throws {
        try await LoopbackServer.with { server in
            let recording = try cassette(mode: .once)
            _ = try await send(HTTPMock(cassette: recording), server.url("/status"))
            try recording.save()
            let repeating = HTTPMock(cassette: try cassette(mode: .none, matching: .init(repeatsLastResponse: true)))
            for _ in 0..<3 {
                #expect(try await send(repeating, server.url("/status")).status == 200)
            }
        }
    }

    @Test func environmentChoosesTheModeAndCINeverRecordsByAccident() throws {
        #expect(try Cassette.RecordMode.effective(requested: .once, environment: [:]) == .once)
        #expect(try Cassette.RecordMode.effective(requested: .all, environment: ["CI": "true"]) == .none)
        #expect(try Cassette.RecordMode.effective(requested: .once, environment: ["CI": "1", "AIRLOCK_RECORD": "new_episodes"]) == .newEpisodes)
        #expect(try Cassette.RecordMode.effective(requested: .none, environment: ["AIRLOCK_RECORD": " All "]) == .all)
        #expect(try Cassette.RecordMode.effective(requested: .once, environment: ["CI": "false"]) == .once)
        #expect(throws: CassetteError.self) { try Cassette.RecordMode.effective(requested: .once, environment: ["AIRLOCK_RECORD": "yes"]) }
        do {
            _ = try cassette(mode: .once, environment: ["AIRLOCK_RECORD": "sometimes"])
            Issue.record("an unknown AIRLOCK_RECORD was accepted")
        } catch {
            #expect("\(error)".contains(#"AIRLOCK_RECORD is "sometimes""#))
            #expect("\(error)".contains(#""once", "newEpisodes", "none", "all""#))
        }
    }

    @Test func aMalformedCassetteIsRefusedWithTheFileAndPlace() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("broken.har")
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{"request": {"url": "https://a.example/"}}]}}"#.utf8).write(to: url)
        do {
            _ = try Cassette(contentsOf: url, mode: .none, environment: [:])
            Issue.record("a malformed cassette was accepted")
        } catch {
            #expect(error.description.contains("broken.har"))
            #expect(error.description.contains("log.entries[0]"))
        }
    }

    @Test func aCassetteThatCannotBeWrittenSaysWhichAndWhy() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let notAFolder = folder.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: notAFolder)
        let cassette = try Cassette(contentsOf: notAFolder.appendingPathComponent("api.har"), mode: .all, environment: [:])
        do {
            try cassette.save()
            Issue.record("saving below a plain file succeeded")
        } catch {
            #expect(error.description.contains("plain-file/api.har: cannot be written"), "\(error)")
        }
    }

    @Test func aRecordedCassetteHasEveryFieldHAR12Requires() async throws {
        try await LoopbackServer.with { server in
            let recording = try cassette(mode: .once)
            let mock = HTTPMock(cassette: recording)
            _ = try await send(mock, server.url("/a?x=1"))
            _ = try await send(mock, server.url("/b"), method: "PUT", headers: ["Content-Type": "application/octet-stream"], body: "bytes")
            try recording.save()
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: recording.url))
            let problems = HAR12Schema.problems(in: object)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test func aBrowserSavedHARLoadsAsStubs() async throws {
        let url = try #require(Bundle.module.url(forResource: "browser", withExtension: "har"))
        let archive = try HTTPArchive(contentsOf: url)
        #expect(HAR12Schema.problems(in: try JSONSerialization.jsonObject(with: Data(contentsOf: url))).isEmpty)
        #expect(archive.skipped.count == 2, "the data: URL and the blocked request (status 0)")
        let mock = HTTPMock()
        #expect(mock.registerStubs(archive).isEmpty)

        let page = try await send(mock, "https://shop.example.com/products?category=books&page=2")
        #expect(page.status == 200 && page.text.contains("The Swift Programming Language"))
        let cart = try await send(
            mock,
            "https://api.shop.example.com/v1/cart",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"quantity": 1, "sku": "BK-1"}"#
        )
        #expect(cart.status == 201 && cart.text.contains("\"items\""))
        // The body was gzip on the wire; the HAR holds it decoded, and so does the replay.
        let logo = try await send(mock, "https://cdn.shop.example.com/logo.png")
        #expect(logo.status == 200 && logo.text.contains("PNG"))
        #expect(mock.unusedStubs.isEmpty)
    }
}

/// The fields HAR 1.2 requires (http://www.softwareishard.com/blog/har-12-spec/), checked on the
/// JSON itself, not through Airlock's decoder.
enum HAR12Schema {
    private static let required: [String: [String]] = [
        "log": ["version", "creator", "entries"],
        "creator": ["name", "version"],
        "entry": ["startedDateTime", "time", "request", "response", "cache", "timings"],
        "request": ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"],
        "response": ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"],
        "content": ["size", "mimeType"],
        "timings": ["send", "wait", "receive"],
        "postData": ["mimeType"],
        "nameValue": ["name", "value"],
    ]

    static func problems(in document: Any) -> [String] {
        var problems: [String] = []
        func check(_ value: Any?, _ kind: String, at path: String) -> [String: Any]? {
            guard let object = value as? [String: Any] else {
                problems.append("\(path) is not an object")
                return nil
            }
            for field in required[kind, default: []] where object[field] == nil {
                problems.append("\(path).\(field) is missing")
            }
            return object
        }
        guard let root = document as? [String: Any], let log = check(root["log"], "log", at: "log") else {
            return problems + ["no log"]
        }
        if log["version"] as? String != "1.2" { problems.append("log.version is not 1.2") }
        _ = check(log["creator"], "creator", at: "log.creator")
        for (index, value) in (log["entries"] as? [Any] ?? []).enumerated() {
            let path = "log.entries[\(index)]"
            guard let entry = check(value, "entry", at: path) else { continue }
            if let started = entry["startedDateTime"] as? String, ISO8601DateFormatter.fractional.date(from: started) == nil,
                ISO8601DateFormatter().date(from: started) == nil
            {
                problems.append("\(path).startedDateTime is not ISO 8601")
            }
            if !(entry["time"] is NSNumber) { problems.append("\(path).time is not a number") }
            if let request = check(entry["request"], "request", at: "\(path).request") {
                for list in ["cookies", "headers", "queryString"] {
                    for (item, pair) in (request[list] as? [Any] ?? []).enumerated() {
                        _ = check(pair, "nameValue", at: "\(path).request.\(list)[\(item)]")
                    }
                }
                if let post = request["postData"] { _ = check(post, "postData", at: "\(path).request.postData") }
            }
            if let response = check(entry["response"], "response", at: "\(path).response") {
                if !(response["status"] is NSNumber) { problems.append("\(path).response.status is not a number") }
                _ = check(response["content"], "content", at: "\(path).response.content")
            }
            _ = check(entry["timings"], "timings", at: "\(path).timings")
        }
        return problems
    }
}

extension ISO8601DateFormatter {
    fileprivate static var fractional: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
