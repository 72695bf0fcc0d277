import AsyncHTTPClient
import Foundation
import MockServer
import ProcessSupport
import Testing

/// `airlock cassette verify` (issue 40) through the real path: a Python upstream no one here wrote
/// (`Upstream/drift_upstream.py`), a cassette recorded from it by `airlock record` as a child
/// process, the upstream switched to its second version, and `airlock cassette verify` run as a
/// child against it.
struct CassetteVerifyTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-verify-\(UUID().uuidString)")

    /// The routes recorded, in order: entry 0 to 4.
    private static let routes = ["/users/1", "/health", "/status", "/events", "/stable"]

    @Test func reportsEachDriftAtItsEntryAndPathThenUpdatesOnlyThoseEntries() async throws {
        try await withPythonUpstream("drift_upstream.py") { port in
            let upstream = "http://127.0.0.1:\(port)"
            let cassette = try await record(Self.routes, from: upstream, into: "api.har")

            // Version 1: every entry agrees (values such as requestId and Date differ, types do not).
            let agreeing = try runAirlock(["cassette", "verify", cassette, "--against", upstream])
            #expect(agreeing.status == 0, "\(agreeing.output)\(agreeing.errors)")
            #expect(agreeing.output.contains("5 of 5 entries agree, 0 drifted, 0 not verified"), "\(agreeing.output)")

            _ = try await get(upstream + "/__admin/version?set=2")
            let drifted = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--json"])
            #expect(drifted.status == 1, "\(drifted.output)\(drifted.errors)")
            let drifts = try Self.drifts(inJSON: drifted.output)
            #expect(drifts[0] == ["typeChanged body $.id number string", "typeChanged body $.updatedAt string null"])
            #expect(drifts[1] == ["headerAdded header X-Added - -"])
            #expect(drifts[2] == ["status status 200 503"])
            #expect(drifts[3] == ["eventName events[1] event message update", "typeChanged events[1] data $.n number string"])
            #expect(drifts[4] == [])

            // The table says the same, one row per drift.
            let table = try runAirlock(["cassette", "verify", cassette, "--against", upstream])
            #expect(table.status == 1)
            #expect(table.output.contains("body $.id: number → string"), "\(table.output)")
            #expect(table.output.contains("events[1] event: message → update"), "\(table.output)")
            #expect(table.output.contains("1 of 5 entries agree, 4 drifted, 0 not verified"), "\(table.output)")

            // A volatile field, ignored when told; values compared only where asked.
            let ignoring = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--json", "--ignore", "$.updatedAt", "--compare-values", "$.name"])
            #expect(try Self.drifts(inJSON: ignoring.output)[0] == ["typeChanged body $.id number string"])
            let comparingAll = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--json", "--ignore", "$.updatedAt", "--compare-values", "$"])
            #expect(try Self.drifts(inJSON: comparingAll.output)[0].contains { $0.hasPrefix("valueChanged body $.requestId") })

            // --update: the four drifted entries are recorded again, the fifth keeps its bytes.
            let before = try Data(contentsOf: URL(fileURLWithPath: cassette))
            let updated = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--update"])
            #expect(updated.status == 1, "\(updated.output)\(updated.errors)")
            #expect(updated.errors.contains("recorded again 4 entries"), "\(updated.errors)")
            let after = try Data(contentsOf: URL(fileURLWithPath: cassette))
            let (oldParts, newParts) = (Self.entryTexts(before), Self.entryTexts(after))
            #expect(oldParts.entries.count == 5 && newParts.entries.count == 5)
            #expect(oldParts.head == newParts.head && oldParts.tail == newParts.tail)
            #expect(oldParts.entries[4] == newParts.entries[4])
            for index in 0..<4 {
                #expect(oldParts.entries[index] != newParts.entries[index], "entry \(index) was not recorded again")
            }
            // The stream is recorded again with its parts, as `airlock record` records one.
            #expect(oldParts.entries[3].contains(#""_parts""#) && newParts.entries[3].contains(#""_parts""#), "\(newParts.entries[3])")
            #expect(newParts.entries[3].contains("event: update"), "\(newParts.entries[3])")
            let again = try runAirlock(["cassette", "verify", cassette, "--against", upstream])
            #expect(again.status == 0, "\(again.output)\(again.errors)")
        }
    }

    @Test func fillsPlaceholdersFromTheEnvironmentAndSendsNothingWithoutThem() async throws {
        try await withPythonUpstream("drift_upstream.py") { port in
            let upstream = "http://127.0.0.1:\(port)"
            let environment = ["AIRLOCK_TEST_ACCOUNT": "acct-7731"]
            let cassette = try await record(
                ["/accounts/acct-7731"], from: upstream, into: "accounts.har", headers: [("X-Account", "acct-7731")],
                arguments: ["--placeholder", "<ACCOUNT_ID>=AIRLOCK_TEST_ACCOUNT"], environment: environment
            )
            let text = try String(contentsOfFile: cassette, encoding: .utf8)
            #expect(!text.contains("acct-7731") && text.contains("<ACCOUNT_ID>"), "\(text)")

            let filled = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--placeholder", "<ACCOUNT_ID>=AIRLOCK_TEST_ACCOUNT"], environment: environment)
            #expect(filled.status == 0, "\(filled.output)\(filled.errors)")

            let count = try await requestCount(upstream)
            let refused = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--placeholder", "<ACCOUNT_ID>=AIRLOCK_TEST_ACCOUNT"], environment: [:])
            #expect(refused.status == 2, "\(refused.output)\(refused.errors)")
            #expect(refused.output.contains("AIRLOCK_TEST_ACCOUNT that fills it is not set"), "\(refused.output)")
            #expect(try await requestCount(upstream) == count, "a request was sent without its secret")
        }
    }

    @Test func checksRecordedAndLiveExchangesAgainstTheContract() async throws {
        try await withPythonUpstream("drift_upstream.py") { port in
            let upstream = "http://127.0.0.1:\(port)"
            let cassette = try await record(["/status"], from: upstream, into: "status.har", arguments: ["--max-age", "30d"])
            #expect(try String(contentsOfFile: cassette, encoding: .utf8).contains(#""_maxAge" : "30d""#))
            let contract = folder.appendingPathComponent("status.yaml")
            try Data(Self.statusContract.utf8).write(to: contract)
            let agreeing = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--openapi", contract.path])
            #expect(agreeing.status == 0, "\(agreeing.output)\(agreeing.errors)")

            _ = try await get(upstream + "/__admin/version?set=2")
            let drifted = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--openapi", contract.path, "--json"])
            #expect(drifted.status == 1, "\(drifted.output)\(drifted.errors)")
            let drifts = try Self.drifts(inJSON: drifted.output)[0]
            #expect(drifts.first == "status status 200 503")
            #expect(drifts.contains { $0.hasPrefix("contractViolation contract (live) - ") && $0.contains("503") }, "\(drifts)")
            #expect(!drifts.contains { $0.contains("contract (recorded)") }, "\(drifts)")
        }
    }

    @Test func anExpiredCassetteIsRefusedByServeVerifiedAndRecordedAgain() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("old.har")
        let entry = #"{"startedDateTime": "2020-01-01T00:00:00Z", "request": {"method": "GET", "url": "http://api.test/stable"}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"same\": [1, 2]}"}}}"#
        try Data(#"{"log": {"_maxAge": "30d", "version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [\#(entry)]}}"#.utf8).write(to: file)
        for arguments in [["serve", file.path, "--port", "0"], ["serve", file.path, "--port", "0", "--max-age", "90d"]] {
            let result = try runAirlock(arguments)
            #expect(result.status == 65, "\(result.errors)")
            #expect(result.errors.contains("days old (its oldest entry was recorded 2020-01-01"), "\(result.errors)")
            #expect(result.errors.contains("older than its maximum age of \(arguments.count == 4 ? "30d" : "90d")"), "\(result.errors)")
            #expect(result.errors.contains("--update"), "\(result.errors)")
        }
        try await withPythonUpstream("drift_upstream.py") { port in
            let upstream = "http://127.0.0.1:\(port)"
            // Verifying is how an expired cassette is checked: its age does not stop it, on CI either.
            // (Written by hand, the entry lacks the fields Python's server adds.)
            let verified = try runAirlock(
                ["cassette", "verify", file.path, "--against", upstream, "--ignore-header", "server", "--ignore-header", "Date"], environment: ["CI": "true"]
            )
            #expect(verified.status == 0, "\(verified.output)\(verified.errors)")
            // Recording where it may: everything again, the maximum age kept.
            _ = try await record(["/health"], from: upstream, into: "old.har")
            let archive = try HTTPArchive(contentsOf: file)
            #expect(archive.entries.map(\.path) == ["/health"])
            #expect(archive.maxAge == MaxAge("30d"))
        }
    }

    @Test func aStreamThatNeverEndsIsComparedAsFarAsItCameAtTheTimeout() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("feed.har")
        let entry = #"{"startedDateTime": "2026-01-01T00:00:00Z", "request": {"method": "GET", "url": "http://api.test/feed"}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/event-stream"}], "content": {"mimeType": "text/event-stream", "text": "event: tick\ndata: {\"n\": 1}\n\n"}}}"#
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [\#(entry)]}}"#.utf8).write(to: file)
        try await withPythonUpstream("drift_upstream.py") { port in
            // The upstream sends its head and first event at once and then never ends the stream:
            // the timeout closes it, and what came agrees. The timeout is what the test waits out,
            // and also all the time the head and first event have to arrive: 5 s once fell short
            // with the whole suite running beside it, so 20.
            let result = try runAirlock(["cassette", "verify", file.path, "--against", "http://127.0.0.1:\(port)", "--timeout", "20"])
            #expect(result.status == 0, "\(result.output)\(result.errors)")
            #expect(result.output.contains("1 of 1 entry agrees"), "\(result.output)")
        }
    }

    private static let statusContract = """
        openapi: 3.0.3
        info: {title: Drift, version: "1"}
        paths:
          /status:
            get:
              responses:
                "200":
                  description: Up.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [state]
                        properties:
                          state: {type: string}
        """

    @Test(arguments: [
        (["--ignore", "id"], "\"id\" is not a JSON path: it does not start with $"),
        (["--compare-values", "$.items[x]"], "[ takes an index"),
        (["--against", "ftp://example.com"], "--against is \"ftp://example.com\""),
    ])
    func aBadOptionExitsWithTwoNamingIt(arguments: [String], expected: String) throws {
        let file = folder.appendingPathComponent("empty.har")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": []}}"#.utf8).write(to: file)
        var all = ["cassette", "verify", file.path, "--against", "http://127.0.0.1:9"] + arguments
        if arguments.first == "--against" { all = ["cassette", "verify", file.path] + arguments }
        let result = try runAirlock(all)
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains(expected), "\(result.errors)")
    }

    // MARK: Support

    /// Records `paths` from `upstream` with `airlock record --target` into a file of the folder.
    private func record(
        _ paths: [String], from upstream: String, into name: String, headers: [(String, String)] = [], arguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> String {
        let cassette = folder.appendingPathComponent(name).path
        let airlock = try LaunchedAirlock(["record", "--target", upstream, "--cassette", cassette, "--port", "0"] + arguments, environment: environment)
        defer { airlock.stopIfRunning() }
        let lines = airlock.lines
        let base = "http://127.0.0.1:\(try lastPort(in: try await airlock.banner().line))"
        try await withClient { client in
            for path in paths {
                let answer = try await send(client, base + path, headers: headers)
                #expect(answer.status == 200, "\(path): \(answer.text)")
                // The line the recorder prints for the exchange: it is recorded.
                _ = await lines.next()
            }
        }
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
        return cassette
    }

    private func get(_ url: String) async throws -> String {
        var text = ""
        try await withClient { client in text = try await send(client, url).text }
        return text
    }

    private func requestCount(_ upstream: String) async throws -> Int {
        let object = try JSONSerialization.jsonObject(with: Data(try await get(upstream + "/__admin/count").utf8)) as? [String: Any]
        return try #require(object?["count"] as? Int)
    }

    /// Runs `airlock` to its end with `environment` added to the test's own (less the account
    /// variable, which only the tests that say so set).
    private func runAirlock(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, errors: String) {
        var base = ProcessInfo.processInfo.environment
        base["AIRLOCK_TEST_ACCOUNT"] = nil
        return try LaunchedAirlock.run(arguments, environment: base.merging(environment) { $1 })
    }

    /// Each entry's drifts as `kind path recorded live` (`-` for none), from `--json`.
    private static func drifts(inJSON text: String) throws -> [[String]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        let entries = try #require(document["entries"] as? [[String: Any]], "\(text)")
        return entries.map { entry in
            ((entry["drifts"] as? [[String: Any]]) ?? []).map { drift in
                ["kind", "path", "recorded", "live"].map { (drift[$0] as? String) ?? "-" }.joined(separator: " ")
            }
        }
    }

    /// The text of each entry of a cassette as Airlock writes it (an entry starts on a line `      {`
    /// and ends on one `      }` or `      },`), and the text before and after them.
    private static func entryTexts(_ data: Data) -> (head: String, entries: [String], tail: String) {
        let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        var head: [String] = []
        var entries: [String] = []
        var tail: [String] = []
        var current: [String]?
        for line in lines {
            if current == nil, line == "      {" {
                current = [line]
            } else if var open = current {
                open.append(line)
                if line == "      }" || line == "      }," {
                    entries.append(open.joined(separator: "\n"))
                    current = nil
                } else {
                    current = open
                }
            } else if entries.isEmpty {
                head.append(line)
            } else {
                tail.append(line)
            }
        }
        return (head.joined(separator: "\n"), entries, tail.joined(separator: "\n"))
    }
}
