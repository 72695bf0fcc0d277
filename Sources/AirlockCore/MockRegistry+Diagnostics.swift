import Foundation

extension MockRegistry.State {
    /// The message for a request no stub answered: its signature, a paste-ready stub, and the
    /// nearest registered stubs with what differed for each.
    func unmatchedMessage(for request: RecordedRequest) -> String {
        let shown = redaction.apply(to: request)
        var lines = ["HTTPMock: no mock for \(shown.method) \(shown.url)"]
        for header in shown.headers {
            lines.append("  \(header.name): \(header.value)")
        }
        if let body = shown.body, !body.isEmpty {
            lines.append("  body (\(request.body?.count ?? 0) bytes): \(RequestMatcher.preview(body))")
        }
        lines.append("")
        lines.append("To stub it, register:")
        lines.append(contentsOf: snippet(for: shown).map { "    " + $0 })

        let nearest = nearestStubs(to: request, limit: 3)
        if !nearest.isEmpty {
            lines.append("")
            lines.append("Nearest registered stubs:")
            for (index, candidate) in nearest.enumerated() {
                lines.append("  \(index + 1). \(candidate.stub)")
                lines.append("     " + candidate.verdicts.joined(separator: "  "))
            }
        }
        if !registrationErrors.isEmpty {
            lines.append("")
            lines.append("Note: \(registrationErrors.count) stub(s) were rejected when registered:")
            lines.append(contentsOf: registrationErrors.suffix(5).map { "  - \($0.description)" })
        }
        return lines.joined(separator: "\n")
    }

    /// A DSL registration that would answer exactly this request.
    private func snippet(for request: RecordedRequest) -> [String] {
        var query: [String: [String]] = [:]
        for item in request.queryItems { query[item.name, default: []].append(item.value ?? "") }
        var path = "Path(\(Self.literal(request.path))"
        if !query.isEmpty {
            let items = query.keys.sorted().map { name in
                let values = query[name, default: []]
                let value = values.count == 1 ? Self.literal(values[0]) : "[" + values.map(Self.literal).joined(separator: ", ") + "]"
                return "\(Self.literal(name)): \(value)"
            }
            path += ", query: [\(items.joined(separator: ", "))]"
        }
        if request.method != "GET" {
            path += ", requiring: .method(\(Self.literal(request.method)))"
        }
        path += ")"
        return [
            "mock.registerResponses {",
            "    Host(\(Self.literal(request.host))) {",
            "        \(path) {",
            "            MockResponse.plaintext(\"…\")",
            "        }",
            "    }",
            "}",
        ]
    }

    private static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Up to `limit` stubs that came closest, with a verdict per part: `host ✓`,
    /// `path ✗ /users/* vs /user/1`, `query missing page`, `method GET vs POST`, `used up`.
    private func nearestStubs(to request: RecordedRequest, limit: Int) -> [(stub: String, verdicts: [String])] {
        var query: [String: [String]] = [:]
        for item in request.queryItems { query[item.name, default: []].append(item.value ?? "") }
        query = query.mapValues { $0.sorted() }

        var scored: [(misses: Int, similarity: Int, order: Int, stub: String, verdicts: [String])] = []
        // Diagnostics run only for unmatched requests; a bounded scan keeps them quick.
        for (order, route) in routes.prefix(20_000).enumerated() where !route.cleared {
            var verdicts: [String] = []
            var misses = 0
            if let host = try? HostPattern(route.key.host), host.matches(request.host) {
                verdicts.append("host ✓")
            } else {
                verdicts.append("host ✗ \(route.key.host) vs \(request.host)")
                misses += 2
            }
            if let path = try? PathPattern(route.key.path), path.matches(request.path) {
                verdicts.append("path ✓")
            } else {
                verdicts.append("path ✗ \(route.key.path) vs \(request.path)")
                misses += 1
            }
            if let constraint = route.key.query {
                let differences = constraint.differences(from: query)
                verdicts.append(differences.isEmpty ? "query ✓" : differences.joined(separator: ", "))
                misses += differences.isEmpty ? 0 : 1
            }
            if let requirement = route.requirement {
                if requirement.matches(request) {
                    verdicts.append("requirement ✓")
                } else {
                    // Decide on the real request; show what differs on the redacted one.
                    let shown = requirement.mismatches(redaction.apply(to: request))
                    verdicts.append(shown.isEmpty ? "requirement ✗ \(requirement.description)" : shown.joined(separator: ", "))
                    misses += 1
                }
            }
            if route.queue.isEmpty {
                verdicts.append("used up (served \(route.served))")
                misses += 1
            }
            let similarity = Self.commonPrefix(route.key.path, request.path)
            scored.append((misses, similarity, order, route.stub.description, verdicts))
        }
        scored.sort { ($0.misses, -$0.similarity, $0.order) < ($1.misses, -$1.similarity, $1.order) }
        return scored.prefix(limit).map { ($0.stub, $0.verdicts) }
    }

    private static func commonPrefix(_ lhs: String, _ rhs: String) -> Int {
        zip(lhs.utf8, rhs.utf8).prefix { $0 == $1 }.count
    }
}
