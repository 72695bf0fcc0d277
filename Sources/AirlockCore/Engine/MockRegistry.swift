import AirlockBase
import Foundation

/// The stubs of one mock, their response queues, its unmocked policy and its journal: the engine
/// that every transport of the mock asks.
///
/// Matching reads a snapshot of the routes (``RouteIndex/Snapshot``) without a lock; the lock is
/// taken only to take the response (the queues, the counts and the scenarios) and to register or
/// remove stubs; the journal entry is made after unlocking.
///
/// Not API: it is `@_spi(AirlockTransport)`, for the package's own transports. You do not use a
/// registry directly: ``Mocking`` gives `HTTPMock` and `MockServer` the API over
/// it, and two transports serve the same stubs when they share one (`MockServer(mock: httpMock)`).
/// Registering is O(1) per stub and matching a request walks tries keyed by the request's own host
/// labels and path segments, so neither grows with the number of stubs.
@_spi(AirlockTransport)
public final class MockRegistry: Sendable {
    let state: Locked<State>
    /// The routes' snapshot, read by requests without the lock.
    private let publication: RouteIndex.Publication
    /// The diagnosis's sorted path indexes, behind their own lock: an unmatched request searches
    /// them without holding the registry's.
    let neighbours = Locked(NeighbourIndex())
    private let reporter = Locked<(@Sendable (String) -> Void)?>(nil)
    /// What modules above the core keep per registry, by type (see ``attachment(_:makingWith:)``).
    let attachments = Locked<[ObjectIdentifier: any AnyObject & Sendable]>([:])

    /// Every request received, in order, with its outcome.
    package let journal = RequestJournal()

    /// The transcoders installed (``install(_:)``), asked about each request before the stubs.
    let transcoders = InstalledTranscoders()

    /// How this registry's owner writes stubs, for messages made outside a transport
    /// (verification failures, ``Mocking/unmatchedMessage(for:)``).
    package let snippetStyle: UnmatchedDiagnosis.SnippetStyle

    /// Creates an empty registry.
    /// - Parameter snippetStyle: How its owner's users write stubs.
    package init(snippetStyle: UnmatchedDiagnosis.SnippetStyle) {
        self.snippetStyle = snippetStyle
        let publication = RouteIndex.Publication()
        self.publication = publication
        state = Locked(State(publication: publication, neighbours: neighbours))
    }

    /// Where registration warnings and rejected stubs are reported. The core never prints: the
    /// transport decides (standard error for `HTTPMock`, the server's logger for `MockServer`).
    package func report(to handler: (@Sendable (String) -> Void)?) {
        reporter.withLock { $0 = handler }
    }

    /// The policy for requests that no queued response matches.
    package var unmockedPolicy: UnmockedPolicy {
        get { state.withLock { $0.unmockedPolicy } }
        set { state.withLock { $0.unmockedPolicy = newValue } }
    }

    /// Which hosts webhooks may go to; read only for a response that sends one.
    package var webhookPolicy: WebhookPolicy {
        get { webhookPolicyState.withLock { $0 } }
        set { webhookPolicyState.withLock { $0 = newValue } }
    }

    private let webhookPolicyState = Locked(WebhookPolicy.loopbackOnly)

    /// Stubs rejected so far, oldest first.
    package var registrationErrors: [RegistrationError] {
        state.withLock { $0.registrationErrors }
    }

    /// Registers stubs, appending their responses to existing queues for the same key. Invalid
    /// stubs are left out, returned, and reported (see ``report(to:)``).
    @discardableResult
    package func register(_ registrations: [Registration]) -> [RegistrationError] {
        var errors: [RegistrationError] = []
        var warnings: [String] = []
        state.withLock { state in
            for registration in registrations {
                do throws(RegistrationError) {
                    if let warning = try state.register(registration).warning {
                        warnings.append(warning)
                    }
                } catch {
                    errors.append(error)
                }
            }
            state.registrationErrors.append(contentsOf: errors)
        }
        report(errors.map(\.description) + warnings)
        return errors
    }

    /// Hands messages to the reporter, if there is one (see ``report(to:)``): registration
    /// warnings, and load warnings of the formats (what a WireMock mapping had that is dropped).
    package func report(_ messages: [String]) {
        if !messages.isEmpty, let report = reporter.withLock({ $0 }) {
            messages.forEach(report)
        }
    }

    /// Decides everything about one request for a transport: finds the most specific stub and
    /// takes its next response, or applies the unmocked policy; records the request in the
    /// journal; and returns the exchange's state machine, ready for the transport to start.
    ///
    /// Matching walks the routes' published snapshot without a lock; the lock is held only to take
    /// the response of the best candidate that still has one. Nothing written by the user runs
    /// under it: when the best candidates have `requiring:` matchers, they are asked after
    /// unlocking (most specific first, each at most once) and the pick is made again with their
    /// answers. The journal entry is made after unlocking, and the unmatched-request diagnosis
    /// from a snapshot taken under the lock.
    ///
    /// A request an installed ``BodyTranscoder`` takes is decided in its transcoded form, and
    /// every response the exchange sends goes through the transcoding's encoder.
    // The transports call it through one concrete entry point per kind
    // (`ExchangeStateMachine+Transports.swift`), into which this body is specialized.
    func resolving<Kind>(_ request: IncomingRequest, for transport: Transport<Kind>, at date: Date = Date()) -> ExchangeStateMachine<Kind> {
        if let transcoding = transcoders.transcoding(of: request) {
            return resolving(transcoding, for: transport, at: date)
        }
        return ExchangeStateMachine(decide(request, at: date), request: request, transport: transport, redaction: journal.redaction, webhookPolicy: webhookPolicy)
    }

    /// ``resolving(_:for:at:)`` for a transcoded request: its refusal, when it cannot be read,
    /// or the decision on its transcoded form.
    private func resolving<Kind>(_ transcoding: Transcoding, for transport: Transport<Kind>, at date: Date) -> ExchangeStateMachine<Kind> {
        let request = transcoding.request
        let decision: Decision
        if let refusal = transcoding.refusal {
            let recorder = journal.append({ RecordedRequest(sequence: 0, request: request, date: date) }, started: date)
            decision = .unmatched(.mock(refusal), snapshot: nil, recorder: recorder)
        } else {
            decision = decide(request, at: date)
        }
        return ExchangeStateMachine(
            decision.keeping(responsesAs: transcoding.record), request: request, transport: transport, redaction: journal.redaction, webhookPolicy: webhookPolicy, encoding: transcoding.encode
        )
    }

    /// The published route snapshot, made (under the lock) if a change dropped it.
    private func currentSnapshot() -> RouteIndex.Snapshot {
        if let current = publication.load() { return current }
        return state.withLock { $0.snapshot() }
    }

    /// What ``resolve(_:for:at:)`` decides, journal entry included.
    private func decide(_ request: IncomingRequest, at date: Date) -> Decision {
        var conditions = ConditionResults()
        // A request addressed to the server itself (origin mode, `Host: 127.0.0.1:<port>`) names
        // no host a stub could name: when no stub of its own host answers, every host's stubs do.
        var allHosts = false
        while true {
            let snapshot = currentSnapshot()
            let pick = RouteIndex.Scratch.withCurrent { scratch in
                snapshot.index.collectCandidates(for: request, allHosts: allHosts, serial: snapshot.serial, into: &scratch)
                return state.withLock { $0.pick(scratch.candidates, on: snapshot, known: conditions, steps: scratch.steps) }
            }
            switch pick {
            case .taken(let response, let route, let addedDelay):
                let stub = snapshot.index.routes[route].stub
                let recorded = conditions.recorded
                let recorder = journal.append({
                    // Made here when no condition needed it: one entry, no copy.
                    var answered = recorded ?? RecordedRequest(sequence: 0, request: request, date: date)
                    answered.answeredBy = stub
                    return answered
                }, started: date)
                return .matched(addedDelay > 0 ? response.delayed(by: addedDelay) : response, stub: stub, recorder: recorder)
            case .evaluate(let pending):
                conditions.evaluate(pending, request: request, date: date)
            case .stale:
                continue
            case .none:
                if !allHosts, !snapshot.index.pathTries.isEmpty, request.isAddressedToServer {
                    allHosts = true
                    continue
                }
                return unmatched(request, at: date, recorded: conditions.recorded, snapshot: snapshot)
            }
        }
    }

    /// The decision for a request no stub answers: what the recording or the unmocked policy
    /// says, read under the lock; the journal entry made after.
    private func unmatched(_ request: IncomingRequest, at date: Date, recorded: RecordedRequest?, snapshot: RouteIndex.Snapshot) -> Decision {
        let entry = recorded ?? RecordedRequest(sequence: 0, request: request, date: date)
        var candidates: (epoch: Int, ids: [Int])?
        while true {
            switch state.withLock({ $0.unmatchedAnswer(for: entry, nearby: candidates) }) {
            case .policy(let policy, let diagnosis):
                return .unmatched(policy, snapshot: diagnosis, recorder: journal.append({ entry }, started: date))
            case .record(let recording):
                return .record(recorder: journal.append({ entry }, started: date, recording: recording))
            case .replayMiss(let recording, let diagnosis):
                return .replayMiss(recording, snapshot: diagnosis, recorder: journal.append({ entry }, started: date))
            case .needsCandidates:
                // Found outside the registry's lock, once: the second answer has them.
                candidates = diagnosisCandidates(host: request.host, path: request.path, on: snapshot)
            }
        }
    }

    /// The routes a diagnosis of a request for `host` and `path` considers, found without the
    /// registry's lock: on the snapshot's tries, then among the neighbours in the sorted path
    /// indexes under their own lock.
    private func diagnosisCandidates(host: String, path: String, on snapshot: RouteIndex.Snapshot) -> (epoch: Int, ids: [Int]) {
        let nearby = NearbyCandidates(host: host, path: path, on: snapshot)
        return neighbours.withLock { $0.nearbyRoutes(path: path, nearby: nearby, routes: snapshot.index.routes) }
    }

    /// How many trie steps the last request's match took: at most the patterns' nodes times the
    /// request's segments, however many `**` the patterns have.
    package var lastMatchSteps: Int {
        state.withLock { $0.lastMatchSteps }
    }

    /// A scenario's current state.
    package func scenarioState(_ name: String) -> String {
        state.withLock { $0.scenarios.state(of: name) }
    }

    /// Every scenario a stub names (or that was set), with its current state.
    package var scenarioStates: [String: String] {
        state.withLock { $0.scenarios.all }
    }

    /// Moves a scenario to a state.
    package func setScenario(_ name: String, to newState: String) {
        state.withLock { $0.scenarios.set(name, to: newState) }
    }

    /// Returns every scenario to its start.
    package func resetScenarios() {
        state.withLock { $0.scenarios.reset() }
    }

    /// The unmatched-request diagnosis for a recorded request.
    package func diagnosis(for request: RecordedRequest) -> UnmatchedDiagnosis {
        let candidates = diagnosisCandidates(host: request.host, path: request.path, on: currentSnapshot())
        let snapshot = state.withLock { $0.diagnosisSnapshot(for: request, candidates: candidates) }
        return snapshot.diagnosis(redaction: journal.redaction)
    }

    /// Stubs registered but never used (and not cleared), described.
    package var unusedStubs: [String] {
        state.withLock { $0.unusedStubs }
    }

    /// Every registered stub that was not cleared, with its queue size and use count.
    package var stubSummaries: [StubSummary] {
        let redaction = journal.redaction
        return state.withLock { state in
            state.liveRoutes.map { route, entry in
                StubSummary(
                    description: redaction.text(route.stub.description), host: route.host.source, path: route.path.source,
                    queued: entry.queue.count, served: entry.served
                )
            }
        }
    }

    /// Removes every stub and queued response. The policy and the rejected-stub list stay.
    package func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// Removes the stubs registered with this exact host pattern (compared case-insensitively).
    package func removeAll(forHost host: String) {
        state.withLock { $0.removeAll(forHost: host) }
    }

    /// How many responses are queued across all stubs.
    package var queuedResponseCount: Int {
        state.withLock { $0.queuedResponseCount }
    }
}

/// A stub as the admin API lists it.
package struct StubSummary: Sendable, Codable {
    package let description: String
    package let host: String
    package let path: String
    package let queued: Int
    package let served: Int
}
