import AirlockBase
@testable import AirlockCassettes
@testable import AirlockCore
import Foundation
import HTTPTypes
import Testing
import ProcessSupport

/// The drift check's parts on their own: the JSON paths of the rules, the comparison of shapes,
/// placeholders, the splice that rewrites only drifted entries, and expiry. The whole path (a live
/// upstream, the CLI) is in MockServerTests' `CassetteVerifyTests`.
struct DriftTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-drift")
    private var folder: URL { temporary.url }

    @Test(arguments: [
        ("$.id", [JSONValue.Step.member("id")], true),
        ("$.id", [.member("id"), .member("inner")], true),
        ("$.id", [.member("other")], false),
        ("$.items[*].price", [.member("items"), .index(3), .member("price")], true),
        ("$.items[0].price", [.member("items"), .index(3), .member("price")], false),
        ("$..updatedAt", [.member("a"), .index(0), .member("updatedAt")], true),
        ("$..updatedAt", [.member("updatedAt")], true),
        ("$['odd key']", [.member("odd key")], true),
        ("$.*.id", [.member("x"), .member("id")], true),
        ("$", [.member("x")], true),
    ])
    func aRuleCoversItsPlaceAndWhatIsUnder(rule: String, place: [JSONValue.Step], covers: Bool) throws {
        #expect(try FieldRule(rule).covers(place) == covers)
    }

    @Test(arguments: ["id", "$.", "$..", "$...a", "$[", "$[x]", "$['a", "$.a[*", "$ .a", "$.[0]"])
    func aMalformedRuleIsRefusedNamingIt(rule: String) {
        #expect(throws: FieldRule.ParseError.self) { try FieldRule(rule) }
        let error = #expect(throws: CassetteError.self) { try DriftOptions(ignoredFields: [rule]).validate() }
        #expect(error?.code == .invalidRule)
        #expect(error?.description.contains("\"\(rule)\" is not a JSON path") == true, "\(String(describing: error))")
    }

    @Test func manyDescentsCostStepsTimesPlaces() throws {
        // A hostile rule against a deep place: a table, not backtracking.
        let rule = try FieldRule("$" + String(repeating: "..a", count: 200))
        let place = [JSONValue.Step](repeating: .member("a"), count: 500) + [.member("b")]
        #expect(rule.covers(place))
    }

    @Test func shapesAreComparedAndValuesOnlyWhereAsked() {
        let comparison = ExchangeComparison(ignored: [try! FieldRule("$..etag")], compared: [try! FieldRule("$.kind")], ignoredHeaders: ["date"])
        let recorded = Self.response(#"{"kind": "user", "id": 1, "tags": [{"n": 1}], "etag": "a", "gone": true}"#, headers: [("Date", "x"), ("X-Old", "1")])
        let live = Self.response(#"{"kind": "admin", "id": 1, "tags": [{"n": "1"}, {"n": 2}], "etag": 5, "new": null}"#, headers: [("Date", "y"), ("X-New", "1")])
        let drifts = comparison.drifts(recorded: recorded, live: live).map(\.description)
        #expect(drifts == [
            "header X-Old: removed",
            "header X-New: added",
            #"body $.kind: "user" → "admin""#,
            "body $.tags[*].n: number → string",
            "body $.gone: removed (was boolean)",
            "body $.new: added (null)",
        ])
    }

    @Test func aJSONAnswerThatBecameHTMLDriftsInTypeAndKind() {
        let comparison = ExchangeComparison(ignored: [], compared: [], ignoredHeaders: [])
        let recorded = Self.response(#"{"name": "Ada"}"#)
        let live = Self.response("<!doctype html><title>Ada</title>", type: "text/html; charset=utf-8")
        let drifts = comparison.drifts(recorded: recorded, live: live)
        #expect(drifts.map(\.kind) == [.contentType, .bodyKind])
        #expect(drifts.map(\.description) == ["content-type: application/json → text/html", "body: JSON → not JSON"])
        // An empty body is a kind of its own; two bodies that are not JSON are compared only as values.
        #expect(comparison.drifts(recorded: recorded, live: Self.response("")).map(\.description) == ["body: JSON → empty"])
        #expect(comparison.drifts(recorded: live, live: Self.response("")).map(\.description) == ["content-type: text/html → application/json"])
        // Ignoring the whole body leaves the media type.
        let ignoring = ExchangeComparison(ignored: [try! FieldRule("$")], compared: [], ignoredHeaders: [])
        #expect(ignoring.drifts(recorded: recorded, live: live).map(\.kind) == [.contentType])
    }

    /// Every live element is checked: against the recorded one at its position, and past them
    /// against the first recorded one, by shape alone; a recorded empty array shows no shape.
    @Test(arguments: [
        (#"[{"n": 1}]"#, #"[{"n": 1}, {"n": "2"}, {"n": 3}]"#, [], ["body $.items[*].n: number → string"]),
        (#"[{"n": 1}, {"n": 2}]"#, #"[{"n": 1}]"#, [], []),
        (#"[]"#, #"[{"n": 1}, 2]"#, [], []),
        (#"[1]"#, #"[1, "two", null]"#, [], ["body $.items[*]: number → string", "body $.items[*]: number → null"]),
        (#"[{"n": 1}]"#, #"[{"n": 1}, {"n": 2, "m": 0}]"#, [], ["body $.items[*].m: added (number)"]),
        (#"[{"n": 1}]"#, #"[{"n": 1}, {"n": 5}]"#, ["$"], ["body $.items: 1 elements → 2 elements"]),
        (#"[]"#, #"[{"n": 1}]"#, ["$.items"], ["body $.items: 0 elements → 1 elements"]),
        (#"[[1]]"#, #"[[1], [1, "x"]]"#, [], ["body $.items[*][*]: number → string"]),
    ] as [(String, String, [String], [String])])
    func arraysOfOtherLengthsAreComparedElementByElement(recorded: String, live: String, comparedValues: [String], expected: [String]) throws {
        let comparison = ExchangeComparison(ignored: [], compared: try comparedValues.map { try FieldRule($0) }, ignoredHeaders: [])
        let drifts = comparison.drifts(recorded: Self.response(#"{"items": \#(recorded)}"#), live: Self.response(#"{"items": \#(live)}"#))
        #expect(drifts.map(\.description) == expected)
    }

    @Test func aVerificationWithNothingUnverifiedStampsTheFileAndItsAgeCountsFromThen() async throws {
        let original = Self.archive(paths: ["/a", "/b"], maxAge: "30d")
        let file = try write(original)
        #expect(throws: CassetteError.self) { try Cassette(contentsOf: file, environment: ["CI": "1"]) }
        let cassette = try Cassette(verifying: file)
        let agreeing = try await cassette.verify(against: URL(string: "http://127.0.0.1:1")!, options: DriftOptions(environment: [:])) { _ in Self.response(#"{"id": 2}"#) }
        #expect(!agreeing.hasDrift && !agreeing.hasUnverified)
        #expect(try cassette.replaceDriftedEntries(from: agreeing) == [])
        // One member added to the `log`, every other byte kept.
        let stamped = try String(contentsOf: file, encoding: .utf8)
        let stamp = #""_verifiedAt" : "\#(Timestamp.string(from: agreeing.startedAt))", "#
        #expect(stamped.replacingOccurrences(of: stamp, with: "") == original, "\(stamped)")
        #expect(try HTTPArchive(contentsOf: file).verifiedAt.map { abs($0.timeIntervalSince(agreeing.startedAt)) < 0.001 } == true)
        #expect(try Cassette(contentsOf: file, environment: ["CI": "1"]).entries.count == 2)
        // Verified again, the stamp's value is replaced in place.
        let again = try await cassette.verify(against: URL(string: "http://127.0.0.1:1")!, options: DriftOptions(environment: [:])) { _ in Self.response(#"{"id": 3}"#) }
        try cassette.replaceDriftedEntries(from: again)
        let restamped = try String(contentsOf: file, encoding: .utf8)
        #expect(restamped.replacingOccurrences(of: #""_verifiedAt" : "\#(Timestamp.string(from: again.startedAt))", "#, with: "") == original, "\(restamped)")
        // An older stamp than the oldest entry changes nothing; the message says which date counts.
        let old = try write(original.replacingOccurrences(of: #""_maxAge""#, with: #""_verifiedAt": "2023-11-14T00:00:00Z", "_maxAge""#))
        let error = #expect(throws: CassetteError.self) { try Cassette(contentsOf: old, environment: ["CI": "1"]) }
        #expect(error?.description.contains("its oldest entry was recorded 2023-11-14T22:13:20") == true, "\(String(describing: error))")
        let lapsed = try write(original.replacingOccurrences(of: #""_maxAge""#, with: #""_verifiedAt": "2024-01-01T00:00:00Z", "_maxAge""#))
        let lapsedError = #expect(throws: CassetteError.self) { try Cassette(contentsOf: lapsed, environment: ["CI": "1"]) }
        #expect(lapsedError?.description.contains("the live service last confirmed every entry 2024-01-01T00:00:00") == true, "\(String(describing: lapsedError))")
    }

    @Test func anEntryNotVerifiedLeavesTheFileUnstamped() async throws {
        let original = Self.archive(paths: ["/a", "/secret/%3CMISSING_VAR%3E"], maxAge: "30d")
        let file = try write(original)
        let cassette = try Cassette(verifying: file)
        let report = try await cassette.verify(against: URL(string: "http://127.0.0.1:1")!, options: DriftOptions(environment: [:])) { _ in Self.response(#"{"id": 2}"#) }
        #expect(report.hasUnverified && !report.hasDrift)
        #expect(try cassette.replaceDriftedEntries(from: report) == [])
        #expect(try String(contentsOf: file, encoding: .utf8) == original)
    }

    @Test func streamsAreComparedByTheirEvents() {
        let comparison = ExchangeComparison(ignored: [], compared: [], ignoredHeaders: [])
        let recorded = Self.response("event: a\ndata: {\"n\": 1}\n\n: comment\n\ndata: {\"n\": 2}\n\n", type: "text/event-stream")
        let live = Self.response("event: a\r\ndata: {\"n\": \"1\"}\r\n\r\nevent: b\r\ndata: {\"n\": 2}\r\n\r\ndata: {}\r\n\r\n", type: "text/event-stream")
        #expect(comparison.drifts(recorded: recorded, live: live).map(\.description) == [
            "events: 2 → 3",
            "events[0] data $.n: number → string",
            "events[1] event: message → b",
        ])
    }

    @Test func placeholdersAreFilledFromTheEnvironmentOrStopTheEntry() {
        var options = DriftOptions(placeholders: ["{{token}}": "TOKEN"], environment: ["ACCOUNT_ID": "acct 1", "TOKEN": "t0k"])
        var filler = PlaceholderFiller(options: options, replacement: "[REDACTED]")
        #expect(filler.fill("https://a.test/accounts/%3CACCOUNT_ID%3E?t={{token}}", in: "the URL", isURL: true) == "https://a.test/accounts/acct 1?t=t0k")
        #expect(filler.problems.isEmpty)
        #expect(filler.filled == ["<ACCOUNT_ID>": "acct 1", "{{token}}": "t0k"])
        options.environment = [:]
        filler = PlaceholderFiller(options: options, replacement: "[REDACTED]")
        _ = filler.fill("Bearer <API_KEY> [REDACTED]", in: "the header Authorization", isURL: false)
        #expect(filler.problems.count == 2)
        #expect(filler.problems.first?.contains("the environment variable API_KEY that fills it is not set") == true)
        #expect(filler.problems.last?.contains("holds [REDACTED]") == true)
    }

    @Test func verifyReportsPerEntryAndSendsNothingForAMissingVariable() async throws {
        let file = try write(Self.archive(paths: ["/a", "/secret/%3CMISSING_VAR%3E"]))
        let cassette = try Cassette(contentsOf: file, mode: .none, environment: [:])
        let sent = Locked<[String]>([])
        let report = try await cassette.verify(against: URL(string: "http://127.0.0.1:1/base/")!, options: DriftOptions(environment: [:])) { request in
            sent.withLock { $0.append(request.url) }
            return Self.response(#"{"id": "1"}"#)
        }
        #expect(sent.withLock { $0 } == ["http://127.0.0.1:1/base/a"])
        #expect(report.entries.map(\.outcome) == [.drifted, .unverified])
        #expect(report.entries[0].drifts.map(\.description) == ["body $.id: number → string"])
        #expect(report.entries[1].problem?.contains("MISSING_VAR") == true)
        #expect(report.table.contains("0      GET     http://api.test/a"))
        let json = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(json["drifted"] as? Int == 1 && json["unverified"] as? Int == 1)
    }

    @Test func replacingDriftedEntriesKeepsEveryOtherByte() async throws {
        // Written by hand, not as Airlock writes: another writer's spacing stays.
        let original = Self.archive(paths: ["/a", "/b", "/c"])
        let file = try write(original)
        let cassette = try Cassette(contentsOf: file, mode: .none, environment: [:])
        let report = try await cassette.verify(against: URL(string: "http://127.0.0.1:1")!, options: DriftOptions(environment: [:])) { request in
            request.url.hasSuffix("/b") ? Self.response(#"{"id": "2"}"#) : Self.response(#"{"id": 7}"#)
        }
        #expect(try cassette.replaceDriftedEntries(from: report) == [1])
        let rewritten = try String(contentsOf: file, encoding: .utf8)
        let (before, after) = (Self.entryTexts(original), Self.entryTexts(rewritten))
        #expect(before[0] == after[0] && before[2] == after[2])
        #expect(before[1] != after[1])
        let archive = try HTTPArchive(contentsOf: file)
        #expect(archive.entries.map(\.path) == ["/a", "/b", "/c"])
        #expect(archive.entries[1].response.map { String(decoding: $0.body, as: UTF8.self) } == #"{"id": "2"}"#)
    }

    @Test func anEntryReplacedByItselfLeavesAirlocksFileUnchanged() throws {
        let archive = try HTTPArchive(data: Data(Self.archive(paths: ["/a", "/b"]).utf8), source: "test")
        let written = archive.data(redaction: .none)
        let spliced = try HTTPArchive.splicing(written, replacing: [1: archive.entries[1]])
        #expect(spliced == written)
    }

    @Test func anExpiredCassetteFailsOnCIWithItsAgeAndRecordsAgainElsewhere() throws {
        let file = try write(Self.archive(paths: ["/a"], maxAge: "30d"))
        let error = #expect(throws: CassetteError.self) { try Cassette(contentsOf: file, mode: .once, environment: ["CI": "1"]) }
        #expect(error?.code == .expired)
        let message = error?.description ?? ""
        #expect(message.contains("days old") && message.contains("older than its maximum age of 30d") && message.contains("--update"), "\(message)")
        let recording = try Cassette(contentsOf: file, mode: .once, environment: [:])
        #expect(recording.mode == .all && recording.isRecording && recording.entries.isEmpty && recording.maxAge == MaxAge("30d"))
        // A maximum age given in code wins over the file's.
        let young = try write(Self.archive(paths: ["/a"], date: Date()))
        #expect(try Cassette(contentsOf: young, mode: .once, environment: ["CI": "1"], maxAge: .days(1)).entries.count == 1)
        #expect(MaxAge("0d") == nil && MaxAge("30x") == nil && MaxAge("2w")?.seconds == 1_209_600)
    }

    // MARK: Support

    private func write(_ text: String) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(UUID().uuidString).har")
        try Data(text.utf8).write(to: file)
        return file
    }

    private static func response(_ body: String, type: String = "application/json", headers: [(String, String)] = []) -> RecordedResponse {
        var fields = HTTPFields()
        fields[.contentType] = type
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return RecordedResponse(status: 200, headerFields: fields, body: Data(body.utf8))
    }

    /// A HAR file as another tool might write it: one entry per line.
    private static func archive(paths: [String], maxAge: String? = nil, date: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> String {
        let started = Timestamp.string(from: date)
        let entries = paths.map { path in
            #"  {"startedDateTime": "\#(started)", "request": {"method": "GET", "url": "http://api.test\#(path)", "headers": [{"name": "Accept", "value": "application/json"}]}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"id\": 1}"}}}"#
        }
        let age = maxAge.map { #""_maxAge": "\#($0)", "# } ?? ""
        return "{\"log\": {\(age)\"version\": \"1.2\", \"creator\": {\"name\": \"hand\", \"version\": \"1\"}, \"entries\": [\n" + entries.joined(separator: ",\n") + "\n]}}\n"
    }

    /// The entry lines of ``archive(paths:maxAge:date:)``'s layout, or of Airlock's own.
    private static func entryTexts(_ text: String) -> [String] {
        text.components(separatedBy: "\n").filter { $0.hasPrefix("  {\"startedDateTime\"") || $0.hasPrefix("{\"startedDateTime") || $0.contains("\"startedDateTime\"") }
    }
}
