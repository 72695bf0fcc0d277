import Foundation
import Testing

/// What the Recording article says about `airlock cassette verify`'s exit status is what the
/// command's `--help` says (and MockServerTests' `CassetteVerifyTests` checks what it does).
struct DriftExitStatusDocumentationTests {
    @Test func theArticlesExitStatusesAreTheHelps() async throws {
        let help = try #require(try await AirlockCommand.helps.value["cassette verify"], "airlock cassette verify --help was not read")
        let flatHelp = Documentation.normalized(help.text)
        let article = try String(contentsOf: Documentation.root.appendingPathComponent("Sources/HTTPMock/Documentation.docc/Recording.md"), encoding: .utf8)
        let section = try #require(article.components(separatedBy: "## Keeping recordings true").dropFirst().first, "the article has no \"Keeping recordings true\" section")
        // `- `0`: every entry agrees` lines.
        var documented: [Int: String] = [:]
        for line in section.components(separatedBy: "\n") {
            guard let match = line.wholeMatch(of: #/- `(\d)`: (.+)/#), let code = Int(match.1) else { continue }
            documented[code] = String(match.2)
        }
        #expect(documented.keys.sorted() == [0, 1, 2], "\(documented)")
        for (code, meaning) in documented {
            // The help: "Exit status: 0 when every entry agrees, 1 when an entry drifted …".
            #expect(flatHelp.contains("\(code) when \(Documentation.normalized(meaning.replacingOccurrences(of: "`", with: "")))"), "the article says exit status \(code) means \"\(meaning)\"; --help says: \(flatHelp)")
        }
    }
}
