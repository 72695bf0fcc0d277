import AirlockBase
import AirlockGRPC
import AirlockOpenAPICore
import ArgumentParser
import Foundation
@_spi(AirlockTransport) import MockServer
import NIOPosix

/// `airlock`: serve mocked HTTP to any client or process.
@main
struct Airlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airlock",
        abstract: "Serve mocked HTTP to any client or process; record real traffic and replay it.",
        version: AirlockVersion.current,
        subcommands: [Serve.self, Record.self, Redact.self, CassetteCommand.self, CertificateAuthorityCommand.self]
    )

    /// Catches SIGINT and SIGTERM before anything else runs (``InterruptSignals``), then runs the
    /// command.
    static func main() async {
        InterruptSignals.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.starts(with: ["cassette", "verify"]) {
            await CassetteCommand.Verify.main(arguments)
            return
        }
        await main(nil)
    }
}

/// `airlock serve stubs.json`
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the stubs of a JSON stub file, or the exchanges of a HAR file, over HTTP on loopback.",
        discussion: """
            Prints the base URL, then one line per request (method, target, status, duration). \
            Stops cleanly on Ctrl-C. The admin API is under /__admin/ (see Sources/MockServer/Documentation.docc/ServingMocksOverASocket.md). \
            A HAR file (a cassette from `airlock record`, or one saved from a browser) is replayed: \
            identical requests get their recorded responses in order, whatever host the client calls \
            (--match-hosts keeps the recorded hosts, for clients that use the server as a proxy). \
            A request the file has no recorded response for gets 502 with Airlock-Error: replay-miss \
            and a text body naming it; --repeat-last keeps answering with a request's last recorded \
            response once the others are used up. A stream recorded with its parts (server-sent \
            events, a chunked body) replays part by part, chunked, with the recorded pauses; \
            --pace instant sends the parts at once, --pace 0.5 twice as fast.
            """
    )

    @Argument(help: "The stub file (JSON), HAR file, or WireMock root folder (one that holds mappings/).", completion: .file(extensions: ["json", "har"]))
    var stubs: String?

    @Option(name: [.customLong("wiremock"), .customLong("root-dir")], help: "A WireMock root folder: serve its mappings/*.json (bodyFileName in __files/) and answer WireMock's admin API for it (--root-dir is WireMock's name).", completion: .directory)
    var wireMock: String?

    @Option(help: "An OpenAPI 3.0 or 3.1 document (YAML or JSON): answer each of its operations with its example or a value built from its schema (Prefer: code=…, example=… chooses), a request that breaks it with 422 and an application/problem+json list of the violations, and print each violation of an exchange on standard error. With a stub, HAR or WireMock source too, that source answers first and the contract checks its answers.", completion: .file(extensions: ["yaml", "yml", "json"]))
    var openapi: String?

    @Option(name: .customLong("grpc"), help: ArgumentHelp("A descriptor set (protoc --descriptor_set_out=FILE --include_imports): answer gRPC calls to its methods (h2c on the plain port, h2 under --tls) from the stubs, their messages written as JSON; repeat for more. A WireMock root folder's grpc/*.dsc and grpc/*.desc files are read too, as WireMock's gRPC extension reads them.", valueName: "file"), completion: .file(extensions: ["pb", "dsc", "desc"]))
    var grpc: [String] = []

    @Option(help: ArgumentHelp("For a WireMock root folder: which WireMock its mappings are written for, where the two read a mapping differently: 2 (WireMock 2.35, the default) inserts what {{…}} renders HTML-escaped; 3 inserts it as it is, and reads an equalToXml without namespaceAwareness as STRICT. Mappings added through the admin API are read the same way.", valueName: "2|3"))
    var wiremockVersion: Int = WireMockVersion.wireMock2.rawValue

    @Flag(help: "For a WireMock root folder: leave out the mappings Airlock cannot serve, saying why for each on standard error, and serve the rest. Without it the first one stops the command.")
    var skipUnsupported = false

    @Flag(help: "For a HAR file: match each entry's recorded host too (proxy mode).")
    var matchHosts = false

    @Flag(help: "For a HAR file: once a request's recorded responses are used up, keep answering it with the last one (VCR's allow_playback_repeats). Without it each recorded response answers once, in order, and one more identical request gets 502 (a replay miss).")
    var repeatLast = false

    @Option(help: ArgumentHelp("For a HAR file: how fast recorded streams (server-sent events, chunked bodies recorded with their parts) replay: as-recorded (the default) keeps the recorded pauses between parts, instant sends every part at once (still one part at a time), a number multiplies each pause (0.5 twice as fast, 2 half as fast).", valueName: "as-recorded|instant|factor"))
    var pace: String = StreamPace.asRecorded.description

    @Option(help: ArgumentHelp("For a HAR file: refuse it once it is older than this, such as 30d (s, m, h, d, w), counted from its oldest entry or from when `airlock cassette verify --update` last confirmed every entry (_verifiedAt); without it, the file's own _maxAge applies, if any.", valueName: "age"))
    var maxAge: String?

    @Option(help: "The folder that file responses added through the admin API must stay in. Defaults to the stub file's folder.")
    var files: String?

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "The address to bind. Anything but loopback needs --allow-remote and --admin-token.")
    var host: String = "127.0.0.1"

    @Flag(help: "Allow binding an address other than loopback.")
    var allowRemote = false

    @Option(help: "A token the admin API then requires (Authorization: Bearer <token>).")
    var adminToken: String?

    @Flag(help: "Do not print a line per request (for load tests).")
    var quiet = false

    @Option(help: "The largest request body accepted, in bytes; larger ones get 413.")
    var maxBodySize: Int = 64 * 1024 * 1024

    @Option(help: "How many requests the journal keeps (the oldest go first; counts stay exact). 0 keeps none.")
    var journalLimit: Int = JournalCapacity.server.entries

    @Option(name: .customLong("webhook-allow"), help: ArgumentHelp("A host webhooks may be sent to besides loopback ones (127.0.0.0/8, ::1, localhost), such as hooks.example.com or *.example.com; repeat for more (none by default). A webhook to any other host is refused and the journal says why.", valueName: "host"))
    var webhookAllow: [String] = []

    @OptionGroup var tlsOptions: TLSOptions

    @OptionGroup var connectionOptions: ConnectionOptions

    @OptionGroup var parentOptions: ParentOptions

    func validate() throws {
        switch (stubs, wireMock) {
        case (nil, nil) where openapi == nil && grpc.isEmpty:
            throw ValidationError("Give a stub file, a HAR file, a WireMock root folder (--wiremock DIR), an OpenAPI document (--openapi FILE) or a gRPC descriptor set (--grpc FILE).")
        case (_?, _?): throw ValidationError("Give either a stub or HAR file or --wiremock DIR, not both.")
        default: break
        }
        guard WireMockVersion(rawValue: wiremockVersion) != nil else {
            throw ValidationError("--wiremock-version is \(wiremockVersion); use 2 (WireMock 2.35) or 3 (WireMock 3).")
        }
        guard StreamPace(pace) != nil else {
            throw ValidationError("--pace is \"\(pace)\"; use as-recorded, instant, or a factor of 0 or more such as 0.5.")
        }
        try validateMaxAge(maxAge)
    }

    func run() async throws {
        parentOptions.watchParent()
        let source = stubs ?? wireMock ?? ""
        let url = URL(fileURLWithPath: source)
        var isFolder: ObjCBool = false
        let wireMockRoot = wireMock != nil || (FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) && isFolder.boolValue) ? url : nil
        var printExchange: (@Sendable (MockServer.Exchange) -> Void)?
        if !quiet {
            printExchange = { exchange in printStatus(exchange.description) }
        }
        // The contract is read first: a document that cannot be used stops the command.
        var contract: OpenAPIContract?
        if let openapi {
            do {
                contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: openapi))
            } catch {
                printError("airlock: \(error.description)")
                throw ExitCode.badInput
            }
        }
        // A WireMock folder is read before the server exists: the server keeps its root.
        var mappings: WireMockMappings?
        if wireMockRoot == nil, skipUnsupported {
            throw ValidationError("--skip-unsupported applies to a WireMock root folder (--wiremock DIR); \(source) is a file.")
        }
        if let root = wireMockRoot {
            // WireMock's XML matchers, before the folder is read.
            WireMockXML.install()
            guard !repeatLast, !matchHosts, StreamPace(pace) == .asRecorded else {
                throw ValidationError("--repeat-last, --match-hosts and --pace apply to a HAR file; \(source) is a WireMock root folder.")
            }
            do {
                mappings = try WireMockMappings(directory: root, skippingUnsupported: skipUnsupported, version: WireMockVersion(rawValue: wiremockVersion) ?? .wireMock2)
            } catch {
                printError("airlock: \(error.description)")
                throw ExitCode.badInput
            }
            for skipped in mappings?.skipped ?? [] {
                printError("airlock: skipped \(skipped.description)")
            }
        }
        let group = connectionOptions.makeEventLoopGroup()
        var configuration = MockServer.Configuration(
            host: host,
            port: port,
            allowsNonLoopbackBinding: allowRemote,
            adminToken: adminToken,
            exchangeHandler: printExchange,
            eventLoopGroup: group,
            maxRequestBodySize: maxBodySize,
            adminFileRoot: files.map { URL(fileURLWithPath: $0) } ?? (mappings?.rootDirectory ?? url.deletingLastPathComponent()),
            tls: tlsOptions.configuration,
            limits: connectionOptions.limits
        )
        configuration.wireMockRoot = mappings?.rootDirectory
        configuration.upstreamTrustedCertificates = tlsOptions.upstreamTrustedCertificates
        configuration.wireMockVersion = WireMockVersion(rawValue: wiremockVersion) ?? .wireMock2
        configuration.shutdownRequestHandler = { InterruptSignals.request() }
        let server = MockServer(configuration: configuration)
        // gRPC's services, before any stub: a descriptor set that cannot be read stops the command.
        for descriptorSet in grpc + Self.grpcDescriptorSets(in: mappings?.rootDirectory) {
            do {
                server.serveGRPC(try GRPCServices(descriptorSetAt: URL(fileURLWithPath: descriptorSet)))
            } catch {
                printError("airlock: \(error)")
                throw ExitCode.badInput
            }
        }
        // A server left running all day must not grow without bound.
        server.journalCapacity = JournalCapacity(entries: journalLimit, bytes: JournalCapacity.server.bytes, bodyBytes: JournalCapacity.server.bodyBytes)
        server.webhookPolicy = WebhookPolicy(allowedHosts: webhookAllow)
        let rejected: [RegistrationError]
        var summary: String
        var replayRule: String?
        if stubs == nil, wireMock == nil {
            rejected = []
            summary = ""
        } else if let mappings {
            rejected = server.registerStubs(mappings)
            summary = "\(mappings.mappingCount) WireMock mapping(s)"
        } else if isHAR(url) {
            let cassette = try openCassette(
                url,
                mode: .none,
                matching: Cassette.Matching(repeatsLastResponse: repeatLast, matchesAnyHost: !matchHosts),
                pace: StreamPace(pace) ?? .asRecorded,
                maxAge: maxAge.flatMap(MaxAge.init),
                recordCommand: "airlock record --target <origin> --cassette \(source) --mode newEpisodes"
            )
            rejected = server.insert(cassette)
            summary = "\(cassette.entries.count) recorded exchange(s)"
            replayRule = Self.replayRule(repeatingLast: repeatLast)
            for note in cassette.replayed.skipped {
                printError("airlock: \(source): skipped \(note)")
            }
        } else {
            guard !repeatLast else {
                throw ValidationError("--repeat-last applies to a HAR file; \(source) is a stub file, where a response keeps answering with \"lifetime\": \"eternal\".")
            }
            guard StreamPace(pace) == .asRecorded else {
                throw ValidationError("--pace applies to a HAR file; \(source) is a stub file, whose streams give each part its own pause.")
            }
            let file: StubFile
            do {
                file = try StubFile(contentsOf: url)
            } catch {
                printError("airlock: \(error.description)")
                throw ExitCode.badInput
            }
            rejected = server.registerStubs(file)
            summary = "\(file.stubCount) stub(s)"
        }
        guard rejected.isEmpty else {
            for error in rejected {
                printError("airlock: \(source): \(error.description)")
            }
            throw ExitCode.badInput
        }
        if let contract, let openapi {
            for error in server.registerStubs(from: contract) {
                printError("airlock: \(openapi): \(error.description)")
                throw ExitCode.badInput
            }
            _ = ContractValidation(contract: contract, journal: server.journal) { violation in
                printError("airlock: contract violation: \(violation.description)")
            }
            let served = "\(contract.operations.count) operation(s) of \(contract.title.isEmpty ? "the contract" : contract.title) from \(openapi)"
            summary = summary.isEmpty ? served : "\(summary) from \(source) and \(served)"
        } else if !source.isEmpty {
            summary += " from \(source)"
        }
        let grpcSets = grpc + Self.grpcDescriptorSets(in: mappings?.rootDirectory)
        if !grpcSets.isEmpty {
            let served = "gRPC calls to the services of \(grpcSets.joined(separator: ", "))"
            summary = summary.isEmpty ? served : "\(summary), and \(served)"
        }
        try await startServer(server)
        printStatus("Airlock serving \(summary) at \(server.baseURL.absoluteString)")
        if let replayRule { printStatus(replayRule) }
        if mappings != nil {
            printStatus("Admin API: \(server.baseURL.absoluteString)/__admin/mappings (WireMock's) and /__admin/stubs; traffic page: \(server.inspectorURL.absoluteString) — Ctrl-C to stop.")
        } else {
            printStatus("Admin API: \(server.baseURL.absoluteString)/__admin/stubs; traffic page: \(server.inspectorURL.absoluteString) — Ctrl-C to stop.")
        }
        tlsOptions.announce(server)
        await waitForInterrupt()
        try await server.shutdown()
        try await connectionOptions.shutDown(group)
        printStatus("Airlock stopped.")
    }
}

extension Serve {
    /// The banner line that says how a HAR file replays.
    /// A WireMock root folder's descriptor sets, as WireMock's gRPC extension finds them: the
    /// `.dsc` and `.desc` files of its `grpc` folder, by name.
    static func grpcDescriptorSets(in root: URL?) -> [String] {
        guard let folder = root?.appendingPathComponent("grpc"),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".dsc") || $0.hasSuffix(".desc") }.sorted().map { folder.appendingPathComponent($0).path }
    }

    static func replayRule(repeatingLast: Bool) -> String {
        if repeatingLast {
            return "Replay: each request's recorded responses in order, then the last one again and again (--repeat-last); an unrecorded request gets 502 (Airlock-Error: replay-miss)."
        }
        return "Replay: each recorded response answers once, in order; one request more gets 502 (Airlock-Error: replay-miss). --repeat-last keeps answering with the last."
    }
}

/// Starts a server, turning its errors into a message and an exit code.
func startServer(_ server: MockServer) async throws {
    do {
        try await server.start()
    } catch let error as MockServerError {
        printError("airlock: \(error.description)")
        switch error.code {
        case .nonLoopbackBindingRefused, .adminTokenRequired, .invalidLimits: throw ExitCode.usage
        case .certificateAuthorityInvalid, .upstreamTrustUnusable: throw ExitCode.badInput
        default: throw ExitCode.unavailable
        }
    }
}

/// Whether a file is a HAR file: its top level is an object with a `log`.
func isHAR(_ url: URL) -> Bool {
    if url.pathExtension.lowercased() == "har" { return true }
    guard let data = try? Data(contentsOf: url), case .object(let members)? = try? JSONValue.parse(data) else { return false }
    return members["log"] != nil
}

/// Opens a cassette for a command: the command's mode is what the user typed, so `AIRLOCK_RECORD`
/// and `CI` (meant for test runs) do not change it.
func openCassette(
    _ url: URL, mode: Cassette.RecordMode, matching: Cassette.Matching, redaction: Redaction = .standard, pace: StreamPace = .asRecorded, maxAge: MaxAge? = nil,
    recordCommand: String
) throws -> Cassette {
    do {
        return try Cassette(contentsOf: url, mode: mode, matching: matching, redaction: redaction, recordCommand: recordCommand, environment: [:], pace: pace, maxAge: maxAge)
    } catch {
        printError("airlock: \(error.description)")
        throw ExitCode.badInput
    }
}

/// Checks a `--max-age` value.
func validateMaxAge(_ text: String?) throws {
    if let text, MaxAge(text) == nil {
        throw ValidationError("--max-age is \"\(text)\"; give a whole number and a unit (s, m, h, d, w), such as 30d.")
    }
}

/// Suspends until SIGINT or SIGTERM arrives (at once when one already has).
func waitForInterrupt() async {
    await InterruptSignals.next()
}

extension ExitCode {
    /// The command was used wrongly (`EX_USAGE`).
    static let usage = ExitCode(64)
    /// The stub file is malformed (`EX_DATAERR`).
    static let badInput = ExitCode(65)
    /// The server could not start: the port is taken, the address cannot be bound (`EX_UNAVAILABLE`).
    static let unavailable = ExitCode(69)
    /// An output file or folder cannot be made (`EX_CANTCREAT`).
    static let cannotCreate = ExitCode(73)
}

/// Writes a line to standard output at once (unbuffered), so that each request's line appears
/// immediately even when the output is a pipe; a closed output does not stop the command.
func printStatus(_ line: String) {
    Console.standardOutput.write(line)
}

/// Writes a line to standard error, as `printStatus` does to standard output.
func printError(_ line: String) {
    Console.standardError.write(line)
}

/// The connection limits of `airlock serve` and `airlock record`.
struct ConnectionOptions: ParsableArguments {
    /// More threads than this only cost memory: each serves many connections.
    static let maximumThreads = 256

    @Option(help: "Seconds from a request's first byte to the end of its head; slower clients get 408.")
    var headerTimeout: Double = MockServer.ConnectionLimits().headerTimeout

    @Option(help: "Seconds a connection may wait for its next request (or a request body pause) before it is closed.")
    var idleTimeout: Double = MockServer.ConnectionLimits().idleTimeout

    @Option(help: "The most connections open at once; at the limit the longest-idle one is closed, or a new client gets 503. Defaults to the open-file limit less 64.")
    var maxConnections: Int?

    @Option(help: "How many threads serve connections (SwiftNIO event loops). Defaults to one per core.")
    var threads: Int?

    /// The threads that serve connections: SwiftNIO's shared group, or one of the size asked for.
    func makeEventLoopGroup() -> MultiThreadedEventLoopGroup {
        threads.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) } ?? .singleton
    }

    /// Stops the threads of a group made for `--threads` (the shared one is never stopped).
    func shutDown(_ group: MultiThreadedEventLoopGroup) async throws {
        if threads != nil { try await group.shutdownGracefully() }
    }

    /// The server's limits.
    var limits: MockServer.ConnectionLimits {
        var limits = MockServer.ConnectionLimits(headerTimeout: headerTimeout, idleTimeout: idleTimeout)
        if let maxConnections { limits.maxConnections = maxConnections }
        return limits
    }

    func validate() throws {
        if let problem = limits.problem {
            throw ValidationError("\(problem.text). Give timeouts above 0 and at most \(Int(ResponseLimits.maximumSeconds)) seconds and --max-connections of at least 1.")
        }
        if let threads, !(1...Self.maximumThreads).contains(threads) {
            throw ValidationError("--threads \(threads) is out of range: give 1 to \(Self.maximumThreads) (the default is one per core).")
        }
    }
}
