import AirlockBase
import AirlockOpenAPICore
import ArgumentParser
import Foundation
import MockServer

extension CassetteCommand {
    /// `airlock cassette verify CASSETTE --against BASE_URL`
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a cassette's recorded requests to the live service and report what drifted.",
            discussion: """
                Each recorded request goes to BASE_URL (its path and query kept, the scheme, host and \
                port replaced), one at a time in the file's order, its header fields in order and its body \
                byte for byte. For each entry the report says what differs from the recording: the status, \
                the media type, header names added or removed, and the shape of a JSON body (members, value \
                types, the shape of array elements) or of a stream of server-sent events (the number of \
                events, their names, the shape of their data). Values are compared only under \
                --compare-values; --ignore and --ignore-header leave volatile parts out. Paths are JSON \
                paths: $.id, $.items[*].price, $['odd key'], $..updatedAt (any depth); each covers what \
                is under it, and for a stream applies to each event's data. \
                Placeholders are filled before anything is sent: <NAME> from the environment variable \
                NAME, and any placeholder from the variable --placeholder PLACEHOLDER=VARIABLE names \
                (as `airlock record` takes it). An entry whose placeholder has no value, or whose request \
                holds [REDACTED], is not sent and is reported as not verified, naming the variable. \
                With --openapi, every recorded and every live exchange is also checked against the \
                contract. With --update, the entries that drifted are recorded again from the live answers, \
                redacted as `airlock record` redacts (the redaction options below), and every other byte \
                of the file is kept; when every entry was verified, the file is also marked verified now \
                (log._verifiedAt), from which its maximum age counts: this refreshes an expired cassette \
                that still agrees. \
                Exit status: 0 when every entry agrees, 1 when an entry drifted (also after --update), \
                2 when nothing drifted but an entry could not be verified, or the command could not run \
                (a bad option, an unreadable cassette).
                """
        )

        @Argument(help: "The HAR cassette.", completion: .file(extensions: ["har"]))
        var cassette: String

        @Option(name: .customLong("against"), help: ArgumentHelp("The live service's origin, such as https://staging.example.com (a path prefix is allowed).", valueName: "base-url"))
        var baseURL: String

        @Option(name: .customLong("ignore"), help: ArgumentHelp("A JSON path never compared, such as '$.id' or '$..updatedAt' (repeatable).", valueName: "path"))
        var ignoredFields: [String] = []

        @Option(name: .customLong("ignore-header"), help: ArgumentHelp("A header whose presence is not compared, such as Date (repeatable).", valueName: "name"))
        var ignoredHeaders: [String] = []

        @Option(name: .customLong("compare-values"), help: ArgumentHelp("A JSON path whose values are compared too, not only their types; '$' compares every value (repeatable).", valueName: "path"))
        var comparedValues: [String] = []

        @Option(help: "An OpenAPI 3.0 or 3.1 document (YAML or JSON): check every recorded and every live exchange against it too.", completion: .file(extensions: ["yaml", "yml", "json"]))
        var openapi: String?

        @Flag(help: "Replace the entries that drifted with the live answers, redacted as `airlock record` redacts, and mark the file verified now when every entry was (its maximum age counts from then); every other byte of the file is kept.")
        var update = false

        @Flag(help: "Print the report as JSON (for CI) instead of a table.")
        var json = false

        @Option(help: "Seconds each answer may take: a slower entry is reported as not verified, and a stream still open then is compared as far as it came.")
        var timeout: Double = 60

        @OptionGroup var upstreamTrust: UpstreamTrustOptions

        @OptionGroup(title: "Redaction") var redactionOptions: RedactionOptions

        /// The exit status when an entry drifted.
        static let drifted = ExitCode(1)
        /// The exit status when nothing drifted but an entry could not be verified, or the
        /// command could not run.
        static let notVerified = ExitCode(2)

        func validate() throws {
            guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil, url.query == nil else {
                throw ValidationError("--against is \"\(baseURL)\"; give an origin such as https://staging.example.com (a path prefix is allowed, no query).")
            }
            do {
                try options(contract: nil).validate()
            } catch {
                throw ValidationError("\(error.problem). \(error.fix)")
            }
            guard timeout.isFinite, timeout > 0 else {
                throw ValidationError("--timeout is \(timeout); give the seconds each answer may take, above 0.")
            }
        }

        func run() async throws {
            var contract: OpenAPIContract?
            if let openapi {
                do {
                    contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: openapi))
                } catch {
                    printError("airlock: \(error.description)")
                    throw Self.notVerified
                }
            }
            let report: DriftReport
            let opened: Cassette
            do {
                opened = try Cassette(verifying: URL(fileURLWithPath: cassette), redaction: redactionOptions.redaction)
                report = try await opened.verify(
                    against: URL(string: baseURL)!, options: options(contract: contract), timeout: timeout, trusting: upstreamTrust.files
                )
            } catch {
                // A CassetteError: the only error the cassette's initializer and verify throw.
                printError("airlock: \(error.description)")
                throw Self.notVerified
            }
            if json {
                Console.standardOutput.write(report.jsonData())
                Console.standardOutput.write("")
            } else {
                printStatus(report.table)
            }
            if update {
                do {
                    let replaced = try opened.replaceDriftedEntries(from: report)
                    if !replaced.isEmpty {
                        printError("airlock: recorded again \(replaced.count) entr\(replaced.count == 1 ? "y" : "ies") of \(cassette) (log.entries \(replaced.map(String.init).joined(separator: ", "))); every other entry is unchanged.")
                    }
                    if report.hasUnverified {
                        printError("airlock: \(cassette) is not marked verified: an entry could not be verified, so its age still counts from before (fix what the report says and run again).")
                    } else {
                        printError("airlock: marked \(cassette) verified at \(Timestamp.string(from: report.startedAt)) (log._verifiedAt): its maximum age counts from then.")
                    }
                } catch {
                    printError("airlock: \(error.description)")
                    throw Self.notVerified
                }
            }
            if report.hasDrift { throw Self.drifted }
            if report.hasUnverified { throw Self.notVerified }
        }

        /// The options the command line describes.
        private func options(contract: OpenAPIContract?) -> DriftOptions {
            var placeholders: [String: String] = [:]
            for (placeholder, variable) in redactionOptions.placeholderPairs { placeholders[placeholder] = variable }
            var options = DriftOptions(ignoredFields: ignoredFields, ignoredHeaders: ignoredHeaders, comparedValues: comparedValues, placeholders: placeholders)
            options.exchangeCheck = contract?.exchangeCheck()
            return options
        }

        /// Runs the command as `airlock cassette verify …`, where a usage error exits with 2 (as
        /// "could not verify"), not ArgumentParser's 64.
        static func main(_ arguments: [String]) async {
            do {
                var command = try Airlock.parseAsRoot(arguments)
                if var asynchronous = command as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try command.run()
                }
            } catch {
                let code = Airlock.exitCode(for: error)
                if code == .validationFailure {
                    printError(Airlock.fullMessage(for: error))
                    Airlock.exit(withError: notVerified)
                }
                Airlock.exit(withError: error)
            }
        }
    }
}
