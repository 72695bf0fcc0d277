import Foundation

extension MockRegistry.State {
    /// What can be said about a request no stub answered: the request as shown (redacted), the
    /// nearest registered stubs with what differed for each, and the stubs rejected earlier.
    func diagnosis(for request: RecordedRequest, redaction: Redaction) -> UnmatchedDiagnosis {
        UnmatchedDiagnosis(
            request: redaction.apply(to: request),
            bodySize: request.body?.count ?? 0,
            nearest: nearestStubs(to: request, redaction: redaction, limit: 3),
            rejectedCount: registrationErrors.count,
            rejected: registrationErrors.suffix(5).map(\.description),
            hint: cassette?.unmatchedHint,
            redaction: redaction,
            secrets: redaction.secretValues(in: request)
        )
    }

    /// Up to `limit` stubs that came closest, with a verdict per part: `host ✓`,
    /// `path ✗ /users/* vs /user/1`, `query missing page`, `method GET vs POST`, `used up`.
    private func nearestStubs(to request: RecordedRequest, redaction: Redaction, limit: Int) -> [UnmatchedDiagnosis.NearMiss] {
        var query: [String: [String]] = [:]
        for item in request.queryItems { query[item.name, default: []].append(item.value ?? "") }
        query = query.mapValues { $0.sorted() }

        var scored: [(misses: Int, similarity: Int, order: Int, nearMiss: UnmatchedDiagnosis.NearMiss)] = []
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
                // Values are marked; the output pass shows them as the redaction allows.
                let differences = constraint.differences(from: query)
                verdicts.append(differences.isEmpty ? "query ✓" : differences.joined(separator: ", "))
                misses += differences.isEmpty ? 0 : 1
            }
            if let requirement = route.requirement {
                if requirement.matches(request) {
                    verdicts.append("requirement ✓")
                } else {
                    // Decide on the real request; show what differs on the redacted one.
                    let shown = requirement.mismatchTemplates(redaction.apply(to: request))
                    verdicts.append(shown.isEmpty ? "requirement ✗ \(requirement.template)" : shown.joined(separator: ", "))
                    misses += 1
                }
            }
            if let step = route.scenario, let required = step.requiredState {
                let current = state(of: step.name)
                if current == required {
                    verdicts.append("scenario ✓")
                } else {
                    verdicts.append("scenario \"\(step.name)\" is in \"\(current)\", the stub needs \"\(required)\"")
                    misses += 1
                }
            }
            if route.queue.isEmpty {
                verdicts.append("used up (served \(route.served))")
                misses += 1
            }
            let similarity = Self.commonPrefix(route.key.path, request.path)
            scored.append((misses, similarity, order, .init(stub: route.stub.description, verdicts: verdicts)))
        }
        scored.sort { ($0.misses, -$0.similarity, $0.order) < ($1.misses, -$1.similarity, $1.order) }
        return scored.prefix(limit).map(\.nearMiss)
    }

    private static func commonPrefix(_ lhs: String, _ rhs: String) -> Int {
        zip(lhs.utf8, rhs.utf8).prefix { $0 == $1 }.count
    }
}
