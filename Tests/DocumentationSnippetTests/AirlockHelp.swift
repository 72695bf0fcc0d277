import Foundation
import ProcessSupport
import Testing

/// The built `airlock` executable, run as a child process, and the `--help` of each of its
/// commands as the user sees it.
enum AirlockCommand {
    /// `airlock`, next to the test binary or in this package's build folder; `nil` before
    /// `swift build` has made it.
    static let executable: String? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Documentation.root.appendingPathComponent(".build/debug"),
        ]
        return candidates.map { $0.appendingPathComponent("airlock").path }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `airlock` with `arguments` to its end; returns its exit status and its standard output
    /// and standard error, interleaved as written.
    static func run(
        _ arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil
    ) async throws -> (status: Int32, output: String) {
        let path = try #require(executable, "build the airlock executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = nil
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Reading to the end returns when the child closes its output; a command that should
        // have exited but did not (a server that started) is stopped by the hang guard.
        let reader = output.fileHandleForReading
        let data: Data
        do {
            data = try await withTimeout("airlock \(arguments.joined(separator: " "))") { reader.readDataToEndOfFile() }
        } catch {
            process.stop()
            throw error
        }
        return (await process.exitStatus(), String(decoding: data, as: UTF8.self))
    }

    /// Every command's help, keyed by its path (`""` for `airlock` itself, `"serve"`,
    /// `"cassette check"`), read once per test run from `airlock <path> --help`.
    static let helps = Task<[String: CommandHelp], any Error> {
        var helps: [String: CommandHelp] = [:]
        var pending = [""]
        while let path = pending.popLast() {
            let words = path.split(separator: " ").map(String.init)
            let (status, text) = try await run(words + ["--help"])
            guard status == 0 else {
                throw HelpError(description: "airlock \(path) --help exited with \(status):\n\(text)")
            }
            let help = CommandHelp(text)
            helps[path] = help
            pending += help.subcommands.map { path.isEmpty ? $0 : "\(path) \($0)" }
        }
        return helps
    }

    struct HelpError: Error, CustomStringConvertible {
        let description: String
    }
}

/// One command's `--help`, as swift-argument-parser prints it.
struct CommandHelp: Sendable {
    /// One entry of an options section: `--port <port>   The port to listen on; … (default: 8080)`.
    struct Option: Sendable {
        /// Its names, such as `["-h", "--help"]`.
        let names: [String]
        /// Whether it takes a value (`--port <port>`), as opposed to a flag (`--quiet`).
        let takesValue: Bool
        /// The entry's text, on one line.
        let text: String
        /// What `(default: …)` says, if anything.
        var defaultValue: String? {
            guard let start = text.range(of: "(default: ", options: .backwards) else { return nil }
            return String(text[start.upperBound...].prefix { $0 != ")" })
        }
    }

    let text: String
    /// The options, by each of their long names (`--port`).
    let options: [String: Option]
    /// The names of the subcommands it lists.
    let subcommands: [String]

    init(_ text: String) {
        self.text = text
        var options: [String: Option] = [:]
        var subcommands: [String] = []
        var section = ""
        var entry: (names: [String], takesValue: Bool, text: String, indentation: Int)?
        func finish() {
            if let done = entry {
                let option = Option(names: done.names, takesValue: done.takesValue, text: Documentation.normalized(done.text))
                for name in done.names where name.hasPrefix("--") { options[name] = option }
            }
            entry = nil
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let indentation = line.prefix { $0 == " " }.count
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if indentation == 0, trimmed.hasSuffix(":"), !trimmed.isEmpty {
                finish()
                section = String(trimmed.dropLast())
                continue
            }
            if trimmed.isEmpty {
                finish()
                continue
            }
            if section == "SUBCOMMANDS", indentation <= 4 {
                // `  serve   Serve the stubs …`, not `  See 'airlock help <subcommand>' …`.
                if let match = line.firstMatch(of: #/^  ([a-z][a-z0-9-]*)(?:\s{2,}|\s*$)/#) {
                    subcommands.append(String(match.output.1))
                }
                continue
            }
            if section != "USAGE", section != "OVERVIEW", indentation <= 4, trimmed.hasPrefix("-") {
                finish()
                // `-h, --help   Show help information.` / `--port <port>   The port …`
                let head = trimmed.components(separatedBy: "  ").first ?? trimmed
                let names = head.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "/" })
                    .map(String.init).filter { $0.hasPrefix("-") }
                entry = (names, head.contains("<"), trimmed, indentation)
                continue
            }
            if var current = entry, indentation > current.indentation {
                current.text += " " + trimmed
                entry = current
            } else {
                finish()
            }
        }
        finish()
        self.options = options
        self.subcommands = subcommands
    }
}
