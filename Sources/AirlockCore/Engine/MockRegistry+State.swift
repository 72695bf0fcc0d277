import AirlockBase
import Foundation

extension MockRegistry {
    /// Everything a registry holds; only ever touched under the registry's lock.
    struct State: Sendable {
        var unmockedPolicy: UnmockedPolicy = .notFound
        var registrationErrors: [RegistrationError] = []
        /// What takes the requests no stub answers in place of the unmocked policy (a cassette),
        /// if anything does.
        var unmatchedHandler: (any UnmatchedRequestHandler)?
        /// The current state of each scenario that has left ``ScenarioStep/started``.
        private(set) var scenarios: [String: String] = [:]
        /// Every scenario a stub names.
        var scenarioNames: Set<String> = []
        /// The stubs registered with a ``StubSource``, by id.
        var sources = SourceIndex()
        /// What every stubbed response goes through before it is served, if anything (a delay a
        /// format's settings add to each, say).
        var responseAdjustment: (any ResponseAdjustment)?
        /// Bumped by every change that can change which response a request gets (registering,
        /// taking a response, clearing, moving a scenario), so that a match decided on what the
        /// registry held before unlocking can tell whether it still holds.
        private(set) var generation = 0
        /// The generation of the last ``removeAll()``: route ids from before it name other routes.
        private(set) var epoch = 0

        private(set) var routes: [Route] = []
        /// Host patterns; each payload indexes `pathTries`.
        private var hostTrie = SegmentTrie()
        private var pathTries: [SegmentTrie] = []
        /// The host pattern of each path trie, shared by every route under it.
        private var hostPatterns: [SharedPattern] = []
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
        /// Every route by path text, and by host and then path text: the diagnosis's neighbours.
        private var byPath = SortedPathIndex()
        private var byHostAndPath = SortedPathIndex()
        /// How many trie steps the last request's match took (hosts and paths), for tests that
        /// check matching stays bounded.
        private(set) var lastMatchSteps = 0

        // MARK: Registering

        /// Queues a registration's responses; returns a warning worth printing, if any, and the
        /// route that holds them (none for a registration without responses).
        mutating func register(_ registration: Registration) throws(RegistrationError) -> (warning: String?, route: Int?) {
            let host: Pattern
            let path: Pattern
            do {
                if let lastHost, lastHost.text == registration.host {
                    host = lastHost.pattern
                } else {
                    host = try Pattern.host(registration.host)
                    lastHost = (registration.host, host)
                }
            } catch {
                throw RegistrationError(.invalidHost, stub: registration.stubDescription, problem: error.problem, fix: error.fix)
            }
            do {
                path = try Pattern.path(registration.path)
            } catch {
                throw RegistrationError(.invalidPath, stub: registration.stubDescription, problem: error.problem, fix: error.fix)
            }
            for response in registration.responses {
                try Self.validate(response, stub: registration.stubDescription)  // described only when invalid
            }
            guard !registration.responses.isEmpty else { return (nil, nil) }

            let query = registration.query.map { QueryConstraint($0, matching: registration.queryMatching) }
            let id = route(
                host: host,
                path: path,
                query: query,
                requirement: registration.requirement,
                scenario: registration.scenario,
                precedence: registration.precedence,
                ownQueue: registration.source != nil
            )
            generation &+= 1
            if registration.reportsEachResponse { routes[id].reportsEachResponse = true }
            if let scenario = registration.scenario { scenarioNames.insert(scenario.name) }
            let wasEternal = routes[id].queue.hasEternal
            for response in registration.responses {
                routes[id].queue.append(response)
            }
            if wasEternal || registration.responses.dropLast().contains(where: { $0.lifetime == .eternal }) {
                let warning = "Airlock warning: responses queued behind an .eternal response for "
                    + "\(registration.stubDescription) are never served. Queue them before it, "
                    + "or give the eternal one its own stub."
                return (warning, id)
            }
            return (nil, id)
        }

        /// The route registered with the same patterns and query, added if there is none yet.
        private mutating func route(
            host: Pattern,
            path: Pattern,
            query: QueryConstraint?,
            requirement: RequestMatcher?,
            scenario: ScenarioStep?,
            precedence: Registration.Precedence,
            ownQueue: Bool
        ) -> Int {
            let pathTrie = hostTrie.value(for: host) {
                pathTries.append(SegmentTrie())
                hostPatterns.append(SharedPattern(host))
                return pathTries.count - 1
            }.value
            let group = pathTries[pathTrie].value(for: path) {
                routeGroups.append(RouteGroup())
                return routeGroups.count - 1
            }
            // A stub with a requirement always gets a queue of its own: matchers cannot be compared.
            // So does a stub with an explicit priority or a source: each is a stub of its own,
            // found and removed by its id. Stubs of the same scenario step share one. Found by
            // key, so that registering many stubs on one path costs the same for each.
            let conditions = RouteConditions.make(query: query, requirement: requirement, scenario: scenario)
            let shared = SharedQueueKey(conditions: conditions)
            let sharesQueue = requirement == nil && precedence == .specificity && !ownQueue
            if sharesQueue, let existing = routeGroups[group.value].sharedRoute(for: shared) {
                return existing
            }
            let id = routes.count
            routes.append(
                Route(
                    sharedHost: hostPatterns[pathTrie],
                    path: path,
                    conditions: conditions,
                    pathTrie: pathTrie,
                    rank: Rank(host: host, path: path, query: query, requirement: requirement, scenario: scenario, precedence: precedence, order: id)
                )
            )
            byPath.append(id: id, key: 0, path: path.source)
            byHostAndPath.append(id: id, key: pathTrie, path: path.source)
            routeGroups[group.value].append(id)
            if sharesQueue { routeGroups[group.value].share(id, for: shared) }
            return id
        }

        private static func validate(_ response: MockResponse, stub: @autoclosure () -> String) throws(RegistrationError) {
            if let (code, problem, fix) = ResponseLimits.check(response) {
                throw RegistrationError(code, stub: stub(), problem: problem, fix: fix)
            }
        }

        // MARK: Matching

        /// Takes the next response of the most specific matching stub, or says what the unmocked
        /// policy wants; records the request either way. Runs no code of the user's: when a stub's
        /// `requiring:` matcher must be asked, it returns ``Outcome/evaluate(_:)`` and the caller
        /// asks it after unlocking, then calls again with the answers in `conditions`.
        mutating func decide(_ request: IncomingRequest, at date: Date, journal: RequestJournal, conditions: ConditionResults) -> Outcome {
            // The journal entry is made when something needs it: a stub's request condition (made
            // then outside the lock, and handed in), the journal (unless it keeps nothing), a
            // cassette, or the unmatched-request diagnosis.
            var recorded = conditions.recorded
            func entry() -> RecordedRequest {
                if let recorded { return recorded }
                let made = RecordedRequest(sequence: 0, request: request, date: date)
                recorded = made
                return made
            }
            let known = conditions.epoch == epoch ? conditions : ConditionResults()
            var found: Int?
            if let pending = known.pending, pending.generation == generation, let choice = known.choice(in: pending) {
                // Nothing changed since the candidates were taken: the answer stands.
                found = choice
            } else {
                switch bestRoute(for: request, known: known) {
                case .decided(let id): found = id
                case .undecided(let pending): return .evaluate(pending)
                }
            }
            if let id = found, let response = routes[id].queue.next() {
                generation &+= 1
                routes[id].served += 1
                if let step = routes[id].scenario, let newState = step.newState {
                    scenarios[step.name] = newState
                }
                var stub = routes[id].stub
                if !sources.isEmpty { stub.sourceID = sources.source(ofRoute: id) }
                let recorder = journal.append({
                    // Made here when no condition needed it: one entry, no copy.
                    var answered = recorded ?? RecordedRequest(sequence: 0, request: request, date: date)
                    answered.answeredBy = stub
                    return answered
                }, started: date)
                let served = responseAdjustment?.adjusted(response) ?? response
                return .decided(.matched(served, stub: stub, recorder: recorder))
            }
            // A request addressed to the server itself is never forwarded: it would come back to
            // the server, again and again, until the file descriptors run out. No stub answers it.
            if request.isAddressedToServer, unmatchedHandler?.isRecording == true || unmockedPolicy.forwards {
                return .decided(.unmatched(.notFound, snapshot: diagnosisSnapshot(for: entry()), recorder: journal.append(entry, started: date)))
            }
            if let unmatchedHandler, unmatchedHandler.isRecording {
                return .decided(.record(recorder: journal.append(entry, started: date, recording: unmatchedHandler)))
            }
            if let unmatchedHandler {
                // A recording that only replays answers for every request no stub took: a miss
                // fails, whatever the unmocked policy, so no plausible answer hides it.
                let snapshot = diagnosisSnapshot(for: entry())
                return .decided(.replayMiss(unmatchedHandler, snapshot: snapshot, recorder: journal.append(entry, started: date)))
            }
            var snapshot: DiagnosisSnapshot?
            switch unmockedPolicy {
            case .notFound, .fatalError: snapshot = diagnosisSnapshot(for: entry())
            case .mock, .passthrough: break
            }
            return .decided(.unmatched(unmockedPolicy, snapshot: snapshot, recorder: journal.append(entry, started: date)))
        }

        /// The most specific route that matches and still has a response queued, or the routes
        /// whose `requiring:` matchers must be asked first. `known` holds the answers so far.
        private mutating func bestRoute(for request: IncomingRequest, known: ConditionResults) -> RouteChoice {
            matchedHosts.removeAll(keepingCapacity: true)
            SegmentView.with(request.host, separator: UInt8(ascii: "."), ranges: &labelRanges) { labels in
                hostTrie.collectMatches(labels, into: &matchedHosts, scratch: &matchScratch)
            }
            lastMatchSteps = matchScratch.steps
            let own = bestRoute(amongHosts: request, known: known)
            if case .decided(nil) = own {
                // A request addressed to the server itself (origin mode, `Host: 127.0.0.1:<port>`)
                // names no host a stub could name: the stubs of every host answer it.
                guard request.isAddressedToServer, !pathTries.isEmpty else { return own }
                matchedHosts = Array(pathTries.indices)
                return bestRoute(amongHosts: request, known: known)
            }
            return own
        }

        /// The best route among the path tries of ``matchedHosts``.
        private mutating func bestRoute(amongHosts request: IncomingRequest, known: ConditionResults) -> RouteChoice {
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
            // Routes whose matcher has not been asked yet, when they would beat `best`.
            var unasked: [Int] = []
            for group in matchedGroups {
                for id in routeGroups[group].ids {
                    guard !routes[id].queue.isEmpty else { continue }
                    if let best, routes[best].rank <= routes[id].rank { continue }
                    if let query = routes[id].query {
                        if requestQuery == nil { requestQuery = request.queryValues }
                        guard query.matches(requestQuery!) else { continue }
                    }
                    if let step = routes[id].scenario, let required = step.requiredState, state(of: step.name) != required { continue }
                    if routes[id].requirement != nil {
                        switch known.results[id] {
                        case false?: continue
                        case nil:
                            unasked.append(id)
                            continue
                        case true?: break
                        }
                    }
                    best = id
                }
            }
            if let best { unasked.removeAll { routes[best].rank <= routes[$0].rank } }
            guard !unasked.isEmpty else { return .decided(best) }
            unasked.sort { routes[$0].rank < routes[$1].rank }
            var seen = Set<Int>()
            unasked.removeAll { !seen.insert($0).inserted }
            return .undecided(
                PendingMatch(
                    generation: generation,
                    epoch: epoch,
                    candidates: unasked.map { (id: $0, requirement: routes[$0].requirement!) },
                    fallback: best
                )
            )
        }
        // MARK: The diagnosis's candidates

        /// The routes an unmatched-request diagnosis considers (see ``MockRegistry/DiagnosisSnapshot``),
        /// in registration order: found through the tries and the sorted path indexes, so that the
        /// cost follows the request and the few stubs near it, not the number of stubs.
        mutating func nearbyRoutes(host: String, path: String) -> [Int] {
            typealias Snapshot = MockRegistry.DiagnosisSnapshot
            matchedHosts.removeAll(keepingCapacity: true)
            SegmentView.with(host, separator: UInt8(ascii: "."), ranges: &labelRanges) { labels in
                hostTrie.collectMatches(labels, into: &matchedHosts, scratch: &matchScratch)
            }
            var hosts: [Int] = []
            for pathTrie in matchedHosts where !hosts.contains(pathTrie) { hosts.append(pathTrie) }
            matchedGroups.removeAll(keepingCapacity: true)
            if !hosts.isEmpty, path.utf8.first == UInt8(ascii: "/") {
                SegmentView.with(path, skipping: 1, separator: UInt8(ascii: "/"), ranges: &segmentRanges) { segments in
                    for pathTrie in hosts {
                        pathTries[pathTrie].collectMatches(segments, into: &matchedGroups, scratch: &matchScratch)
                    }
                }
            }
            var ids = Set<Int>()
            var matching: [Int] = []
            for group in Set(matchedGroups) {
                for id in routeGroups[group].ids where !routes[id].cleared && ids.insert(id).inserted {
                    matching.append(id)
                }
            }
            if matching.count > Snapshot.matchingLimit {
                matching.sort { self.routes[$0].rank < self.routes[$1].rank }
                ids = Set(matching.prefix(Snapshot.matchingLimit))
            }
            let current = routes
            let isLive = { (id: Int) in !current[id].cleared }
            byPath.settle(isLive: isLive)
            byHostAndPath.settle(isLive: isLive)
            for pathTrie in hosts.prefix(Snapshot.neighbourHosts) {
                ids.formUnion(byHostAndPath.nearest(to: path, key: pathTrie, count: Snapshot.neighbourCount, isLive: isLive))
            }
            ids.formUnion(byPath.nearest(to: path, key: 0, count: Snapshot.neighbourCount, isLive: isLive))
            return ids.sorted()
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

        // MARK: Scenarios and clearing

        /// A scenario's current state.
        func state(of scenario: String) -> String {
            scenarios[scenario] ?? ScenarioStep.started
        }

        /// Moves a scenario to a state.
        mutating func setScenario(_ name: String, to newState: String) {
            scenarios[name] = newState
            generation &+= 1
        }

        /// Returns every scenario to its start.
        mutating func resetScenarios() {
            scenarios = [:]
            generation &+= 1
        }

        mutating func removeAll() {
            scenarios = [:]
            scenarioNames = []
            sources = SourceIndex()
            routes = []
            lastHost = nil
            hostTrie = SegmentTrie()
            pathTries = []
            hostPatterns = []
            routeGroups = []
            byPath = SortedPathIndex()
            byHostAndPath = SortedPathIndex()
            generation &+= 1
            epoch = generation
        }

        mutating func removeAll(forHost host: String) {
            guard let pattern = try? Pattern.host(host), let pathTrie = hostTrie.value(for: pattern) else { return }
            hostTrie.setValue(nil, for: pattern)
            pathTries[pathTrie] = SegmentTrie()
            for id in routes.indices where routes[id].pathTrie == pathTrie {
                routes[id].queue = ResponseQueue()
                routes[id].cleared = true
            }
            let current = routes
            sources.removeAll { current[$0].cleared }
            byPath.noteRemovals()
            byHostAndPath.noteRemovals()
            generation &+= 1
        }

        /// Removes one route: it serves nothing more and is no longer listed.
        mutating func clear(route id: Int) {
            routes[id].queue = ResponseQueue()
            routes[id].cleared = true
            byPath.noteRemovals()
            byHostAndPath.noteRemovals()
            generation &+= 1
        }

        var queuedResponseCount: Int {
            routes.reduce(0) { $0 + $1.queue.count }
        }
    }

    /// What the registry decided for a request, before the delivery is planned. Anything slow —
    /// the unmatched-request diagnosis, built from its snapshot — waits for the planning, after
    /// unlocking.
    enum Decision {
        /// A stub's response.
        case matched(MockResponse, stub: StubDescription, recorder: ExchangeRecorder)
        /// No stub answered and the unmocked policy applies; `snapshot` when its message needs
        /// the diagnosis.
        case unmatched(UnmockedPolicy, snapshot: DiagnosisSnapshot?, recorder: ExchangeRecorder)
        /// Forward to the real server and record the exchange in the recording.
        case record(recorder: ExchangeRecorder)
        /// The recording does not record and has no entry for the request: fail it (a replay miss).
        case replayMiss(any UnmatchedRequestHandler, snapshot: DiagnosisSnapshot, recorder: ExchangeRecorder)
    }

    /// The routes registered for one host and path pattern.
    struct RouteGroup: Sendable {
        /// The first route, inline, and any others in an array: most paths have one route, and
        /// matching then reads no array of its own (a cache miss at 100,000 paths).
        private var firstID: Int32 = -1
        /// The route of each query and scenario step, among those without a requirement: the
        /// first inline (most paths have only one, and a dictionary per path would cost memory
        /// at 100,000 paths), any others in a dictionary made when the second arrives.
        private var firstSharedID: Int32 = -1
        private var moreIDs: [Int] = []
        /// Meaningful only when `firstSharedID` is set.
        private var firstSharedKey = SharedQueueKey(conditions: nil)
        private var moreShared: [SharedQueueKey: Int] = [:]

        /// The routes, in the order they were added.
        var ids: IDs { IDs(first: firstID, more: moreIDs) }

        mutating func append(_ id: Int) {
            if firstID < 0 {
                firstID = Int32(truncatingIfNeeded: id)
            } else {
                moreIDs.append(id)
            }
        }

        /// The route that registrations with `key` share, if one was registered.
        func sharedRoute(for key: SharedQueueKey) -> Int? {
            if firstSharedID >= 0, firstSharedKey == key { return Int(firstSharedID) }
            return moreShared.isEmpty ? nil : moreShared[key]
        }

        mutating func share(_ id: Int, for key: SharedQueueKey) {
            if firstSharedID < 0 || firstSharedKey == key {
                firstSharedID = Int32(truncatingIfNeeded: id)
                firstSharedKey = key
            } else {
                moreShared[key] = id
            }
        }

        /// A group's route ids: the inline one, then the array's.
        struct IDs: Sequence {
            let first: Int32
            let more: [Int]

            func makeIterator() -> Iterator { Iterator(first: first, more: more) }

            struct Iterator: IteratorProtocol {
                var first: Int32
                let more: [Int]
                var position = 0

                mutating func next() -> Int? {
                    if first >= 0 {
                        defer { first = -1 }
                        return Int(first)
                    }
                    guard position < more.count else { return nil }
                    defer { position += 1 }
                    return more[position]
                }
            }
        }
    }

    /// What makes two registrations for one host and path, both without a requirement, share a
    /// queue: their query constraint and scenario step (one reference, nil for neither).
    struct SharedQueueKey: Hashable, Sendable {
        let conditions: RouteConditions?

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.conditions?.query == rhs.conditions?.query && lhs.conditions?.scenario == rhs.conditions?.scenario
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(conditions?.query)
            hasher.combine(conditions?.scenario)
        }
    }

    /// A host pattern that every route registered for it holds by one reference.
    final class SharedPattern: Sendable {
        let pattern: Pattern

        init(_ pattern: Pattern) {
            self.pattern = pattern
        }
    }

    /// What a route asks of a request beyond its host and path. Few stubs ask anything more, so
    /// it is kept out of line: a route holds one reference, nil when it asks nothing (a route is
    /// kept for each of up to 100,000 stubs, each byte of it 100 kB).
    final class RouteConditions: Sendable {
        let query: QueryConstraint?
        let requirement: RequestMatcher?
        /// The scenario state the stub needs and moves to.
        let scenario: ScenarioStep?

        private init(query: QueryConstraint?, requirement: RequestMatcher?, scenario: ScenarioStep?) {
            self.query = query
            self.requirement = requirement
            self.scenario = scenario
        }

        /// The conditions, or nil when there are none.
        static func make(query: QueryConstraint?, requirement: RequestMatcher?, scenario: ScenarioStep?) -> RouteConditions? {
            query == nil && requirement == nil && scenario == nil ? nil : RouteConditions(query: query, requirement: requirement, scenario: scenario)
        }
    }

    /// A registered stub and its queue.
    struct Route: Sendable {
        /// The patterns as parsed when registered: nothing parses a route's text again.
        let sharedHost: SharedPattern
        let path: Pattern
        let conditions: RouteConditions?
        /// The path trie its host pattern leads to.
        let pathTrie: Int
        let rank: Rank
        var queue = ResponseQueue()
        /// How many responses it has served.
        var served = 0
        /// Whether `clearQueue(forHost:)` removed it.
        var cleared = false
        /// Whether each response left unserved counts as unused (a cassette's).
        var reportsEachResponse = false

        var host: Pattern { sharedHost.pattern }
        var query: QueryConstraint? { conditions?.query }
        var requirement: RequestMatcher? { conditions?.requirement }
        var scenario: ScenarioStep? { conditions?.scenario }

        var stub: StubDescription {
            StubDescription(host: host.source, path: path.source, query: query, requirement: requirement?.template, scenario: scenario)
        }
    }

    /// How specific a stub is; lower ranks win. Exact patterns have no wildcards and so beat any
    /// wildcard; fewer wildcards (`**` counting two) beat more; longer literal text breaks ties;
    /// then a stub with a `requiring:` matcher beats one without; then a query constraint beats
    /// none (an exact one beats `contains`, more parameters beat fewer); then the stub registered
    /// first wins.
    ///
    /// A stub with an explicit priority (``Registration/Precedence/priority(_:)``, WireMock's
    /// rule) ranks by it instead: its priority first, where stubs ranked by specificity count as
    /// priority 5 and come before stubs of the same explicit priority, then the stub added last.
    struct Rank: Comparable, Sendable {
        // Narrow fields: every route keeps its rank (24 bytes instead of 48 at 100,000 stubs).
        let priority: Int32
        let wildcards: Int32
        let literalLength: Int32
        let queryCount: Int32
        /// Registration order; negated for explicit priorities, where the newest wins.
        let order: Int32
        /// 0 for stubs ranked by specificity, 1 for explicit priorities.
        let precedenceClass: UInt8
        let requirementClass: UInt8
        let queryClass: UInt8

        init(
            host: Pattern,
            path: Pattern,
            query: QueryConstraint?,
            requirement: RequestMatcher? = nil,
            scenario: ScenarioStep? = nil,
            precedence: Registration.Precedence = .specificity,
            order: Int
        ) {
            switch precedence {
            case .priority(let priority):
                // Only the priority and the order count, not the patterns' specificity.
                self.priority = Int32(clamping: priority)
                precedenceClass = 1
                wildcards = 0
                literalLength = 0
                requirementClass = 0
                queryClass = 0
                queryCount = 0
                self.order = -Int32(clamping: order)
                return
            case .specificity:
                self.priority = Int32(Registration.Precedence.defaultPriority)
                precedenceClass = 0
            }
            wildcards = Int32(clamping: host.wildcardWeight + path.wildcardWeight)
            literalLength = Int32(clamping: host.literalLength + path.literalLength)
            requirementClass = requirement == nil && scenario?.requiredState == nil ? 1 : 0
            switch query?.matching {
            case .exact: queryClass = 0
            case .contains: queryClass = 1
            case nil: queryClass = 2
            }
            queryCount = Int32(clamping: query?.values.values.reduce(0) { $0 + $1.count } ?? 0)
            self.order = Int32(clamping: order)
        }

        static func < (lhs: Rank, rhs: Rank) -> Bool {
            if lhs.priority != rhs.priority { return lhs.priority < rhs.priority }
            if lhs.precedenceClass != rhs.precedenceClass { return lhs.precedenceClass < rhs.precedenceClass }
            return (lhs.wildcards, -lhs.literalLength, lhs.requirementClass, lhs.queryClass, -lhs.queryCount, lhs.order)
                < (rhs.wildcards, -rhs.literalLength, rhs.requirementClass, rhs.queryClass, -rhs.queryCount, rhs.order)
        }
    }
}
