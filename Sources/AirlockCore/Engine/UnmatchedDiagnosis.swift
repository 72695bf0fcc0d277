import AirlockBase
import Foundation

/// Why no stub answered a request, decided once by the core and rendered in the language of the
/// transport's users: a paste-ready Swift DSL registration for `HTTPMock`, a paste-ready JSON stub
/// for `airlock serve` and the admin API.
package struct UnmatchedDiagnosis: Sendable {
    /// How the stub that would answer the request is written out.
    package enum SnippetStyle: Sendable {
        /// `mock.registerResponses { Host(…) { Path(…) { … } } }`.
        case swift
        /// A stub-file entry: `{ "host": …, "path": …, "responses": [ … ] }`.
        case json
    }

    /// A registered stub that came close, with a verdict per part.
    package struct NearMiss: Sendable {
        /// The stub's description, values marked for the output pass.
        package let stub: String
        /// A verdict per part (`host ✓`, `path ✗ …`), values marked for the output pass.
        package let verdicts: [String]
        /// The id a format gave the stub (a WireMock mapping's), if it has one.
        package var stubID: UUID? = nil
        /// How far the request is from the stub: 0 when the stub would answer it, nearer 1 the
        /// more differs; in the order of the ranking.
        package var distance: Double = 1
    }

    /// The request, redacted.
    package let request: RecordedRequest
    /// The size of the request's real body.
    package let bodySize: Int
    /// The closest stubs, best first.
    package let nearest: [NearMiss]
    /// How many stubs were rejected when registered.
    package let rejectedCount: Int
    /// The last few rejected stubs, described.
    package let rejected: [String]
    /// What else to say, such as how to record the request into the mock's cassette.
    package var hint: String? = nil
    /// The output pass every rendering goes through.
    package var redaction: Redaction = .standard
    /// The request's own secret values, removed wherever they appear in the message.
    package var secrets: [String] = []

    /// The message: the request's signature, the stub that would answer it, the nearest stubs —
    /// through the mock's redaction. `showingStubs: false` leaves the stubs out, for a server
    /// whose admin API is protected by a token: its stubs are not for anyone who can send a request.
    package func render(_ style: SnippetStyle, showingStubs: Bool = true) -> String {
        var lines = ["Airlock: no stub for \(request.method) \(request.url)"]
        for header in request.headers {
            lines.append("  \(header.name): \(header.value)")
        }
        if let body = request.body, !body.isEmpty {
            lines.append("  body (\(bodySize) bytes): \(RequestMatcher.preview(body))")
        }
        lines.append("")
        switch style {
        case .swift:
            lines.append("To stub it, register:")
            lines.append(contentsOf: swiftSnippet.map { "    " + $0 })
        case .json:
            lines.append("To stub it, add to the stub file's \"stubs\" (or POST to /__admin/stubs):")
            lines.append(contentsOf: jsonSnippet.map { "    " + $0 })
        }
        if !showingStubs {
            lines.append("")
            lines.append("(The nearest stubs are not shown: this server's admin API needs a token. Ask GET /__admin/requests/unmatched with it.)")
        } else if !nearest.isEmpty {
            lines.append("")
            lines.append("Nearest registered stubs:")
            for (index, candidate) in nearest.enumerated() {
                lines.append("  \(index + 1). \(candidate.stub)")
                lines.append("     " + candidate.verdicts.joined(separator: "  "))
            }
        }
        if rejectedCount > 0, showingStubs {
            lines.append("")
            lines.append("Note: \(rejectedCount) stub(s) were rejected when registered:")
            lines.append(contentsOf: rejected.map { "  - \($0)" })
        }
        if let hint {
            lines.append("")
            lines.append(hint)
        }
        return redaction.text(lines.joined(separator: "\n"), secrets: secrets)
    }

    /// The request's query, one `name: value` (or `name: [values]`) entry per name, names sorted,
    /// with names and values written by `literal`.
    private func queryEntries(_ literal: (String) -> String) -> [String] {
        let query = QueryConstraint.lists(request.queryItems.lazy.map { (name: $0.name, value: $0.value) }, sorted: false)
        return query.keys.sorted().map { name in
            let values = query[name, default: []]
            let value = values.count == 1 ? literal(values[0]) : "[" + values.map(literal).joined(separator: ", ") + "]"
            return "\(literal(name)): \(value)"
        }
    }

    /// A DSL registration that would answer exactly this request.
    private var swiftSnippet: [String] {
        RegistrationSnippet.lines(for: request, response: nil)
    }

    /// A stub-file entry that would answer exactly this request.
    private var jsonSnippet: [String] {
        var fields = [
            "\"host\": \(Self.jsonLiteral(request.host))",
            "\"path\": \(Self.jsonLiteral(request.path))",
            "\"method\": \(Self.jsonLiteral(request.method))",
        ]
        let query = queryEntries(Self.jsonLiteral)
        if !query.isEmpty {
            fields.append("\"query\": { \(query.joined(separator: ", ")) }")
        }
        fields.append("\"responses\": [{ \"status\": 200, \"body\": \"…\" }]")
        return ["{"] + fields.enumerated().map { "  " + $0.element + ($0.offset < fields.count - 1 ? "," : "") } + ["}"]
    }

    private static func jsonLiteral(_ text: String) -> String {
        JSONValue.quoted(text)
    }
}

extension MockResponse {
    /// The `.notFound` policy's answer: 404 with the unmatched-request message.
    package static func unmatched(_ message: String) -> MockResponse {
        .plaintext(message + "\n", status: .notFound, headers: ["X-Airlock-Unmatched": "true"])
    }
}
