import Foundation
import HTTPMock
import Testing

/// The redaction table of RequestJournal.md lists exactly the names the code hides by default.
struct RedactionRulesDocumentationTests {
    /// The backticked names in the table row that starts with `label`.
    private func names(inRowStartingWith label: String) throws -> Set<String> {
        let text = try String(contentsOf: Documentation.root.appendingPathComponent("Sources/HTTPMock/Documentation.docc/RequestJournal.md"), encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| \(label)") }, "no row \(label) in RequestJournal.md")
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        let listed = try #require(cells.count >= 2 ? cells[1] : nil)
        // Up to the first sentence that is not the list itself.
        let list = listed.components(separatedBy: ". ").first ?? listed
        var names: Set<String> = []
        var rest = Substring(list)
        while let open = rest.firstIndex(of: "`"), let close = rest[rest.index(after: open)...].firstIndex(of: "`") {
            names.insert(String(rest[rest.index(after: open)..<close]).lowercased())
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    @Test func theResponseFieldsTheArticleListsAreTheDefault() throws {
        #expect(try names(inRowStartingWith: "response body fields") == Redaction.standard.responseFields)
    }

    @Test func theEverydayNamesTheArticleSaysStayAreNotHiddenInResponses() throws {
        for name in ["code", "key", "auth", "sig", "pin", "otp", "token"] {
            #expect(!Redaction.standard.hidesResponseField(name), "\(name)")
        }
    }
}
