import AirlockBase
import Foundation

extension MockRegistry {
    /// What a registry holds besides its journal; only ever touched under the registry's lock.
    ///
    /// Three parts: the ``RouteIndex`` (what matching reads, published to requests as a snapshot
    /// they read without the lock), the ``RouteTable`` (what a hit changes) and the
    /// ``Scenarios``; beside them the policy, the rejected stubs and the diagnosis's indexes.
    struct State: Sendable {
        var unmockedPolicy: UnmockedPolicy = .notFound
        var registrationErrors: [RegistrationError] = []
        /// What takes the requests no stub answers in place of the unmocked policy (a cassette),
        /// if anything does.
        var unmatchedHandler: (any UnmatchedRequestHandler)?
        var scenarios = Scenarios()
        /// The route of each stub registered with an id (``Registration/stubID``).
        var stubIDs = StubIDIndex()
        /// A wait added to every stubbed response (``MockRegistry/addedDelay``).
        var addedDelay: TimeInterval = 0
        /// The routes as the next published snapshot holds them.
        private(set) var index = RouteIndex()
        private(set) var table = RouteTable()
        /// Bumped by ``removeAll()``: route ids of an older epoch name other routes.
        private(set) var epoch = 0
        /// Where the index is published; dropped before every change of the index.
        let publication: RouteIndex.Publication
        /// Every route by path text, and by host and then path text: the diagnosis's neighbours,
        /// behind their own lock; told here of every route added and cleared.
        let neighbours: Locked<NeighbourIndex>
        /// How many trie steps the last request's match took (hosts and paths), for tests that
        /// check matching stays bounded.
        private(set) var lastMatchSteps = 0

        init(publication: RouteIndex.Publication, neighbours: Locked<NeighbourIndex>) {
            self.publication = publication
            self.neighbours = neighbours
        }

        /// The published snapshot, made now if none is current (the first request after a change).
        mutating func snapshot() -> RouteIndex.Snapshot {
            if let current = publication.load() { return current }
            let made = RouteIndex.Snapshot(index, epoch: epoch)
            publication.publish(made)
            return made
        }

        // MARK: Registering

        /// Queues a registration's responses; returns a warning worth printing, if any, and the
        /// route that holds them (none for a registration without responses).
        mutating func register(_ registration: Registration) throws(RegistrationError) -> (warning: String?, route: Int?) {
            let host: Pattern
            let path: Pattern
            do {
                host = try index.hostPattern(registration.host)
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
            guard !registration.responses.isEmpty else {
                if let stubID = registration.stubID { _ = removeStub(id: stubID) }
                return (nil, nil)
            }

            let query = registration.query.map { QueryConstraint($0, matching: registration.queryMatching) }
            let conditions = RouteConditions.make(
                query: query, requirement: registration.requirement, scenario: registration.scenario, stubID: registration.stubID
            )
            // A stub with a requirement always gets a queue of its own: matchers cannot be compared.
            // So does a stub with an ordering key or an id: each is a stub of its own, found and
            // removed by its id. Stubs of the same scenario step share one.
            let sharesQueue = registration.requirement == nil && registration.precedence == .specificity && registration.stubID == nil
            publication.invalidate()
            let (id, added) = index.route(
                host: host,
                path: path,
                conditions: conditions,
                rank: { order in
                    Rank(
                        host: host, path: path, query: query, requirement: registration.requirement,
                        scenario: registration.scenario, precedence: registration.precedence, order: order
                    )
                },
                sharesQueue: sharesQueue
            )
            if added {
                table.add(id)
                let pathTrie = index.routes[id].pathTrie
                neighbours.withLock { $0.append(id: id, pathTrie: pathTrie, path: path.source) }
            }
            if let scenario = registration.scenario { scenarios.noteName(scenario.name) }
            if let stubID = registration.stubID {
                // The stub registered before with this id, if any, serves nothing more.
                if let replaced = stubIDs.route(of: stubID), replaced != id { clear(route: replaced) }
                stubIDs.set(stubID, route: id)
            }
            let wasEternal = table.append(registration.responses, to: id, reportsEachResponse: registration.reportsEachResponse)
            if wasEternal || registration.responses.dropLast().contains(where: { $0.lifetime == .eternal }) {
                let warning = "Airlock warning: responses queued behind an .eternal response for "
                    + "\(registration.stubDescription) are never served. Queue them before it, "
                    + "or give the eternal one its own stub."
                return (warning, id)
            }
            return (nil, id)
        }

        private static func validate(_ response: MockResponse, stub: @autoclosure () -> String) throws(RegistrationError) {
            if let (code, problem, fix) = ResponseLimits.check(response) {
                throw RegistrationError(code, stub: stub(), problem: problem, fix: fix)
            }
        }

        // MARK: Taking a response

        /// Takes the next response of the first of `candidates` (found on `snapshot`, most
        /// specific first) that still has one and whose scenario and `requiring:` matcher allow
        /// it. Runs no code of the user's: when a matcher must be asked first, it returns
        /// ``Pick/evaluate(_:)`` and the caller asks it after unlocking, then comes back with
        /// the answers in `known`.
        mutating func pick(_ candidates: [Int], on snapshot: RouteIndex.Snapshot, known: ConditionResults, steps: Int) -> Pick {
            guard snapshot.epoch == epoch else { return .stale }
            lastMatchSteps = steps
            let routes = snapshot.index.routes
            var chosen: Int?
            // Routes whose matcher has not been asked yet, ranked above `chosen`.
            var unasked: [Int] = []
            for id in candidates where table.hasResponses(id) {
                if let conditions = routes[id].conditions {
                    guard scenarios.allows(conditions.scenario) else { continue }
                    if conditions.requirement != nil {
                        switch known.result(for: id, epoch: epoch) {
                        case false?: continue
                        case nil:
                            unasked.append(id)
                            continue
                        case true?: break
                        }
                    }
                }
                chosen = id
                break
            }
            if !unasked.isEmpty {
                return .evaluate(PendingMatch(epoch: epoch, candidates: unasked.map { (id: $0, requirement: routes[$0].requirement!) }))
            }
            guard let id = chosen, let response = table.take(id) else { return .none }
            scenarios.advance(routes[id].scenario)
            return .taken(response, route: id, addedDelay: addedDelay)
        }

        /// What the locked step of a request found among its candidates.
        enum Pick {
            /// A route's response, with the delay to add to it after unlocking
            /// (``MockRegistry/addedDelay``).
            case taken(MockResponse, route: Int, addedDelay: TimeInterval)
            /// Routes whose `requiring:` matchers must be asked before anything can be decided.
            case evaluate(PendingMatch)
            /// No candidate can answer.
            case none
            /// The snapshot is of an older epoch: match again on the current one.
            case stale
        }

        /// What answers a request no stub took, read under the lock; with the diagnosis's view of
        /// the registry when the answer's message needs it, made from `nearby` — the candidates
        /// found before locking. Without them, an answer that needs them returns
        /// ``UnmatchedAnswer/needsCandidates``: the caller finds them (outside this lock) and asks
        /// again, so that an answer without a diagnosis (a recording, a passthrough) never looks.
        mutating func unmatchedAnswer(for request: RecordedRequest, nearby: (epoch: Int, ids: [Int])?) -> UnmatchedAnswer {
            // A request addressed to the server itself is never forwarded: it would come back to
            // the server, again and again, until the file descriptors run out. No stub answers it.
            if unmatchedHandler?.isRecording == true || unmockedPolicy.forwards, request.incoming.isAddressedToServer {
                guard let nearby else { return .needsCandidates }
                return .policy(.notFound, diagnosisSnapshot(for: request, candidates: nearby))
            }
            if let unmatchedHandler, unmatchedHandler.isRecording {
                return .record(unmatchedHandler)
            }
            if let unmatchedHandler {
                // A recording that only replays answers for every request no stub took: a miss
                // fails, whatever the unmocked policy, so no plausible answer hides it.
                guard let nearby else { return .needsCandidates }
                return .replayMiss(unmatchedHandler, diagnosisSnapshot(for: request, candidates: nearby))
            }
            switch unmockedPolicy {
            case .notFound, .fatalError:
                guard let nearby else { return .needsCandidates }
                return .policy(unmockedPolicy, diagnosisSnapshot(for: request, candidates: nearby))
            case .mock, .passthrough: return .policy(unmockedPolicy, nil)
            }
        }

        /// What answers a request no stub took (see ``unmatchedAnswer(for:nearby:)``).
        enum UnmatchedAnswer {
            case policy(UnmockedPolicy, DiagnosisSnapshot?)
            case record(any UnmatchedRequestHandler)
            case replayMiss(any UnmatchedRequestHandler, DiagnosisSnapshot)
            /// The answer needs the diagnosis's candidates: find them and ask again.
            case needsCandidates
        }

        /// Stubs that have served nothing and were not cleared; for a cassette's stubs, also the
        /// recorded responses never replayed.
        var unusedStubs: [String] {
            index.routes.indices.compactMap { id in
                let entry = table[id]
                guard !entry.cleared else { return nil }
                if entry.reportsEachResponse {
                    let left = entry.queue.count - (entry.queue.hasEternal && entry.served > 0 ? 1 : 0)
                    guard left > 0 else { return nil }
                    return "\(index.routes[id].stub.description) — \(left) recorded response(s) never replayed"
                }
                return entry.served == 0 ? index.routes[id].stub.description : nil
            }
        }

        /// Every route not cleared, with its table entry, in registration order.
        var liveRoutes: [(route: Route, entry: RouteTable.Entry)] {
            index.routes.indices.compactMap { id in table[id].cleared ? nil : (index.routes[id], table[id]) }
        }

        // MARK: Clearing

        mutating func removeAll() {
            publication.invalidate()
            scenarios.removeAll()
            stubIDs = StubIDIndex()
            index = RouteIndex()
            table = RouteTable()
            epoch &+= 1
            let epoch = epoch
            neighbours.withLock { $0.reset(epoch: epoch) }
        }

        mutating func removeAll(forHost host: String) {
            guard let pattern = try? Pattern.host(host), index.hostTrie.value(for: pattern) != nil else { return }
            publication.invalidate()
            guard let pathTrie = index.removeHost(pattern) else { return }
            let removed = index.routes.indices.filter { index.routes[$0].pathTrie == pathTrie }
            for id in removed {
                table.clear(id)
            }
            let current = table
            stubIDs.removeAll { current[$0].cleared }
            neighbours.withLock { $0.clear(removed) }
        }

        /// Removes one route: it serves nothing more and is no longer listed. The index keeps it
        /// (matching skips a cleared route: its queue is empty).
        mutating func clear(route id: Int) {
            table.clear(id)
            neighbours.withLock { $0.clear(CollectionOfOne(id)) }
        }

        var queuedResponseCount: Int {
            table.queuedResponseCount
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

        /// The same decision, its recorder keeping responses as `form` makes them.
        func keeping(responsesAs form: (@Sendable (RecordedResponse) -> RecordedResponse)?) -> Decision {
            guard let form else { return self }
            switch self {
            case .matched(let response, let stub, let recorder): return .matched(response, stub: stub, recorder: recorder.keeping(responsesAs: form))
            case .unmatched(let policy, let snapshot, let recorder): return .unmatched(policy, snapshot: snapshot, recorder: recorder.keeping(responsesAs: form))
            case .record(let recorder): return .record(recorder: recorder.keeping(responsesAs: form))
            case .replayMiss(let recording, let snapshot, let recorder): return .replayMiss(recording, snapshot: snapshot, recorder: recorder.keeping(responsesAs: form))
            }
        }
    }
}
