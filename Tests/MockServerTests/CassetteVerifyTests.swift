import AirlockOpenAPI
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
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-verify")
    private var folder: URL { temporary.url }

    /// The routes recorded, in order: entry 0 to 6.
    private static let routes = ["/users/1", "/health", "/status", "/events", "/stable", "/profile", "/list"]

    @Test func reportsEachDriftAtItsEntryAndPathThenUpdatesOnlyThoseEntries() async throws {
        try await withPythonUpstream("drift_upstream.py") { port in
            let upstream = "http://127.0.0.1:\(port)"
            let cassette = try await record(Self.routes, from: upstream, into: "api.har")

            // Version 1: every entry agrees (values such as requestId and Date differ, types do not).
            let agreeing = try runAirlock(["cassette", "verify", cassette, "--against", upstream])
            #expect(agreeing.status == 0, "\(agreeing.output)\(agreeing.errors)")
            #expect(agreeing.output.contains("7 of 7 entries agree, 0 drifted, 0 not verified"), "\(agreeing.output)")

            _ = try await get(upstream + "/__admin/version?set=2")
            let drifted = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--json"])
            #expect(drifted.status == 1, "\(drifted.output)\(drifted.errors)")
            let drifts = try Self.drifts(inJSON: drifted.output)
            #expect(drifts[0] == ["typeChanged body $.id number string", "typeChanged body $.updatedAt string null"])
            #expect(drifts[1] == ["headerAdded header X-Added - -"])
            #expect(drifts[2] == ["status status 200 503"])
            #expect(drifts[3] == ["eventName events[1] event message update", "typeChanged events[1] data $.n number string"])
            #expect(drifts[4] == [])
            // JSON became HTML: the media type and the kind of body, at their entry.
            #expect(drifts[5] == ["contentType content-type application/json text/html", "bodyKind body JSON not JSON"])
            // The array grew: its new elements are checked against the recorded element's shape.
            #expect(drifts[6] == ["typeChanged body $.items[*].n number string"])

            // The table says the same, one row per drift.
            let table = try runAirlock(["cassette", "verify", cassette, "--against", upstream])
            #expect(table.status == 1)
            #expect(table.output.contains("body $.id: number → string"), "\(table.output)")
            #expect(table.output.contains("events[1] event: message → update"), "\(table.output)")
            #expect(table.output.contains("content-type: application/json → text/html"), "\(table.output)")
            #expect(table.output.contains("1 of 7 entries agree, 6 drifted, 0 not verified"), "\(table.output)")

            // A header left out by name: the added X-Added is no longer a drift, and nothing else changes.
            let ignoringHeader = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--json", "--ignore-header", "x-added"])
            #expect(ignoringHeader.status == 1)
            let withoutHeader = try Self.drifts(inJSON: ignoringHeader.output)
            #expect(withoutHeader[1] == [], "\(withoutHeader)")
            #expect(withoutHeader[0] == drifts[0] && withoutHeader[2] == drifts[2])

            // A volatile field, ignored when told; values compared only where asked.
            let ignoring = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--json", "--ignore", "$.updatedAt", "--compare-values", "$.name"])
            #expect(try Self.drifts(inJSON: ignoring.output)[0] == ["typeChanged body $.id number string"])
            let comparingAll = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--json", "--ignore", "$.updatedAt", "--compare-values", "$"])
            #expect(try Self.drifts(inJSON: comparingAll.output)[0].contains { $0.hasPrefix("valueChanged body $.requestId") })

            // --update: the six drifted entries are recorded again, the fifth keeps its bytes.
            let before = try Data(contentsOf: URL(fileURLWithPath: cassette))
            let updated = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--update"])
            #expect(updated.status == 1, "\(updated.output)\(updated.errors)")
            #expect(updated.errors.contains("recorded again 6 entries"), "\(updated.errors)")
            let after = try Data(contentsOf: URL(fileURLWithPath: cassette))
            let (oldParts, newParts) = (Self.entryTexts(before), Self.entryTexts(after))
            #expect(oldParts.entries.count == 7 && newParts.entries.count == 7)
            // The head gains one line, the stamp: every entry was verified.
            #expect(updated.errors.contains("marked \(cassette) verified at "), "\(updated.errors)")
            let stamp = newParts.head.components(separatedBy: "\n").filter { $0.contains(#""_verifiedAt" : "#) }
            #expect(stamp.count == 1, "\(newParts.head)")
            #expect(oldParts.head == newParts.head.replacingOccurrences(of: (stamp.first ?? "") + "\n", with: "") && oldParts.tail == newParts.tail)
            #expect(oldParts.entries[4] == newParts.entries[4])
            for index in [0, 1, 2, 3, 5, 6] {
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

            // Version 2 echoes the account deeper and sets a cookie: --update records the entry
            // again with the account behind its placeholder and the cookie's value hidden.
            _ = try await get(upstream + "/__admin/version?set=2")
            let updated = try runAirlock(
                ["cassette", "verify", cassette, "--against", upstream, "--update", "--json", "--placeholder", "<ACCOUNT_ID>=AIRLOCK_TEST_ACCOUNT"], environment: environment
            )
            #expect(updated.status == 1, "\(updated.output)\(updated.errors)")
            #expect(try Self.drifts(inJSON: updated.output)[0] == ["headerAdded header Set-Cookie - -", "fieldAdded body $.owner - object"])
            #expect(updated.errors.contains("recorded again 1 entry"), "\(updated.errors)")
            let rewritten = try String(contentsOfFile: cassette, encoding: .utf8)
            #expect(!rewritten.contains("acct-7731"), "the account leaked into the file: \(rewritten)")
            #expect(!rewritten.contains("s3cr3t"), "the cookie leaked into the file: \(rewritten)")
            #expect(rewritten.contains(#"\"owner\": {\"account\": \"<ACCOUNT_ID>\"}"#), "\(rewritten)")
            #expect(rewritten.contains("session=[REDACTED]; Path=/; HttpOnly"), "\(rewritten)")
            #expect(rewritten.contains("/accounts/<ACCOUNT_ID>") || rewritten.contains("/accounts/%3CACCOUNT_ID%3E"), "\(rewritten)")
            // What was written is true: it verifies with the secret filled in again.
            let again = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--placeholder", "<ACCOUNT_ID>=AIRLOCK_TEST_ACCOUNT"], environment: environment)
            #expect(again.status == 0, "\(again.output)\(again.errors)")
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

            // A contract the recording itself breaks (state an integer): a row for the recorded
            // exchange and one for the live, though the service has not changed.
            let strict = folder.appendingPathComponent("strict.yaml")
            try Data(Self.statusContract.replacingOccurrences(of: "state: {type: string}", with: "state: {type: integer}").utf8).write(to: strict)
            let broken = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--openapi", strict.path, "--json"])
            #expect(broken.status == 1, "\(broken.output)\(broken.errors)")
            let violations = try Self.drifts(inJSON: broken.output)[0]
            #expect(violations.count == 2, "\(violations)")
            #expect(violations.first?.hasPrefix("contractViolation contract (recorded) - ") == true && violations.first?.contains("state") == true, "\(violations)")
            #expect(violations.last?.hasPrefix("contractViolation contract (live) - ") == true, "\(violations)")
            let brokenTable = try runAirlock(["cassette", "verify", cassette, "--against", upstream, "--openapi", strict.path])
            #expect(brokenTable.output.contains("contract (recorded): "), "\(brokenTable.output)")

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
        let file = try Self.writeExpiredCassette(in: folder, named: "old.har")
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

    /// What the expired cassette's message advises is true: `verify --update` with nothing drifted
    /// marks the file verified now, its entries' bytes kept, and `serve`, the trait's cassette on
    /// CI and a second verify then take it.
    @Test func verifyUpdateRefreshesAnExpiredCassetteThatStillAgrees() async throws {
        let file = try Self.writeExpiredCassette(in: folder, named: "expired.har")
        let before = try Data(contentsOf: file)
        #expect(throws: CassetteError.self) { try Cassette(contentsOf: file, environment: ["CI": "true"]) }
        try await withPythonUpstream("drift_upstream.py") { port in
            let upstream = "http://127.0.0.1:\(port)"
            let updated = try runAirlock(
                ["cassette", "verify", file.path, "--against", upstream, "--ignore-header", "server", "--ignore-header", "Date", "--update"], environment: ["CI": "true"]
            )
            #expect(updated.status == 0, "\(updated.output)\(updated.errors)")
            #expect(updated.errors.contains("marked \(file.path) verified at "), "\(updated.errors)")
            #expect(!updated.errors.contains("recorded again"), "\(updated.errors)")
        }
        let after = try Data(contentsOf: file)
        // Every byte kept but one line: the stamp, before `creator` as the keys sort.
        let (oldText, newText) = (String(decoding: before, as: UTF8.self), String(decoding: after, as: UTF8.self))
        let added = newText.components(separatedBy: "\n").filter { !oldText.components(separatedBy: "\n").contains($0) }
        #expect(added.count == 1 && added[0].hasPrefix(#"    "_verifiedAt" : "20"#), "\(newText)")
        #expect(newText.replacingOccurrences(of: added.first.map { $0 + "\n" } ?? "", with: "") == oldText)
        let archive = try HTTPArchive(contentsOf: file)
        #expect(archive.maxAge == MaxAge("30d"))
        #expect(try #require(archive.verifiedAt).timeIntervalSinceNow > -3_600)

        // The trait's cassette on CI opens it, replaying; so does `airlock serve`, which answers from it.
        let cassette = try Cassette(contentsOf: file, environment: ["CI": "true"])
        #expect(cassette.entries.count == 1 && !cassette.isRecording)
        let server = try LaunchedAirlock(["serve", file.path, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let (_, base) = try await server.banner()
        let answer = try await get(base + "/stable")
        #expect(answer == #"{"same": [1, 2]}"#)
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
        // Verified again with --update, the stamp is replaced in place: still one line added.
        try await withPythonUpstream("drift_upstream.py") { port in
            let again = try runAirlock(["cassette", "verify", file.path, "--against", "http://127.0.0.1:\(port)", "--ignore-header", "server", "--ignore-header", "Date", "--update"])
            #expect(again.status == 0, "\(again.output)\(again.errors)")
        }
        let restamped = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(restamped.components(separatedBy: "\n").count == newText.components(separatedBy: "\n").count)
        #expect(restamped.components(separatedBy: "\"_verifiedAt\"").count == 2, "\(restamped)")
    }

    /// A cassette recorded on 2020-01-01 with a maximum age of 30 days, as Airlock writes one.
    private static func writeExpiredCassette(in folder: URL, named name: String) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        let entry = #"{"startedDateTime": "2020-01-01T00:00:00Z", "request": {"method": "GET", "url": "http://api.test/stable"}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"same\": [1, 2]}"}}}"#
        let handWritten = Data(#"{"log": {"_maxAge": "30d", "version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [\#(entry)]}}"#.utf8)
        // Written again as Airlock writes a cassette: pretty-printed, keys sorted.
        try HTTPArchive(data: handWritten, source: name).data(redaction: .none).write(to: file)
        return file
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

    /// A service under TLS whose certificate comes from a private CA (Python's own server,
    /// `http2_clients.py serve-http1`, trustme's CA): recorded and verified with `--upstream-ca`;
    /// without it every entry is not verified, saying why; a file that is no PEM stops the command.
    @Test func anHTTPSServiceWithAPrivateCAIsVerifiedTrustingIt() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (upstream, address) = try await startListeningTool("http2_clients.py", ["serve-http1", "--tls", folder.path])
        defer { upstream.stop() }
        let caFile = folder.appendingPathComponent("ca.pem").path
        let service = "https://\(address)"
        let cassette = try await record(["/who"], from: service, into: "private.har", arguments: ["--upstream-ca", caFile])

        let trusting = try runAirlock(["cassette", "verify", cassette, "--against", service, "--upstream-ca", caFile, "--ignore-header", "Date"])
        #expect(trusting.status == 0, "\(trusting.output)\(trusting.errors)")
        #expect(trusting.output.contains("1 of 1 entry agrees, 0 drifted, 0 not verified"), "\(trusting.output)")

        let refusing = try runAirlock(["cassette", "verify", cassette, "--against", service, "--ignore-header", "Date"])
        #expect(refusing.status == 2, "\(refusing.output)\(refusing.errors)")
        #expect(refusing.output.contains("CERTIFICATE_VERIFY_FAILED"), "\(refusing.output)")

        let notPEM = try runAirlock(["cassette", "verify", cassette, "--against", service, "--upstream-ca", cassette])
        #expect(notPEM.status == 2)
        #expect(notPEM.errors.contains("cannot trust the certificates of \(cassette) for the live service: it holds no PEM certificate"), "\(notPEM.errors)")
    }

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

    @Test(arguments: [
        ("missing.har", nil, "does not exist"),
        ("notJSON.har", "this is not JSON", "notJSON.har"),
        ("notHAR.har", #"{"entries": []}"#, "notHAR.har"),
    ] as [(String, String?, String)])
    func anUnreadableCassetteExitsWithTwoNamingIt(name: String, contents: String?, expected: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        if let contents { try Data(contents.utf8).write(to: file) }
        let result = try runAirlock(["cassette", "verify", file.path, "--against", "http://127.0.0.1:9", "--update"])
        #expect(result.status == 2, "\(result.output)\(result.errors)")
        #expect(result.errors.contains("airlock: ") && result.errors.contains(expected), "\(result.errors)")
        #expect(result.output.isEmpty, "\(result.output)")
        if let contents { #expect(try String(contentsOf: file, encoding: .utf8) == contents) }
    }

    /// The Swift API end to end against the live upstream, in-process: `Cassette(verifying:)`,
    /// MockServer's `verify(against:options:timeout:)` with a contract check from
    /// `OpenAPIContract.exchangeCheck()`, then `replaceDriftedEntries(from:)`.
    @Test func theSwiftAPIVerifiesChecksTheContractAndReplacesWhatDrifted() async throws {
        try await withPythonUpstream("drift_upstream.py") { port in
            let upstream = URL(string: "http://127.0.0.1:\(port)")!
            let path = try await record(["/users/1", "/status", "/stable"], from: upstream.absoluteString, into: "swift.har")
            let file = URL(fileURLWithPath: path)
            let contract = try OpenAPIContract(data: Data(Self.statusContract.utf8), source: "status.yaml")
            var options = DriftOptions(ignoredFields: ["$.requestId"])
            options.exchangeCheck = contract.exchangeCheck()

            let cassette = try Cassette(verifying: file)
            let agreeing = try await cassette.verify(against: upstream, options: options, timeout: 20)
            // Only /status is in the contract: the others are violations on both sides.
            #expect(agreeing.entries[1].outcome == .agrees, "\(agreeing.table)")
            #expect(agreeing.entries[0].drifts.map(\.path) == ["contract (recorded)", "contract (live)"], "\(agreeing.table)")
            options.exchangeCheck = { request, response in request.path == "/status" ? contract.exchangeCheck()(request, response) : [] }
            #expect(try await cassette.verify(against: upstream, options: options, timeout: 20).entries.map(\.outcome) == [.agrees, .agrees, .agrees])
            // One exchange checked on its own.
            let status = try HTTPArchive(contentsOf: file).entries[1]
            #expect(contract.violations(of: status, response: try #require(status.response)).isEmpty)

            _ = try await get(upstream.absoluteString + "/__admin/version?set=2")
            let drifted = try await cassette.verify(against: upstream, options: options, timeout: 20)
            #expect(drifted.entries.map(\.outcome) == [.drifted, .drifted, .agrees], "\(drifted.table)")
            #expect(drifted.entries[0].drifts.map(\.description) == ["body $.id: number → string", "body $.updatedAt: string → null"])
            #expect(drifted.entries[1].drifts.map(\.kind) == [.status, .contractViolation], "\(drifted.table)")

            let before = Self.entryTexts(try Data(contentsOf: file))
            #expect(try cassette.replaceDriftedEntries(from: drifted) == [0, 1])
            let after = Self.entryTexts(try Data(contentsOf: file))
            #expect(before.entries[2] == after.entries[2] && before.entries[0] != after.entries[0] && before.entries[1] != after.entries[1])
            #expect(try HTTPArchive(contentsOf: file).verifiedAt != nil)
            let again = try await cassette.verify(against: upstream, options: DriftOptions(ignoredFields: ["$.requestId"]), timeout: 20)
            #expect(!again.hasDrift && !again.hasUnverified, "\(again.table)")
        }
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
