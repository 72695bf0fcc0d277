import AirlockBase
import Foundation

extension MockRegistry {
    /// What the unmatched-request diagnosis needs from the registry, copied under the lock so that
    /// the diagnosis — which asks stubs' `requiring:` matchers and compares text — is built after
    /// unlocking, while other requests are served.
    ///
    /// The candidates are found through the registry's indexes, which cover every route: the
    /// stubs whose host and path patterns match the request (the 1,000 most specific, when more
    /// do), and the stubs whose path text shares the longest prefix with the request's path — 8
    /// among the stubs of each host pattern that matches (up to 4 of them) and 8 among every host's.
    struct DiagnosisSnapshot: Sendable {
        let request: RecordedRequest
        /// Candidate routes with their registration order and their table entry as it was.
        let candidates: [(order: Int, route: Route, entry: RouteTable.Entry)]
        /// The current state of each scenario a candidate names.
        let scenarioStates: [String: String]
        let rejectedCount: Int
        /// The last few rejected stubs.
        let rejected: [RegistrationError]
        let hint: String?

        static let matchingLimit = 1_000
        static let neighbourCount = 8
        static let neighbourHosts = 4
        /// How many stubs the diagnosis names.
        static let shownCount = 3

        /// What can be said about the request: the request as shown (redacted), the nearest
        /// stubs with what differed for each, and the stubs rejected earlier.
        func diagnosis(redaction: Redaction) -> UnmatchedDiagnosis {
            UnmatchedDiagnosis(
                request: redaction.apply(to: request),
                bodySize: request.body?.count ?? 0,
                nearest: nearestStubs(redaction: redaction),
                rejectedCount: rejectedCount,
                rejected: rejected.map(\.description),
                hint: hint,
                redaction: redaction,
                secrets: redaction.secretValues(in: request)
            )
        }

        /// The candidates that came closest, with a verdict per part: `host ✓`,
        /// `path ✗ /users/* vs /user/1`, `query missing page`, `method GET vs POST`, `used up`.
        /// Fewer misses first (a host that differs counts two; a `requiring:` matcher that can
        /// say how far the request is from it — a WireMock mapping's — counts that share of one),
        /// then the longer path prefix shared with the request, then the stub registered first.
        /// Each near miss's distance is its misses `m` as `m / (m + 1)`: 0 for a stub that would
        /// answer, nearer 1 the more differs, in the order of the ranking.
        private func nearestStubs(redaction: Redaction) -> [UnmatchedDiagnosis.NearMiss] {
            let query = request.queryValues
            let labels = request.host.lowercased().splitSegments(on: UInt8(ascii: "."))
            let segments = (request.path.isEmpty ? "" : String(request.path.dropFirst())).splitSegments(on: UInt8(ascii: "/"))
            var shown: RecordedRequest?
            var scored: [(misses: Double, similarity: Int, order: Int, nearMiss: UnmatchedDiagnosis.NearMiss)] = []
            for (order, route, entry) in candidates {
                var verdicts: [String] = []
                var misses = 0.0
                if route.host.matches(labels) {
                    verdicts.append("host ✓")
                } else {
                    verdicts.append("host ✗ \(route.host.source) vs \(request.host)")
                    misses += 2
                }
                if route.path.matches(segments) {
                    verdicts.append("path ✓")
                } else {
                    verdicts.append("path ✗ \(route.path.source) vs \(request.path)")
                    misses += 1
                }
                if let constraint = route.query {
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
                        if shown == nil { shown = redaction.apply(to: request) }
                        let differences = requirement.mismatchTemplates(shown!)
                        verdicts.append(differences.isEmpty ? "requirement ✗ \(requirement.template)" : differences.joined(separator: ", "))
                        misses += requirement.missWeight(request)
                    }
                }
                if let step = route.scenario, let required = step.requiredState {
                    let current = scenarioStates[step.name] ?? ScenarioStep.started
                    if current == required {
                        verdicts.append("scenario ✓")
                    } else {
                        verdicts.append("scenario \"\(step.name)\" is in \"\(current)\", the stub needs \"\(required)\"")
                        misses += 1
                    }
                }
                if entry.queue.isEmpty {
                    verdicts.append("used up (served \(entry.served))")
                    misses += 1
                }
                let similarity = SortedPathIndex.sharedPrefix(route.path.source, request.path)
                let stub = route.stub
                let nearMiss = UnmatchedDiagnosis.NearMiss(stub: stub.description, verdicts: verdicts, stubID: stub.stubID, distance: misses / (misses + 1))
                scored.append((misses, similarity, order, nearMiss))
            }
            scored.sort { ($0.misses, -$0.similarity, $0.order) < ($1.misses, -$1.similarity, $1.order) }
            return scored.prefix(Self.shownCount).map(\.nearMiss)
        }
    }
}

/// The routes whose host and path patterns match a request, found on a route snapshot without
/// the registry's lock, for the diagnosis (see ``MockRegistry/NeighbourIndex/nearbyRoutes(path:nearby:routes:)``).
struct NearbyCandidates: Sendable {
    /// The epoch of the snapshot they were found on.
    var epoch: Int
    /// The path tries of the host patterns that match, each once, in trie order.
    var hosts: [Int] = []
    /// The routes under them whose path pattern matches (possibly repeated).
    var matching: [Int] = []

    /// Finds them on `snapshot`.
    init(host: String, path: String, on snapshot: RouteIndex.Snapshot) {
        epoch = snapshot.epoch
        let index = snapshot.index
        (hosts, matching) = RouteIndex.Scratch.withCurrent { scratch in
            var hosts: [Int] = []
            var matching: [Int] = []
            scratch.steps = 0
            index.collectHosts(host, into: &scratch)
            for pathTrie in scratch.matchedHosts where !hosts.contains(pathTrie) { hosts.append(pathTrie) }
            scratch.matchedGroups.removeAll(keepingCapacity: true)
            if !hosts.isEmpty { index.collectGroups(path, hosts: hosts, into: &scratch) }
            for group in Set(scratch.matchedGroups) {
                matching.append(contentsOf: index.groups[group].ids)
            }
            return (hosts, matching)
        }
    }
}

extension MockRegistry.State {
    /// The diagnosis's view of the registry for `request`, taken under the lock: a copy of the
    /// few dozen `candidates` found before locking (the trie walk on a snapshot, the neighbours
    /// under ``MockRegistry/NeighbourIndex``'s own lock). Candidates of another epoch, or cleared
    /// since, are left out.
    func diagnosisSnapshot(for request: RecordedRequest, candidates: (epoch: Int, ids: [Int])) -> MockRegistry.DiagnosisSnapshot {
        let ids = candidates.epoch == epoch ? candidates.ids.filter { $0 < index.routes.count && !table[$0].cleared } : []
        var scenarioStates: [String: String] = [:]
        for id in ids {
            if let step = index.routes[id].scenario { scenarioStates[step.name] = scenarios.state(of: step.name) }
        }
        return MockRegistry.DiagnosisSnapshot(
            request: request,
            candidates: ids.map { (order: $0, route: index.routes[$0], entry: table[$0]) },
            scenarioStates: scenarioStates,
            rejectedCount: registrationErrors.count,
            rejected: Array(registrationErrors.suffix(5)),
            hint: unmatchedHandler?.unmatchedHint
        )
    }
}
