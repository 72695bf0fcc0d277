import AirlockBase
@testable import AirlockCassettes
@testable import AirlockCore
import Foundation
import HTTPTypes
import Testing

/// The drift check's parts on their own: the JSON paths of the rules, the comparison of shapes,
/// placeholders, the splice that rewrites only drifted entries, and expiry. The whole path (a live
/// upstream, the CLI) is in MockServerTests' `CassetteVerifyTests`.
struct DriftTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-drift-\(UUID().uuidString)")

    @Test(arguments: [
        ("$.id", [FieldRule.Place.member("id")], true),
        ("$.id", [.member("id"), .member("inner")], true),
        ("$.id", [.member("other")], false),
        ("$.items[*].price", [.member("items"), .element(3), .member("price")], true),
        ("$.items[0].price", [.member("items"), .element(3), .member("price")], false),
        ("$..updatedAt", [.member("a"), .element(0), .member("updatedAt")], true),
        ("$..updatedAt", [.member("updatedAt")], true),
        ("$['odd key']", [.member("odd key")], true),
        ("$.*.id", [.member("x"), .member("id")], true),
        ("$", [.member("x")], true),
    ])
    func aRuleCoversItsPlaceAndWhatIsUnder(rule: String, place: [FieldRule.Place], covers: Bool) throws {
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
        let place = [FieldRule.Place](repeating: .member("a"), count: 500) + [.member("b")]
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
