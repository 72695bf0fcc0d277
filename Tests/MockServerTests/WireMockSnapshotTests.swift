import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOHTTP1
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording to WireMock's folder: `airlock cassette wiremock` and `airlock record --format
/// wiremock` as child processes, the folder served by `airlock serve --wiremock` over real
/// sockets and loaded in-process with `WireMockMappings(directory:)`, each answer compared with
/// what the cassette replays.
struct WireMockSnapshotTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-wiremock-record")
    private var folder: URL { temporary.url }

    @Test func aRecordedCassetteWrittenAsMappingsReplaysEveryKindAsTheCassetteDoes() async throws {
        let cassette = folder.appendingPathComponent("fidelity.har").path
        let root = folder.appendingPathComponent("wiremock")
        try await withFidelityUpstream { upstream in
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let port = try lastPort(in: try #require(await recorder.lines.next(), "airlock record printed nothing"))
            _ = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
        }
        let converted = try run(["cassette", "wiremock", cassette, root.path])
        #expect(converted.status == 0, "\(converted.errors)")
        #expect(converted.output.contains("Wrote \(FidelityCase.all.count) mapping(s)"), "\(converted.output)")
        try expectNoSecret(under: root)

        // Over sockets: the folder answers each case as the cassette does, byte for byte.
        let fromCassette = try await serveAndFetchAll(["serve", cassette])
        let fromMappings = try await serveAndFetchAll(["serve", "--wiremock", root.path])
        var outOfOrder: [String] = []
        for fidelityCase in FidelityCase.all {
            let expected = try #require(fromCassette[fidelityCase.name], "\(fidelityCase.name)")
            let answer = try #require(fromMappings[fidelityCase.name], "\(fidelityCase.name)")
            #expect(answer.status == expected.status, "\(fidelityCase.name): status")
            #expect(answer.body == expected.body, "\(fidelityCase.name): body \(answer.bodyText) expected \(expected.bodyText)")
            #expect(Self.byName(answer.comparedFields) == Self.byName(expected.comparedFields), "\(fidelityCase.name): fields \(answer.comparedFields) expected \(expected.comparedFields)")
            if answer.comparedFields != Self.grouped(expected.comparedFields) { outOfOrder.append(fidelityCase.name) }
        }
        // The files list the fields in recorded order (each name's fields together)…
        let headersMapping = try mappingText(in: root, url: "/headers")
        #expect(Self.positions(of: ["\"X-Dup\"", "\"Content-Type\"", "\"x-dup\"", "\"X-MiXeD-CaSe\"", "\"X-Empty-Value\""], in: headersMapping).isSorted)
        let cookiesMapping = try mappingText(in: root, url: "/cookies")
        #expect(Self.positions(of: ["\"Set-Cookie\"", "a=[REDACTED]", "b=[REDACTED]", "\"Content-Type\""], in: cookiesMapping).isSorted, "\(cookiesMapping)")
        // …and the mapping reader serves them in that order.
        #expect(outOfOrder.isEmpty, "fields out of recorded order: \(outOfOrder)")

        // In process, through URLSession: the mappings answer as the cassette does.
        var matching = Cassette.Matching()
        matching.matchesAnyHost = true
        let cassetteMock = HTTPMock(cassette: try Cassette(contentsOf: URL(fileURLWithPath: cassette), mode: .none, matching: matching, environment: [:]))
        let mappingsMock = HTTPMock()
        #expect(mappingsMock.registerStubs(try WireMockMappings(directory: root)).isEmpty)
        for fidelityCase in FidelityCase.all {
            let expected = try await SessionResponse.fetch(fidelityCase, port: 9, session: cassetteMock.urlSession)
            let answer = try await SessionResponse.fetch(fidelityCase, port: 9, session: mappingsMock.urlSession)
            #expect(answer == expected, "\(fidelityCase.name): \(answer) expected \(expected)")
        }
    }

    @Test func recordingToMappingsReplaysARepeatedRequestsResponsesInOrderThroughAScenario() async throws {
        let root = folder.appendingPathComponent("scenario")
        let api = HTTPMock()
        api.addResponses(forPath: "/items", host: "**") {
            MockResponse.plaintext("one")
            MockResponse.plaintext("two")
            MockResponse.plaintext("three")
        }
        try await withServer(api) { real in
            let recorder = try LaunchedAirlock(["record", "--format", "wiremock", "--target", real.baseURL.absoluteString, "--cassette", root.path, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            // The banner names the target first, then the recorder's own URL.
            let base = "http://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            for expected in ["one", "two", "three"] {
                #expect(try await fetch(try #require(URL(string: "\(base)/items"))).text == expected)
            }
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
            let summary = await recorder.lines.next()
            #expect(summary == "Airlock recorded 3 exchange(s) as 3 WireMock mapping(s) in \(root.path).")
        }
        let mappings = try mappingObjects(in: root)
        #expect(mappings.count == 3)
        let steps = mappings.sorted { ($0["insertionIndex"] as? Int ?? 0) < ($1["insertionIndex"] as? Int ?? 0) }.map { mapping in
            [mapping["scenarioName"], mapping["requiredScenarioState"], mapping["newScenarioState"]].map { $0 as? String ?? "-" }
        }
        #expect(steps == [
            ["scenario-1-items", "Started", "scenario-1-items-2"],
            ["scenario-1-items", "scenario-1-items-2", "scenario-1-items-3"],
            ["scenario-1-items", "scenario-1-items-3", "-"],
        ])

        let server = try LaunchedAirlock(["serve", "--wiremock", root.path, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let base = try await server.banner().base
        for expected in ["one", "two", "three", "three"] {
            #expect(try await fetch(try #require(URL(string: "\(base)/items"))).text == expected)
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)

        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: root)).isEmpty)
        for expected in ["one", "two", "three"] {
            let (data, _) = try await mock.urlSession.data(from: try #require(URL(string: "https://api.example.com/items")))
            #expect(String(decoding: data, as: UTF8.self) == expected)
        }
    }

    @Test func aSecretTheRecordingHidStaysHiddenInTheMappingsWhichStillAnswerTheRequest() async throws {
        let root = folder.appendingPathComponent("secrets")
        let api = HTTPMock()
        api.addResponses(forPath: "/users", host: "**", requiring: .post) {
            MockResponse.plaintext(#"{"id":7,"echo":"Bearer HEADERSECRET"}"#, status: .created)
        }
        let request = { (base: String, secret: String) in
            (
                "\(base)/users?access_token=QUERY\(secret)",
                [("Authorization", "Bearer HEADER\(secret)"), ("Content-Type", "application/json")],
                #"{"name":"Alice","password":"BODY\#(secret)"}"#
            )
        }
        try await withServer(api) { real in
            let recorder = try LaunchedAirlock(["record", "--format", "wiremock", "--target", real.baseURL.absoluteString, "--cassette", root.path, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            // The banner names the target first, then the recorder's own URL.
            let base = "http://127.0.0.1:\(try lastPort(in: try await recorder.banner().line))"
            try await withClient { client in
                let (url, headers, body) = request(base, "SECRET")
                let answer = try await send(client, url, method: .POST, headers: headers, body: body)
                #expect(answer.status == 201)
            }
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
        }
        for secret in ["QUERYSECRET", "HEADERSECRET", "BODYSECRET"] {
            try expectNoSecret(secret, under: root)
        }
        // Other secret values in the same places still match: the placeholders match any value.
        let server = try LaunchedAirlock(["serve", "--wiremock", root.path, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let base = try await server.banner().base
        try await withClient { client in
            let (url, headers, body) = request(base, "OTHER")
            let answer = try await send(client, url, method: .POST, headers: headers, body: body)
            #expect(answer.status == 201)
            #expect(answer.text == #"{"id":7,"echo":"Bearer [REDACTED]"}"#)
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
    }

    @Test func theCommandsNameTheInputAndTheFixWhenTheyCannotWrite() throws {
        let missing = folder.appendingPathComponent("missing.har").path
        let absent = try run(["cassette", "wiremock", missing, folder.appendingPathComponent("out").path])
        #expect(absent.status == 65)
        #expect(absent.errors.contains(missing), "\(absent.errors)")

        let cassette = folder.appendingPathComponent("one.har")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try HTTPArchive(entries: []).data().write(to: cassette)
        let busy = folder.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: busy.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: busy.appendingPathComponent("notes.txt"))
        let refused = try run(["cassette", "wiremock", cassette.path, busy.path])
        #expect(refused.status == 73)
        #expect(refused.errors.contains(busy.path) && refused.errors.contains("is not empty") && refused.errors.contains("--force"), "\(refused.errors)")

        let forced = try run(["cassette", "wiremock", cassette.path, busy.path, "--force"])
        #expect(forced.status == 0, "\(forced.errors)")
        // Only WireMock's folders are replaced.
        #expect(FileManager.default.fileExists(atPath: busy.appendingPathComponent("notes.txt").path))

        let file = folder.appendingPathComponent("a-file")
        try Data().write(to: file)
        let notFolder = try run(["cassette", "wiremock", cassette.path, file.path])
        #expect(notFolder.status == 73)
        #expect(notFolder.errors.contains("is a file, not a folder"), "\(notFolder.errors)")

        let recordRefused = try run(["record", "--format", "wiremock", "--cassette", busy.path, "--port", "0"])
        #expect(recordRefused.status == 73)
        #expect(recordRefused.errors.contains("--force"), "\(recordRefused.errors)")
        let badFormat = try run(["record", "--format", "yaml", "--cassette", busy.path, "--port", "0"])
        #expect(badFormat.status == 64)
        #expect(badFormat.errors.contains("use har or wiremock"), "\(badFormat.errors)")
    }

    // MARK: Helpers

    /// The fields as a WireMock mapping can list them: each name's fields together, where the
    /// name first occurs, in their order.
    static func grouped(_ fields: [WireResponse.Field]) -> [WireResponse.Field] {
        var seen: Set<String> = []
        var result: [WireResponse.Field] = []
        for field in fields where seen.insert(field.name).inserted {
            result += fields.filter { $0.name == field.name }
        }
        return result
    }

    /// Each name's values, in order.
    static func byName(_ fields: [WireResponse.Field]) -> [String: [String]] {
        var values: [String: [String]] = [:]
        for field in fields { values[field.name, default: []].append(field.value) }
        return values
    }

    /// Where each text first occurs in `text` (`Int.max` when it does not).
    static func positions(of needles: [String], in text: String) -> [Int] {
        needles.map { needle in text.range(of: needle).map { text.distance(from: text.startIndex, to: $0.lowerBound) } ?? Int.max }
    }

    /// The mapping file whose request has this `url`.
    private func mappingText(in root: URL, url: String) throws -> String {
        let folder = root.appendingPathComponent("mappings")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            if text.contains("\"url\" : \"\(url)\"") { return text }
        }
        Issue.record("no mapping for \(url) in \(folder.path)")
        return ""
    }

    /// Serves with `arguments` (plus a free port) and fetches every fidelity case.
    private func serveAndFetchAll(_ arguments: [String]) async throws -> [String: WireResponse] {
        let server = try LaunchedAirlock(arguments + ["--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let port = try lastPort(in: try #require(await server.lines.next(), "airlock \(arguments) printed nothing"))
        let answers = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
        return answers
    }

    /// Every mapping file's object.
    private func mappingObjects(in root: URL) throws -> [[String: Any]] {
        let folder = root.appendingPathComponent("mappings")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { name in
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)")
        }
    }

    private func expectNoSecret(under root: URL) throws {
        for secret in FidelityCase.secrets { try expectNoSecret(secret, under: root) }
    }

    private func expectNoSecret(_ secret: String, under root: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)).compactMap { $0 as? URL }
        #expect(files.contains { $0.pathExtension == "json" }, "no mapping under \(root.path)", sourceLocation: sourceLocation)
        for file in files where !file.hasDirectoryPath {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.firstRange(of: Data(secret.utf8)) == nil, "\(secret) reached \(file.path)", sourceLocation: sourceLocation)
        }
    }

    /// Runs `airlock` to completion; returns its exit status, output and errors.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try LaunchedAirlock.run(arguments)
    }
}

extension Array where Element == Int {
    fileprivate var isSorted: Bool { zip(self, dropFirst()).allSatisfy { $0 < $1 } && !contains(Int.max) }
}
