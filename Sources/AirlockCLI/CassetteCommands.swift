import AirlockGRPC
import ArgumentParser
import Foundation
import MockServer

/// `airlock record --target https://api.example.com --cassette api.har`
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record real traffic into a HAR cassette, for any client, through a loopback proxy.",
        discussion: """
            With --target, a reverse proxy: clients call the printed base URL instead of the target, \
            and every exchange is forwarded to it and recorded under the target's URLs. \
            Without --target, a forward proxy for plain-HTTP URLs (absolute-form requests, or CONNECT \
            tunnels), and for HTTPS URLs with --tls (clients trust the CA of `airlock ca path`). \
            Responses are relayed and recorded as the server sent them: every header field in order, \
            bodies byte for byte, in their content coding. A response without a Content-Length \
            (server-sent events, any chunked body) is relayed live, each part as it arrives, and \
            recorded with its parts and the time before each (the HAR's content._parts), for \
            `airlock serve` to replay at that pace. A WebSocket is relayed frame by frame, both \
            ways, as it happens, and recorded when it ends with every message and close frame \
            (the HAR's _webSocketMessages); `airlock serve` replays the conversation to the same \
            client. Secrets are redacted before anything \
            reaches the file (the standard rules, changed with the redaction options below). The \
            cassette is written after each exchange and complete when the command stops on Ctrl-C. \
            Replay it with `airlock serve CASSETTE`.
            """
    )

    @Option(help: "The origin to record from, such as https://api.example.com (omit for a forward proxy).")
    var target: String?

    @Option(help: "The HAR file to write (with --format wiremock, the folder).", completion: .file(extensions: ["har"]))
    var cassette: String

    @Option(help: "har (the default) writes a HAR cassette; wiremock writes WireMock's mappings/ and __files/ into the folder --cassette names, when the command stops.")
    var format: String = "har"

    @Flag(help: "With --format wiremock: replace the mappings/ and __files/ of a folder that is not empty.")
    var force = false

    @Option(help: "newEpisodes (the default) replays what the file has and records what it lacks; all records everything again.")
    var mode: String = Cassette.RecordMode.newEpisodes.rawValue

    @Option(help: ArgumentHelp("How old the cassette may grow before it is recorded again, such as 30d (s, m, h, d, w), kept in the file (_maxAge); an older cassette is recorded again from scratch.", valueName: "age"))
    var maxAge: String?

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "The address to bind (loopback only).")
    var host: String = "127.0.0.1"

    @Flag(help: "Do not print a line per request.")
    var quiet = false

    @Option(name: .customLong("grpc"), help: ArgumentHelp("A descriptor set (protoc --descriptor_set_out=FILE --include_imports): gRPC calls to its methods are recorded with their messages as JSON both ways and their status among the answer's fields (replay them with `airlock serve CASSETTE --grpc FILE`); repeat for more. Without it a call's messages are kept as their bytes.", valueName: "file"), completion: .file(extensions: ["pb", "dsc", "desc"]))
    var grpc: [String] = []

    @OptionGroup var tlsOptions: TLSOptions

    @OptionGroup var connectionOptions: ConnectionOptions

    @OptionGroup(title: "Redaction") var redactionOptions: RedactionOptions

    @OptionGroup var parentOptions: ParentOptions

    func validate() throws {
        try validateMaxAge(maxAge)
    }

    func run() async throws {
        parentOptions.watchParent()
        try redactionOptions.requireVariables()
        guard let recordMode = Cassette.RecordMode.allCases.first(where: { $0.rawValue.lowercased() == mode.lowercased() }),
            recordMode == .newEpisodes || recordMode == .all
        else {
            throw ValidationError("--mode is \"\(mode)\"; use newEpisodes or all.")
        }
        var upstream: URL?
        if let target {
            guard let url = URL(string: target), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
                url.query == nil
            else {
                throw ValidationError("--target is \"\(target)\"; give an origin such as https://api.example.com (a path prefix is allowed, no query).")
            }
            upstream = url
        }
        let writesMappings = try checkFormat()
        // WireMock's folder is written once the command stops; until then the exchanges go to a
        // HAR file of their own, kept if the folder cannot be written.
        let file = writesMappings
            ? FileManager.default.temporaryDirectory.appendingPathComponent("airlock-record-\(UUID().uuidString).har")
            : URL(fileURLWithPath: cassette)
        let cassette = try openCassette(
            file,
            mode: recordMode,
            matching: Cassette.Matching(),
            redaction: redactionOptions.redaction,
            maxAge: maxAge.flatMap(MaxAge.init),
            recordCommand: "airlock record --cassette \(self.cassette) --mode all"
        )
        var printExchange: (@Sendable (MockServer.Exchange) -> Void)?
        if !quiet {
            printExchange = { exchange in printStatus(exchange.description) }
        }
        let group = connectionOptions.makeEventLoopGroup()
        var configuration = MockServer.Configuration(
            host: host,
            port: port,
            exchangeHandler: printExchange,
            eventLoopGroup: group,
            upstream: upstream,
            tls: tlsOptions.configuration,
            limits: connectionOptions.limits
        )
        configuration.upstreamTrustedCertificates = tlsOptions.upstreamTrustedCertificates
        let server = MockServer(cassette: cassette, configuration: configuration)
        // The cassette gets every exchange; the journal need not keep them all.
        server.journalCapacity = .server
        for descriptorSet in grpc {
            do {
                server.serveGRPC(try GRPCServices(descriptorSetAt: URL(fileURLWithPath: descriptorSet)))
            } catch {
                printError("airlock: \(error)")
                throw ExitCode.badInput
            }
        }
        try await startServer(server)
        let page = String(server.inspectorURL.absoluteString.dropFirst(server.baseURL.absoluteString.count))
        if let upstream {
            // The page as a path after the base URL: the one full URL of the server in the line
            // stays the one to call (scripts read it from the banner).
            printStatus("Airlock recording \(upstream.absoluteString) into \(self.cassette): call \(server.baseURL.absoluteString) instead (traffic page: \(page)) — Ctrl-C to stop.")
        } else {
            printStatus("Airlock recording into \(self.cassette) as an HTTP proxy at \(server.baseURL.absoluteString) (traffic page: \(page)) — Ctrl-C to stop.")
        }
        tlsOptions.announce(server)
        await waitForInterrupt()
        try await server.shutdown()
        try await connectionOptions.shutDown(group)
        do {
            try cassette.save()
        } catch {
            printError("airlock: \(error.description)")
            throw ExitCode.unavailable
        }
        if writesMappings {
            try writeMappings(from: cassette)
            return
        }
        printStatus("Airlock recorded \(cassette.recordedEntries.count) exchange(s); \(self.cassette) holds \(cassette.entries.count).")
    }

    /// Whether `--format` asks for WireMock's folder; checks that the folder can take it.
    private func checkFormat() throws -> Bool {
        switch format.lowercased() {
        case "har":
            guard !force else { throw ValidationError("--force applies to --format wiremock only; a HAR cassette is extended, or recorded again with --mode all.") }
            return false
        case "wiremock":
            if !force {
                do {
                    try WireMockSnapshot.prepare(URL(fileURLWithPath: cassette), replacingContents: false)
                } catch {
                    printError("airlock: \(error.description)")
                    throw ExitCode.cannotCreate
                }
            }
            return true
        default:
            throw ValidationError("--format is \"\(format)\"; use har or wiremock.")
        }
    }

    /// Writes the recorded exchanges as WireMock's folder, and removes the interim HAR file.
    private func writeMappings(from recorded: Cassette) throws {
        let snapshot = WireMockSnapshot(HTTPArchive(entries: recorded.entries), redaction: redactionOptions.redaction)
        do {
            try writeSnapshot(snapshot, to: cassette, force: force)
        } catch {
            if FileManager.default.fileExists(atPath: recorded.url.path) {
                printError("airlock: the recording is kept in \(recorded.url.path); write it later with: airlock cassette wiremock \(recorded.url.path) DIR")
            }
            throw error
        }
        try? FileManager.default.removeItem(at: recorded.url)
        printStatus("Airlock recorded \(recorded.recordedEntries.count) exchange(s) as \(snapshot.mappingCount) WireMock mapping(s) in \(cassette).")
    }
}

/// `airlock redact cassette.har`
struct Redact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Redact the secrets in a HAR file, in place.",
        discussion: """
            Applies Airlock's standard redaction (credential headers and cookies, token query items \
            in URLs and URL-valued headers, secret request body fields, credential response fields) \
            changed by the options, and rewrites the file in Airlock's cassette form: fields Airlock \
            does not replay (cookie lists, timings, pages) are dropped, since they may carry secrets too.
            """
    )

    @Argument(help: "The HAR file.", completion: .file(extensions: ["har"]))
    var file: String

    @OptionGroup(title: "Redaction") var redactionOptions: RedactionOptions

    func run() async throws {
        try redactionOptions.requireVariables()
        let url = URL(fileURLWithPath: file)
        let archive = try readArchive(url)
        do {
            try archive.data(redaction: redactionOptions.redaction).write(to: url, options: .atomic)
        } catch {
            printError("airlock: \(file): cannot be written (\(error.localizedDescription))")
            throw ExitCode.unavailable
        }
        printStatus("Redacted \(archive.entries.count) entr\(archive.entries.count == 1 ? "y" : "ies") in \(file).")
    }
}

/// `airlock cassette check cassette.har`
struct CassetteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cassette",
        abstract: "Work with HAR cassettes.",
        subcommands: [Check.self, Verify.self, WireMock.self]
    )

    /// `airlock cassette wiremock FILE DIR`
    struct WireMock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wiremock",
            abstract: "Write a HAR cassette as a WireMock folder: mappings/ and __files/, in WireMock's snapshot shape.",
            discussion: """
                Each exchange becomes mappings/<name>-<id>.json; bodies too long or not text to write \
                inline go to __files/ byte for byte. Repeated requests become a scenario that answers in \
                recorded order. Serve the folder with `airlock serve --wiremock DIR`, load it with \
                WireMockMappings(directory:), or give it to WireMock as its --root-dir. The standard \
                redaction rules apply again (changed with the options below) for HAR files from elsewhere.
                """
        )

        @Argument(help: "The HAR file.", completion: .file(extensions: ["har"]))
        var file: String

        @Argument(help: "The folder to write (WireMock's --root-dir); made if it does not exist.", completion: .directory)
        var directory: String

        @Flag(help: "Replace the mappings/ and __files/ of a folder that is not empty.")
        var force = false

        @OptionGroup(title: "Redaction") var redactionOptions: RedactionOptions

        func run() async throws {
            try redactionOptions.requireVariables()
            let archive = try readArchive(URL(fileURLWithPath: file))
            let snapshot = WireMockSnapshot(archive, redaction: redactionOptions.redaction)
            try writeSnapshot(snapshot, to: directory, force: force)
            printStatus("Wrote \(snapshot.mappingCount) mapping(s) from \(file) to \(directory) (\(snapshot.files.count) file(s)).")
        }
    }

    /// `airlock cassette check FILE`
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that a HAR file can be replayed, and list its entries.",
            discussion: "Exits with 65 and says where when the file is not valid HAR or an entry cannot become a stub."
        )

        @Argument(help: "The HAR file.", completion: .file(extensions: ["har"]))
        var file: String

        func run() async throws {
            let archive = try readArchive(URL(fileURLWithPath: file))
            let server = MockServer()
            let rejected = server.registerStubs(archive)
            printStatus("\(file): HAR 1.2, \(archive.entries.count) replayable entr\(archive.entries.count == 1 ? "y" : "ies")")
            let redaction = Redaction.standard
            for (index, entry) in archive.entries.enumerated() {
                let response = entry.response
                let status = response?.status.map(String.init) ?? "?"
                let bodies = "request \(entry.body?.count ?? 0) B, response \(response?.bodySize ?? 0) B"
                printStatus("  \(index + 1). \(entry.method) \(redaction.url(entry.url)) → \(status) (\(bodies))")
            }
            for note in archive.skipped {
                printStatus("  skipped \(note)")
            }
            guard rejected.isEmpty else {
                for error in rejected {
                    printError("airlock: \(file): \(error.description)")
                }
                throw ExitCode.badInput
            }
        }
    }
}

/// Writes WireMock's folder for a command, turning errors into a message and exit code 73.
func writeSnapshot(_ snapshot: WireMockSnapshot, to directory: String, force: Bool) throws {
    do {
        try snapshot.write(to: URL(fileURLWithPath: directory), replacingContents: force)
    } catch {
        printError("airlock: \(error.description)")
        throw ExitCode.cannotCreate
    }
}

/// Reads a HAR file for a command, turning errors into a message and exit code 65.
func readArchive(_ url: URL) throws -> HTTPArchive {
    do {
        return try HTTPArchive(contentsOf: url)
    } catch {
        printError("airlock: \(error.description)")
        throw ExitCode.badInput
    }
}
