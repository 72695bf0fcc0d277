import AirlockBase
import Foundation

extension MockRegistry {
    /// What ``State/decide(_:at:journal:conditions:)`` found under the lock. Anything slow or
    /// written by the user — a stub's `requiring:` matcher, the unmatched-request diagnosis — is
    /// left for ``MockRegistry/resolve(_:for:at:)`` to do after unlocking.
    enum Outcome {
        /// Decided: what the transport is to do, planned from it once unlocked.
        case decided(Decision)
        /// Stubs whose `requiring:` matchers must be asked before anything can be decided.
        case evaluate(PendingMatch)
    }

    /// What matching found among the routes.
    enum RouteChoice {
        /// The best route, or none.
        case decided(Int?)
        /// Routes whose matchers must be asked first.
        case undecided(PendingMatch)
    }

    /// Routes that would answer a request if their `requiring:` matchers accept it, most specific
    /// first, as the registry held them at `generation`.
    struct PendingMatch: Sendable {
        let generation: Int
        let epoch: Int
        let candidates: [(id: Int, requirement: RequestMatcher)]
        /// The best route that needs no asking, ranked below every candidate; `nil` if none.
        let fallback: Int?
    }

    /// The answers of `requiring:` matchers for one request, gathered outside the lock across the
    /// rounds of one ``MockRegistry/resolve(_:for:at:)``. Each matcher is asked at most once per
    /// request, so that a registry that keeps changing meanwhile cannot make a request retry forever.
    struct ConditionResults {
        /// The ``State/epoch`` the route ids below belong to.
        private(set) var epoch = 0
        /// Whether each asked route's matcher accepts the request.
        private(set) var results: [Int: Bool] = [:]
        /// The journal entry the matchers saw, to be recorded as it is.
        private(set) var recorded: RecordedRequest?
        /// The candidates of the last round.
        private(set) var pending: PendingMatch?

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
            self.pending = pending
        }

        /// The route to take from `pending` when nothing changed since: the first candidate whose
        /// matcher accepted the request, else the fallback; `nil` when neither exists.
        func choice(in pending: PendingMatch) -> Int? {
            pending.candidates.first { results[$0.id] == true }?.id ?? pending.fallback
        }
    }
}
