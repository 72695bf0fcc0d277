import Foundation
import HTTPMock
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Output the DocC articles quote — the `airlock` banners and errors, Troubleshooting's messages —
/// is what the real code path prints: each is produced here and compared line by line, with only
/// what differs from run to run (ports, durations, temporary paths) set aside.
struct QuotedOutputDocumentationTests {
    /// The first fenced block of `file` whose first line starts with `prefix`.
    private func quotedBlock(in file: String, startingWith prefix: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> CodeBlock {
        try #require(
            Documentation.blocks.first { $0.file == file && $0.lines.first?.hasPrefix(prefix) == true },
            "\(file) no longer quotes a block starting \"\(prefix)\"; update this test with the article",
            sourceLocation: sourceLocation
        )
    }

    /// A line with what changes from run to run replaced: the port, durations, the CA's folder,
    /// and the `^C` a terminal echoes before the last line.
    static func normalized(_ line: String) -> String {
        var line = line
        if line.hasPrefix("^C") { line.removeFirst(2) }
        line.replace(#/127\.0\.0\.1:\d+/#, with: "127.0.0.1:PORT")
        line.replace(#/port: \d+/#, with: "port: PORT")
        line.replace(#/\(\d+ ms\)/#, with: "(N ms)")
        line.replace(#/\/[^\s"),]*airlock-ca\.pem/#, with: "…/airlock-ca.pem")
        return line
    }

    /// Compares the quoted lines with the real ones, naming the article's line of each difference.
    private func expectQuoted(_ block: CodeBlock, matches real: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let quoted = block.lines.filter { !$0.isEmpty }
        for (offset, line) in quoted.enumerated() {
            let actual = offset < real.count ? Self.normalized(real[offset]) : "(no such line)"
            #expect(
                Self.normalized(line) == actual,
                "\(block.file):\(block.line + 1 + offset) quotes a line the command does not print:\n  quoted: \(line)\n  real:   \(offset < real.count ? real[offset] : "(none)")",
                sourceLocation: sourceLocation
            )
        }
        #expect(real.count >= quoted.count, "the command printed \(real.count) line(s): \(real)", sourceLocation: sourceLocation)
    }

    /// A fresh folder, removed by the caller.
    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-doc-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    // MARK: The airlock command

    @Test func theServeBannerAndRequestLinesAreTheCommandsOwn() async throws {
        let block = try quotedBlock(in: "Sources/MockServer/Documentation.docc/TheAirlockCommand.md", startingWith: "Airlock serving 7 stub(s)")
        let airlock = try RunningAirlock(["serve", "Examples/stubs.json", "--port", "0"], in: Documentation.root)
        defer { airlock.stopIfRunning() }
        let banner = try await airlock.lines(atLeast: 2)
        let base = try RunningAirlock.baseURL(in: try #require(banner.first))
        // The request lines the article shows: make those requests, one at a time.
        let session = URLSession(configuration: .ephemeral)
        for line in block.lines {
            guard let request = line.firstMatch(of: #/^([A-Z]+) (/\S*) → /#) else { continue }
            let count = airlock.lines.count
            var urlRequest = URLRequest(url: try #require(URL(string: base.absoluteString + request.output.2)))
            urlRequest.httpMethod = String(request.output.1)
            _ = try await session.data(for: urlRequest)
            _ = try await airlock.lines(atLeast: count + 1)
        }
        let (status, lines) = try await airlock.interrupt()
        #expect(status == 0, "\(lines)")
        expectQuoted(block, matches: lines)
    }

    @Test func theErrorsForABadStubFileAreTheCommandsOwn() async throws {
        let block = try quotedBlock(in: "Sources/MockServer/Documentation.docc/TheAirlockCommand.md", startingWith: "airlock: /…/Examples/bad.json")
        // A file that makes each quoted error, in the article's order.
        let files = [
            #"{"stubs": [{"path": "/x", "responses": [{"status": "ok"}]}]}"#,
            "{\n  \"stubs\": [\n    { \"path\": \"/users\", nope }\n  ]\n}",
        ]
        #expect(files.count == block.lines.count, "one file per quoted error")
        for (offset, contents) in files.enumerated() {
            let folder = try temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Examples"), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("Examples/bad.json"))
            let (status, output) = try await AirlockCommand.run(["serve", "Examples/bad.json", "--port", "0"], in: folder)
            #expect(status == 65, "\(output)")
            let quoted = offset < block.lines.count ? block.lines[offset] : ""
            // The command names the file by its full path; the article writes the folder as `/…`.
            let real = output.trimmingCharacters(in: .newlines).replacingOccurrences(of: folder.path, with: "/…")
            #expect(
                real == quoted,
                "\(block.file):\(block.line + 1 + offset) quotes an error the command does not print:\n  quoted: \(quoted)\n  real:   \(real)"
            )
        }
    }

    @Test func theWireMockBannerIsTheCommandsOwn() async throws {
        let block = try quotedBlock(in: "Sources/MockServer/Documentation.docc/MigratingFromWireMock.md", startingWith: "Airlock serving 4 WireMock mapping(s)")
        let airlock = try RunningAirlock(["serve", "--wiremock", "Examples/wiremock", "--port", "0"], in: Documentation.root)
        defer { airlock.stopIfRunning() }
        let lines = try await airlock.lines(atLeast: 2)
        expectQuoted(block, matches: lines)
        let (status, _) = try await airlock.interrupt()
        #expect(status == 0)
    }

    @Test func theErrorForAnUnsupportedMappingIsTheCommandsOwn() async throws {
        let block = try quotedBlock(in: "Sources/MockServer/Documentation.docc/MigratingFromWireMock.md", startingWith: "airlock: /…/src/test/resources/mappings/orders.json")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mappings = folder.appendingPathComponent("src/test/resources/mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try Data(#"{"request": {"urlPath": "/orders", "bodyPatterns": [{"matchesJsonSchema": {}, "schemaVersion": "V7"}]}, "response": {"status": 201}}"#.utf8).write(to: mappings.appendingPathComponent("orders.json"))
        let (status, output) = try await AirlockCommand.run(["serve", "--wiremock", "src/test/resources", "--port", "0"], in: folder)
        #expect(status == 65, "\(output)")
        let real = output.trimmingCharacters(in: .newlines).replacingOccurrences(of: folder.path, with: "/…")
        #expect(real == block.text, "\(block.file):\(block.line + 1) quotes an error the command does not print:\n  quoted: \(block.text)\n  real:   \(real)")
    }

    @Test(arguments: [false, true])
    func theReplayBannerIsTheCommandsOwn(repeatingLast: Bool) async throws {
        let file = "Sources/MockServer/Documentation.docc/TheAirlockCommand.md"
        let blocks = Documentation.blocks.filter { $0.file == file && $0.lines.first?.hasPrefix("Airlock serving 3 recorded exchange(s)") == true }
        try #require(blocks.count == 2, "\(file) no longer quotes the two replay banners; update this test with the article")
        let block = blocks[repeatingLast ? 1 : 0]

        // api.har with three recorded exchanges, recorded from a stand-in service.
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = HTTPMock()
        service.addResponses(forPath: "/users/*", host: "api.example.com") { MockResponse.plaintext("[]", lifetime: .eternal) }
        let cassette = try Cassette(contentsOf: folder.appendingPathComponent("api.har"), mode: .all, environment: [:])
        let recorder = HTTPMock(cassette: cassette, passthroughSession: service.urlSession)
        for id in 1...3 {
            _ = try await recorder.urlSession.data(from: try #require(URL(string: "https://api.example.com/users/\(id)")))
        }
        try cassette.save()

        let airlock = try RunningAirlock(["serve", "api.har", "--port", "0"] + (repeatingLast ? ["--repeat-last"] : []), in: folder)
        defer { airlock.stopIfRunning() }
        let lines = try await airlock.lines(atLeast: 2)
        expectQuoted(block, matches: lines)
        let (status, _) = try await airlock.interrupt()
        #expect(status == 0)
    }

    #if HTTPS
    @Test func theHTTPSBannerIsTheCommandsOwn() async throws {
        let block = try quotedBlock(in: "Sources/MockServer/Documentation.docc/ServingHTTPS.md", startingWith: "Airlock serving 7 stub(s) from Examples/stubs.json at https")
        let caFolder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: caFolder) }
        let airlock = try RunningAirlock(["serve", "Examples/stubs.json", "--port", "0", "--tls", "--ca-dir", caFolder.path], in: Documentation.root)
        defer { airlock.stopIfRunning() }
        let lines = try await airlock.lines(atLeast: block.lines.count)
        expectQuoted(block, matches: lines)
        let (status, _) = try await airlock.interrupt()
        #expect(status == 0)
    }
    #endif

    // MARK: Troubleshooting

    @Test func theRejectedStubMessageIsTheRegistrysOwn() throws {
        let file = "Sources/HTTPMock/Documentation.docc/Troubleshooting.md"
        let block = try #require(
            Documentation.blocks.first { $0.file == file && $0.lines.first?.contains(" rejected the stub for host ") == true },
            "\(file) no longer quotes a rejected stub's message; update this test with the article"
        )
        let quoted = try #require(block.lines.first)
        // The stub the message names, registered as written.
        let named = try #require(quoted.firstMatch(of: #/host "([^"]*)", path "([^"]*)"/#), "\(quoted)")
        let mock = HTTPMock()
        mock.addResponses(forPath: String(named.output.2), host: String(named.output.1)) { MockResponse.plaintext("x") }
        let real = mock.registrationErrors.map(\.description)
        #expect(real == [quoted], "\(file):\(block.line + 1) quotes a message the registry does not print:\n  quoted: \(quoted)\n  real:   \(real.first ?? "(none)")")
    }

    @Test func theMissingFileMessageIsTheRequestsOwn() async throws {
        let file = "Sources/HTTPMock/Documentation.docc/Troubleshooting.md"
        let text = Documentation.normalized(try String(contentsOf: Documentation.root.appendingPathComponent(file), encoding: .utf8))
        // The inline quote `Airlock: the response for … reads the file …, which does not exist. … …`.
        let quote = try #require(text.firstMatch(of: #/`(\w+: the response for [^`]*reads the file [^`]*)`/#), "\(file) no longer quotes the missing-file message")
        let quoted = String(quote.output.1)
        let parts = try #require(quoted.firstMatch(of: #/host "([^"]*)", path "([^"]*)" reads the file (\S+),/#), "\(quoted)")
        let path = String(parts.output.3)
        try #require(!FileManager.default.fileExists(atPath: path), "\(path) exists on this machine; quote a path that cannot")

        let mock = HTTPMock()
        mock.addResponses(forPath: String(parts.output.2), host: String(parts.output.1)) { MockResponse.file(url: URL(fileURLWithPath: path)) }
        let url = try #require(URL(string: "https://\(parts.output.1)\(parts.output.2)"))
        let error = await #expect(throws: URLError.self) { _ = try await mock.urlSession.data(from: url) }
        #expect(error?.code == .fileDoesNotExist)
        // The quote ends with "…" where the message goes on.
        let shown = quoted.hasSuffix("…") ? String(quoted.dropLast()).trimmingCharacters(in: .whitespaces) : quoted
        let real = Documentation.normalized(error?.localizedDescription ?? "")
        let isPrefix = real.hasPrefix(shown)
        #expect(isPrefix, "\(file) quotes:\n  \(shown)\nbut the request fails with:\n  \(real)")
    }
}
