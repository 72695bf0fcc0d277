import AirlockBase
import Foundation

extension MockRegistry {
    /// Routes that would answer a request if their `requiring:` matchers accept it, most specific
    /// first, as found in the registry's ``State/epoch`` `epoch`.
    struct PendingMatch: Sendable {
        let epoch: Int
        let candidates: [(id: Int, requirement: RequestMatcher)]
    }

    /// The answers of `requiring:` matchers for one request, gathered outside the lock across the
    /// rounds of one ``MockRegistry/resolve(_:for:at:)``. Each matcher is asked at most once per
    /// request, so that a registry that keeps changing meanwhile cannot make a request retry
    /// forever; each round matches again under the lock with the answers so far, so a change made
    /// meanwhile (a stub registered, a response taken, a scenario moved) counts.
    struct ConditionResults {
        /// The ``State/epoch`` the route ids below belong to.
        private(set) var epoch = 0
        /// Whether each asked route's matcher accepts the request.
        private(set) var results: [Int: Bool] = [:]
        /// The journal entry the matchers saw, to be recorded as it is.
        private(set) var recorded: RecordedRequest?

        /// The answer of route `id`'s matcher, if it was asked in this epoch.
        func result(for id: Int, epoch: Int) -> Bool? {
            epoch == self.epoch && !results.isEmpty ? results[id] : nil
        }

        /// Asks the candidates' matchers, most specific first, until one accepts the request.
        /// Runs outside the registry's lock: a matcher may use the mock (read its journal or
        /// unused stubs, register a stub) without deadlocking.
        mutating func evaluate(_ pending: PendingMatch, request: IncomingRequest, date: Date) {
            if pending.epoch != epoch {
                epoch = pending.epoch
                results = [:]
            }
            let entry = recorded ?? RecordedRequest(sequence: 0, request: request, date: date)
            recorded = entry
            for candidate in pending.candidates {
                if let known = results[candidate.id] {
                    if known { break }
                    continue
                }
                let accepted = candidate.requirement.matches(entry)
                results[candidate.id] = accepted
                if accepted { break }
            }
        }
    }
}
