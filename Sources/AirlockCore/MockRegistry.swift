import Foundation

/// The stubs of one mock instance, their response queues and its unmocked policy, behind one lock.
///
/// Every transport asks the same registry: the `URLProtocol` adapter and, later, a loopback server.
/// Registering is O(1) per stub and matching a request walks tries keyed by the request's own host
/// labels and path segments, so neither grows with the number of stubs.
package final class MockRegistry: Sendable {
    private let state = Locked(State())

    package init() {}

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
    /// stubs are left out and returned (and printed to standard error).
    @discardableResult
    package func register(_ registrations: [Registration]) -> [RegistrationError] {
        var errors: [RegistrationError] = []
        var warnings: [String] = []
        state.withLock { state in
            for registration in registrations {
                do throws(RegistrationError) {
                    if let warning = try state.register(registration) {
                        warnings.append(warning)
                    }
                } catch {
                    errors.append(error)
                }
            }
            state.registrationErrors.append(contentsOf: errors)
        }
        for message in errors.map(\.description) + warnings {
            Diagnostics.print(message)
        }
        return errors
    }

    /// Finds the most specific stub for a request and takes its next response, or says what the
    /// unmocked policy wants. Either way the request goes into the journal.
    package func respond(to request: IncomingRequest, at date: Date = Date()) -> MatchOutcome {
        state.withLock { $0.respond(to: request, at: date) }
    }

    /// Stores what was delivered for the journal entry `sequence`.
    package func record(_ response: RecordedResponse, forSequence sequence: Int) {
        state.withLock { $0.record(response, forSequence: sequence) }
    }

    /// Every request received, in order.
    package var journal: [RecordedRequest] {
        state.withLock { $0.journal }
    }

    /// The unmatched-request diagnostic for a recorded request, as the 404 body shows it.
    package func diagnostic(for request: RecordedRequest) -> String {
        state.withLock { $0.unmatchedMessage(for: request) }
    }

    /// Empties the journal.
    package func clearJournal() {
        state.withLock { $0.journal.removeAll() }
    }

    /// Stubs registered but never used (and not cleared), described.
    package var unusedStubs: [String] {
        state.withLock { $0.unusedStubs }
    }

    /// Every registered stub that was not cleared, with its queue size and use count.
    package var stubSummaries: [StubSummary] {
        state.withLock { state in
            state.routes.filter { !$0.cleared }.map {
                StubSummary(description: $0.stub.description, host: $0.key.host, path: $0.key.path, queued: $0.queue.count, served: $0.served)
            }
        }
    }

    /// How credentials are shown in messages and exports.
    package var redaction: Redaction {
        get { state.withLock { $0.redaction } }
        set { state.withLock { $0.redaction = newValue } }
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
