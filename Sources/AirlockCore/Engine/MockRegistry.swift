import AirlockBase
import Foundation

/// The stubs of one mock, their response queues, its unmocked policy and its journal, behind one
/// lock: the engine that every transport of the mock asks.
///
/// Not API: it is `@_spi(AirlockTransport)`, for the package's own transports. You do not use a
/// registry directly: ``Mocking`` gives `HTTPMock` and `MockServer` the API over
/// it, and two transports serve the same stubs when they share one (`MockServer(mock: httpMock)`).
/// Registering is O(1) per stub and matching a request walks tries keyed by the request's own host
/// labels and path segments, so neither grows with the number of stubs.
@_spi(AirlockTransport)
public final class MockRegistry: Sendable {
    let state = Locked(State())
    private let reporter = Locked<(@Sendable (String) -> Void)?>(nil)

    /// Every request received, in order, with its outcome.
    package let journal = RequestJournal()

    /// How this registry's owner writes stubs, for messages made outside a transport
    /// (verification failures, ``Mocking/unmatchedMessage(for:)``).
    package let snippetStyle: UnmatchedDiagnosis.SnippetStyle

    /// Creates an empty registry.
    /// - Parameter snippetStyle: How its owner's users write stubs.
    package init(snippetStyle: UnmatchedDiagnosis.SnippetStyle) {
        self.snippetStyle = snippetStyle
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

    /// Hands messages to the reporter, if there is one (see ``report(to:)``).
    func report(_ messages: [String]) {
        if !messages.isEmpty, let report = reporter.withLock({ $0 }) {
            messages.forEach(report)
        }
    }

    /// Decides everything about one request for a transport: finds the most specific stub and
    /// takes its next response, or applies the unmocked policy; records the request in the
    /// journal; and returns the exchange's state machine, ready for the transport to start.
    ///
    /// Nothing slow or written by the user runs under the lock. When the most specific stubs have
    /// `requiring:` matchers, the lock is released, the matchers are asked (most specific first,
    /// each at most once), and the response is taken under the lock again — at once if nothing
    /// changed meanwhile, else after matching again with the answers so far. The unmatched-request
    /// diagnosis is built from a snapshot taken under the lock.
    // Specialized for the two transports (a type check at entry picks the specialized body): a
    // `package` function is never specialized by its callers in other modules, and the generic
    // body looked up type metadata on every request.
    @_specialize(where Kind == SocketTransport)
    @_specialize(where Kind == URLSessionTransport)
    package func resolve<Kind>(_ request: IncomingRequest, for transport: Transport<Kind>, at date: Date = Date()) -> ExchangeStateMachine<Kind> {
        var conditions = ConditionResults()
        while true {
            switch state.withLock({ $0.decide(request, at: date, journal: journal, conditions: conditions) }) {
            case .decided(let decision):
                return ExchangeStateMachine(decision, request: request, transport: transport, redaction: journal.redaction)
            case .evaluate(let pending):
                conditions.evaluate(pending, request: request, date: date)
            }
        }
    }

    /// How many trie steps the last request's match took: at most the patterns' nodes times the
    /// request's segments, however many `**` the patterns have.
    package var lastMatchSteps: Int {
        state.withLock { $0.lastMatchSteps }
    }

    /// A scenario's current state.
    package func scenarioState(_ name: String) -> String {
        state.withLock { $0.state(of: name) }
    }

    /// Every scenario a stub names (or that was set), with its current state.
    package var scenarioStates: [String: String] {
        state.withLock { state in
            var states: [String: String] = [:]
            for name in state.scenarioNames.union(state.scenarios.keys) { states[name] = state.state(of: name) }
            return states
        }
    }

    /// Every state each scenario's stubs need or move to, `Started` first.
    package var scenarioPossibleStates: [String: [String]] {
        state.withLock { state in
            var states: [String: [String]] = [:]
            for route in state.routes where !route.cleared {
                guard let step = route.scenario else { continue }
                var known = states[step.name] ?? [ScenarioStep.started]
                for name in [step.requiredState, step.newState].compactMap({ $0 }) where !known.contains(name) {
                    known.append(name)
                }
                states[step.name] = known
            }
            return states
        }
    }

    /// Moves a scenario to a state.
    package func setScenario(_ name: String, to newState: String) {
        state.withLock { $0.setScenario(name, to: newState) }
    }

    /// Returns every scenario to its start.
    package func resetScenarios() {
        state.withLock { $0.resetScenarios() }
    }

    /// The unmatched-request diagnosis for a recorded request.
    package func diagnosis(for request: RecordedRequest) -> UnmatchedDiagnosis {
        let snapshot = state.withLock { $0.diagnosisSnapshot(for: request) }
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
            state.routes.filter { !$0.cleared }.map {
                StubSummary(description: redaction.text($0.stub.description), host: $0.host.source, path: $0.path.source, queued: $0.queue.count, served: $0.served)
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
