import Foundation
import Testing

/// What the README and the DocC articles say about the `airlock` command agrees with the built
/// command's `--help`: every option they mention exists for the command they give it to, every
/// default they state is the one `--help` shows, and the help itself renders cleanly.
struct CommandLineDocumentationTests {
    private func helps() async throws -> [String: CommandHelp] {
        try await AirlockCommand.helps.value
    }

    private func mentions() async throws -> [OptionMention] {
        OptionMentions.all(commands: Set(try await helps().keys.filter { !$0.isEmpty }))
    }

    @Test func theHelpOfEveryCommandIsRead() async throws {
        // Guards the tests below against passing vacuously.
        let helps = try await helps()
        for command in ["", "serve", "record", "redact", "cassette check", "cassette verify", "cassette wiremock", "ca path", "ca export"] {
            #expect(helps[command] != nil, "airlock \(command) --help was not read")
        }
        #expect(helps["serve"]?.options["--port"]?.defaultValue == "8080")
        #expect(helps["serve"]?.options["--quiet"]?.takesValue == false)
        let mentions = try await mentions()
        #expect(mentions.count > 60)
        #expect(mentions.contains { $0.file.hasSuffix("TheAirlockCommand.md") && $0.flag == "--repeat-last" })
        #expect(mentions.filter { $0.documentedDefault != nil }.count >= 7)
    }

    @Test func everyDocumentedOptionExistsForItsCommand() async throws {
        let helps = try await helps()
        for mention in try await mentions() {
            let having = mention.commands.filter { helps[$0]?.options[mention.flag] != nil }
            if mention.belongsToEach {
                for command in mention.commands where !having.contains(command) {
                    Issue.record(
                        """
                        \(mention.file):\(mention.line): the text gives \(mention.flag) to `airlock \(command)`, \
                        but `airlock \(command) --help` has no such option. Options there: \
                        \(helps[command]?.options.keys.sorted().joined(separator: " ") ?? "none"). \
                        Fix the text, or add the option.
                        """
                    )
                }
            } else if having.isEmpty {
                Issue.record(
                    """
                    \(mention.file):\(mention.line): \(mention.flag) is not an option of any command this part \
                    of the text names (\(mention.commands.map { "`airlock \($0)`" }.joined(separator: ", "))). \
                    Fix the text, or name the command the option belongs to (or the program, such as curl's).
                    """
                )
            }
        }
    }

    @Test func everyDocumentedDefaultIsTheOneHelpShows() async throws {
        let helps = try await helps()
        for mention in try await mentions() {
            guard let documented = mention.documentedDefault else { continue }
            guard let option = mention.commands.lazy.compactMap({ helps[$0]?.options[mention.flag] }).first else {
                continue  // everyDocumentedOptionExistsForItsCommand reports it
            }
            let problem = Self.disagreement(documented: documented, option: option)
            if let problem {
                Issue.record("\(mention.file):\(mention.line): \(mention.flag): the table's default is \"\(documented)\", but \(problem)")
            }
        }
    }

    /// Why a documented default disagrees with an option's help, or `nil`.
    static func disagreement(documented: String, option: CommandHelp.Option) -> String? {
        let shown = option.defaultValue
        if let number = Double(documented.replacingOccurrences(of: ",", with: "")) {
            guard let shown, let shownNumber = Double(shown) else {
                return "--help shows no default for it: \(option.text)"
            }
            return shownNumber == number ? nil : "--help shows (default: \(shown))"
        }
        if documented.lowercased() == "off" {
            // A flag is off unless given.
            return option.takesValue || shown != nil ? "it is not a flag that is off by default: \(option.text)" : nil
        }
        // Words: the help says it ("Defaults to one per core.").
        return option.text.lowercased().contains(documented.lowercased()) ? nil : "--help does not say so: \(option.text)"
    }

    @Test func helpTextHasNoStrayEscapes() async throws {
        for (command, help) in try await helps() {
            let lines = help.text.split(separator: "\n")
            for line in lines where line.contains(#/\\[A-Za-z"'`]/#) {
                Issue.record("`airlock \(command) --help` shows a stray escape: \(line)")
            }
        }
    }

    @Test func theFilesHelpPointsAtExist() async throws {
        for (command, help) in try await helps() {
            let flat = Documentation.normalized(help.text)
            for match in flat.matches(of: #/Sources/[A-Za-z0-9_./-]+\.md/#) {
                let path = String(match.output)
                #expect(
                    FileManager.default.fileExists(atPath: Documentation.root.appendingPathComponent(path).path),
                    "`airlock \(command) --help` points at \(path), which does not exist"
                )
            }
        }
    }
}
