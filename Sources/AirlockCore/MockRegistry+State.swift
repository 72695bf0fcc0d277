import Foundation

extension MockRegistry {
    /// Everything a registry holds; only ever touched under the registry's lock.
    struct State: Sendable {
        var unmockedPolicy: UnmockedPolicy = .notFound
        var registrationErrors: [RegistrationError] = []
        /// The cassette that records what no stub answers, or explains why it cannot.
        var cassette: Cassette?
        /// The current state of each scenario that has left ``ScenarioStep/started``.
        var scenarios: [String: String] = [:]
        /// Every scenario a stub names.
        var scenarioNames: Set<String> = []

        private(set) var routes: [Route] = []
        /// Host patterns; each payload indexes `pathTries`.
        private var hostTrie = SegmentTrie()
        private var pathTries: [SegmentTrie] = []
        /// Routes that share a host and path pattern and differ by query; path-trie payloads index it.
        private var routeGroups: [RouteGroup] = []
        /// The last host pattern parsed, since registrations tend to come in runs for one host.
        private var lastHost: (text: String, pattern: Pattern)?
        /// Scratch buffers for matching, kept to avoid allocating on every request.
        private var matchedHosts: [Int] = []
        private var matchedGroups: [Int] = []
        private var labelRanges: [Range<Int>] = []
        private var segmentRanges: [Range<Int>] = []
        private var matchScratch = SegmentTrie.MatchScratch()
        /// How many trie steps the last request's match took (hosts and paths), for tests that
        /// check matching stays bounded.
        private(set) var lastMatchSteps = 0

        // MARK: Registering

        /// Queues a registration's responses; returns a warning worth printing, if any.
        mutating func register(_ registration: Registration) throws(RegistrationError) -> String? {
            let host: Pattern
            let path: Pattern
            do {
                if let lastHost, lastHost.text == registration.host {
                    host = lastHost.pattern
                } else {
                    host = try Pattern.host(registration.host)
                    lastHost = (registration.host, host)
                }
                path = try Pattern.path(registration.path)
            } catch {
                throw RegistrationError(stub: registration.stubDescription, problem: error.problem, fix: error.fix)
            }
            for response in registration.responses {
                try Self.validate(response, stub: registration.stubDescription)  // described only when invalid
            }
            guard !registration.responses.isEmpty else { return nil }

            let query = registration.query.map { QueryConstraint($0, matching: registration.queryMatching) }
            let key = RouteKey(host: host.source, path: path.source, query: query)
            let id = route(for: key, host: host, path: path, query: query, requirement: registration.requirement, scenario: registration.scenario)
            if registration.reportsEachResponse { routes[id].reportsEachResponse = true }
            if let scenario = registration.scenario { scenarioNames.insert(scenario.name) }
            let wasEternal = routes[id].queue.hasEternal
            for response in registration.responses {
                routes[id].queue.append(response)
            }
            if wasEternal || registration.responses.dropLast().contains(where: { $0.lifetime == .eternal }) {
                return "Airlock warning: responses queued behind an .eternal response for "
                    + "\(registration.stubDescription) are never served. Queue them before it, "
                    + "or give the eternal one its own stub."
            }
            return nil
        }

        /// The route registered with the same patterns and query, added if there is none yet.
        private mutating func route(
            for key: RouteKey,
            host: Pattern,
            path: Pattern,
            query: QueryConstraint?,
            requirement: RequestMatcher?,
            scenario: ScenarioStep?
        ) -> Int {
            let pathTrie = hostTrie.value(for: host) {
                pathTries.append(SegmentTrie())
                return pathTries.count - 1
            }.value
            let group = pathTries[pathTrie].value(for: path) {
                routeGroups.append(RouteGroup())
                return routeGroups.count - 1
            }
            // A stub with a requirement always gets a queue of its own: matchers cannot be compared.
            // Stubs of the same scenario step share one. Found by key, so that registering many
            // stubs on one path costs the same for each.
            let shared = SharedQueueKey(query: query, scenario: scenario)
            if requirement == nil, let existing = routeGroups[group.value].sharedRoute(for: shared) {
                return existing
            }
            let id = routes.count
            routes.append(
                Route(
                    key: key,
                    requirement: requirement,
                    scenario: scenario,
                    rank: Rank(host: host, path: path, query: query, requirement: requirement, scenario: scenario, order: id)
                )
            )
            routeGroups[group.value].ids.append(id)
            if requirement == nil { routeGroups[group.value].share(id, for: shared) }
            return id
        }

        private static func validate(_ response: MockResponse, stub: @autoclosure () -> String) throws(RegistrationError) {
            if let (problem, fix) = ResponseLimits.problem(with: response) {
                throw RegistrationError(stub: stub(), problem: problem, fix: fix)
            }
        }

        // MARK: Matching

        /// Takes the next response of the most specific matching stub, or says what the unmocked
        /// policy wants (with the diagnosis its message needs); records the request either way.
        mutating func decide(_ request: IncomingRequest, at date: Date, journal: RequestJournal) -> Decision {
            // The journal entry is made when something needs it: a stub's request condition, the
            // journal (unless it keeps nothing), a cassette, or the unmatched-request diagnosis.
            var recorded: RecordedRequest?
            func entry() -> RecordedRequest {
                if let recorded { return recorded }
                let made = RecordedRequest(sequence: 0, request: request, date: date)
                recorded = made
                return made
            }
            if let id = bestRoute(for: request, recorded: entry), let response = routes[id].queue.next() {
                routes[id].served += 1
                if let step = routes[id].scenario, let newState = step.newState {
                    scenarios[step.name] = newState
                }
                let stub = routes[id].stub
                let recorder = journal.append({
                    // Made here when no condition needed it: one entry, no copy.
                    var answered = recorded ?? RecordedRequest(sequence: 0, request: request, date: date)
                    answered.answeredBy = stub
                    return answered
                }, started: date)
                return .matched(response, stub: stub, recorder: recorder)
            }
            if let cassette, cassette.isRecording {
                return .record(recorder: journal.append(entry, started: date, cassette: cassette))
            }
            if let cassette {
                // A cassette that only replays answers for every request no stub took: a miss
                // fails, whatever the unmocked policy, so no plausible answer hides it.
                let diagnosis = self.diagnosis(for: entry(), redaction: journal.redaction)
                return .replayMiss(cassette, diagnosis: diagnosis, recorder: journal.append(entry, started: date))
            }
            var diagnosis: UnmatchedDiagnosis?
            switch unmockedPolicy {
            case .notFound, .fatalError: diagnosis = self.diagnosis(for: entry(), redaction: journal.redaction)
            case .mock, .passthrough: break
            }
            return .unmatched(unmockedPolicy, diagnosis: diagnosis, recorder: journal.append(entry, started: date))
        }

        /// The most specific route that matches and still has a response queued. `recorded` makes
        /// the journal entry a stub's request condition looks at.
        private mutating func bestRoute(for request: IncomingRequest, recorded: () -> RecordedRequest) -> Int? {
            matchedHosts.removeAll(keepingCapacity: true)
            SegmentView.with(request.host, separator: UInt8(ascii: "."), ranges: &labelRanges) { labels in
                hostTrie.collectMatches(labels, into: &matchedHosts, scratch: &matchScratch)
            }
            lastMatchSteps = matchScratch.steps
            if let best = bestRoute(amongHosts: request, recorded: recorded) { return best }
            // A request addressed to the server itself (origin mode, `Host: 127.0.0.1:<port>`)
            // names no host a stub could name: the stubs of every host answer it.
            guard request.isAddressedToServer, !pathTries.isEmpty else { return nil }
            matchedHosts = Array(pathTries.indices)
            return bestRoute(amongHosts: request, recorded: recorded)
        }

        /// The best route among the path tries of ``matchedHosts``.
        private mutating func bestRoute(amongHosts request: IncomingRequest, recorded: () -> RecordedRequest) -> Int? {
            matchedGroups.removeAll(keepingCapacity: true)
            // Only origin-form paths match (`OPTIONS *` names no resource).
            if !matchedHosts.isEmpty, request.path.utf8.first == UInt8(ascii: "/") {
                SegmentView.with(request.path, skipping: 1, separator: UInt8(ascii: "/"), ranges: &segmentRanges) { segments in
                    for pathTrie in matchedHosts {
                        pathTries[pathTrie].collectMatches(segments, into: &matchedGroups, scratch: &matchScratch)
                        lastMatchSteps += matchScratch.steps
                    }
                }
            }
            var requestQuery: [String: [String]]?
            var best: Int?
            for group in matchedGroups {
                for id in routeGroups[group].ids {
                    guard !routes[id].queue.isEmpty else { continue }
                    if let best, routes[best].rank <= routes[id].rank { continue }
                    if let query = routes[id].key.query {
                        if requestQuery == nil { requestQuery = request.queryValues }
                        guard query.matches(requestQuery!) else { continue }
                    }
                    if let step = routes[id].scenario, let required = step.requiredState, state(of: step.name) != required { continue }
                    if let requirement = routes[id].requirement, !requirement.matches(recorded()) { continue }
                    best = id
                }
            }
            return best
        }

        /// Stubs that have served nothing and were not cleared; for a cassette's stubs, also the
        /// recorded responses never replayed.
        var unusedStubs: [String] {
            routes.compactMap { route in
                guard !route.cleared else { return nil }
                if route.reportsEachResponse {
                    let left = route.queue.count - (route.queue.hasEternal && route.served > 0 ? 1 : 0)
                    guard left > 0 else { return nil }
                    return "\(route.stub.description) — \(left) recorded response(s) never replayed"
                }
                return route.served == 0 ? route.stub.description : nil
            }
        }

        // MARK: Clearing

        /// A scenario's current state.
        func state(of scenario: String) -> String {
            scenarios[scenario] ?? ScenarioStep.started
        }

        mutating func removeAll() {
            scenarios = [:]
            scenarioNames = []
            routes = []
            lastHost = nil
            hostTrie = SegmentTrie()
            pathTries = []
            routeGroups = []
        }

        mutating func removeAll(forHost host: String) {
            guard let pattern = try? Pattern.host(host), let pathTrie = hostTrie.value(for: pattern) else { return }
            hostTrie.setValue(nil, for: pattern)
            pathTries[pathTrie] = SegmentTrie()
            for id in routes.indices where routes[id].key.host == pattern.source {
                routes[id].queue = ResponseQueue()
                routes[id].cleared = true
            }
        }

        var queuedResponseCount: Int {
            routes.reduce(0) { $0 + $1.queue.count }
        }
    }

    /// What the registry decided for a request, before the delivery is planned.
    enum Decision {
        case matched(MockResponse, stub: StubDescription, recorder: ExchangeRecorder)
        case unmatched(UnmockedPolicy, diagnosis: UnmatchedDiagnosis?, recorder: ExchangeRecorder)
        /// Forward to the real server and record the exchange in the cassette.
        case record(recorder: ExchangeRecorder)
        /// The cassette does not record and has no entry for the request: fail it (a replay miss).
        case replayMiss(Cassette, diagnosis: UnmatchedDiagnosis, recorder: ExchangeRecorder)
    }

    /// The routes registered for one host and path pattern.
    struct RouteGroup: Sendable {
        var ids: [Int] = []
        /// The route of each query and scenario step, among those without a requirement: the
        /// first inline (most paths have only one, and a dictionary per path would cost memory
        /// at 100,000 paths), any others in a dictionary made when the second arrives.
        private var firstShared: (key: SharedQueueKey, id: Int)?
        private var moreShared: [SharedQueueKey: Int] = [:]

        /// The route that registrations with `key` share, if one was registered.
        func sharedRoute(for key: SharedQueueKey) -> Int? {
            if let firstShared, firstShared.key == key { return firstShared.id }
            return moreShared.isEmpty ? nil : moreShared[key]
        }

        mutating func share(_ id: Int, for key: SharedQueueKey) {
            if firstShared == nil || firstShared?.key == key {
                firstShared = (key, id)
            } else {
                moreShared[key] = id
            }
        }
    }

    /// What makes two registrations for one host and path, both without a requirement, share a queue.
    struct SharedQueueKey: Hashable, Sendable {
        let query: QueryConstraint?
        let scenario: ScenarioStep?
    }

    /// What makes two registrations share one queue.
    struct RouteKey: Hashable, Sendable {
        let host: String
        let path: String
        let query: QueryConstraint?
    }

    /// A registered stub and its queue.
    struct Route: Sendable {
        let key: RouteKey
        let requirement: RequestMatcher?
        /// The scenario state the stub needs and moves to.
        let scenario: ScenarioStep?
        let rank: Rank
        var queue = ResponseQueue()
        /// How many responses it has served.
        var served = 0
        /// Whether `clearQueue(forHost:)` removed it.
        var cleared = false
        /// Whether each response left unserved counts as unused (a cassette's).
        var reportsEachResponse = false

        var stub: StubDescription {
            StubDescription(host: key.host, path: key.path, query: key.query, requirement: requirement?.template, scenario: scenario)
        }
    }

    /// How specific a stub is; lower ranks win. Exact patterns have no wildcards and so beat any
    /// wildcard; fewer wildcards (`**` counting two) beat more; longer literal text breaks ties;
    /// then a stub with a `requiring:` matcher beats one without; then a query constraint beats
    /// none (an exact one beats `contains`, more parameters beat fewer); then the stub registered
    /// first wins.
    struct Rank: Comparable, Sendable {
        let wildcards: Int
        let literalLength: Int
        let requirementClass: Int
        let queryClass: Int
        let queryCount: Int
        let order: Int

        init(host: Pattern, path: Pattern, query: QueryConstraint?, requirement: RequestMatcher? = nil, scenario: ScenarioStep? = nil, order: Int) {
            wildcards = host.wildcardWeight + path.wildcardWeight
            literalLength = host.literalLength + path.literalLength
            requirementClass = requirement == nil && scenario?.requiredState == nil ? 1 : 0
            switch query?.matching {
            case .exact: queryClass = 0
            case .contains: queryClass = 1
            case nil: queryClass = 2
            }
            queryCount = query?.values.values.reduce(0) { $0 + $1.count } ?? 0
            self.order = order
        }

        static func < (lhs: Rank, rhs: Rank) -> Bool {
            (lhs.wildcards, -lhs.literalLength, lhs.requirementClass, lhs.queryClass, -lhs.queryCount, lhs.order)
                < (rhs.wildcards, -rhs.literalLength, rhs.requirementClass, rhs.queryClass, -rhs.queryCount, rhs.order)
        }
    }
}
