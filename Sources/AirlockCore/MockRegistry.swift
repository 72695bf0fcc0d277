import Foundation
import Synchronization

/// The stubs of one mock instance, their response queues and its unmocked policy, behind one lock.
///
/// Every transport asks the same registry: the `URLProtocol` adapter and, later, a loopback server.
/// Registering is O(1) per stub and matching a request walks tries keyed by the request's own host
/// labels and path segments, so neither grows with the number of stubs.
package final class MockRegistry: Sendable {
    private let state = Mutex(State())

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
    /// unmocked policy wants.
    package func respond(to request: IncomingRequest) -> MatchOutcome {
        state.withLock { $0.respond(to: request) }
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
