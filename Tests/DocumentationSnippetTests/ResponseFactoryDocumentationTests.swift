import Foundation
import HTTPMock
import Testing

/// The Responses article's table of factory options gives each factory's labels in the order its
/// signature takes them: the table is compared with ``documented``, and ``everyOption()`` calls
/// each factory with those labels in that order, so a signature that changes fails the build.
struct ResponseFactoryDocumentationTests {
    /// The table as it must read: each row's first cell, and the labels of its second.
    static let documented: [String: [String]] = [
        "encodable(_:…)": ["status:", "lifetime:", "delivery:", "headers:", "jsonEncoder:"],
        "dictionary(_:…), plaintext(_:…), empty(…)": ["status:", "lifetime:", "delivery:", "headers:"],
        "file(named:extension:in:…), file(url:…)": ["status:", "lifetime:", "delivery:", "headers:", "contentType:"],
        "MockResponse(data:…)": ["contentType:", "status:", "lifetime:", "delivery:", "headers:"],
        "redirect(to:…)": ["status:", "headers:", "lifetime:", "delivery:"],
        "error(_:…), fault(_:…)": ["lifetime:", "delivery:"],
        "computed(…)": ["lifetime:", "delivery:"],
    ]

    /// Every factory with every option, in ``documented``'s order. Compiled, never run.
    static func everyOption(bundle: Bundle, url: URL) -> [MockResponse] {
        [
            .encodable(User(id: 1, name: "Alice"), status: .ok, lifetime: .single, delivery: .instant, headers: [:], jsonEncoder: JSONEncoder()),
            .dictionary([:], status: .ok, lifetime: .single, delivery: .instant, headers: [:]),
            .plaintext("", status: .ok, lifetime: .single, delivery: .instant, headers: [:]),
            .empty(status: .ok, lifetime: .single, delivery: .instant, headers: [:]),
            .file(named: "user", extension: "json", in: bundle, status: .ok, lifetime: .single, delivery: .instant, headers: [:], contentType: nil),
            .file(url: url, status: .ok, lifetime: .single, delivery: .instant, headers: [:], contentType: nil),
            MockResponse(data: Data(), contentType: nil, status: .ok, lifetime: .single, delivery: .instant, headers: [:]),
            .redirect(to: "/", status: .found, headers: [:], lifetime: .single, delivery: .instant),
            .error(URLError(.timedOut), lifetime: .single, delivery: .instant),
            .fault(.connectionReset, lifetime: .single, delivery: .instant),
            .computed(lifetime: .single, delivery: .instant) { _ in .empty() },
        ]
    }

    @Test func theFactoryTableGivesEachFactorysOptionsInOrder() throws {
        let file = "Sources/HTTPMock/Documentation.docc/Responses.md"
        let text = try String(contentsOf: Documentation.root.appendingPathComponent(file), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| factory | its options, in order |") }, "\(file) has no factory table")
        var table: [String: [String]] = [:]
        for row in lines[(header + 2)...].prefix(while: { $0.hasPrefix("|") }) {
            let cells = OptionMentions.cells(of: row)
            guard cells.count >= 2 else { continue }
            let labels = cells[1].matches(of: #/`([A-Za-z]+:)`/#).map { String($0.output.1) }
            table[cells[0].replacingOccurrences(of: "`", with: "")] = labels
        }
        #expect(table == Self.documented, "\(file)'s factory table no longer gives the options everyOption() compiles; fix the table (or the signatures, and both lists here)")
    }
}
