import AirlockBase
import Foundation

extension MockRegistry {
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
        /// The id a format gave the stub (``Registration/stubID``): kept here, out of line, so that
        /// a hit reads it with the route, without a lookup.
        let stubID: UUID?
        /// The same, as the stub's description shows them: made once, shared by every hit's
        /// description.
        let details: StubDescription.Details?

        private init(query: QueryConstraint?, requirement: RequestMatcher?, scenario: ScenarioStep?, stubID: UUID?) {
            self.query = query
            self.requirement = requirement
            self.scenario = scenario
            self.stubID = stubID
            details = .make(query: query, requirement: requirement?.template, scenario: scenario, stubID: stubID)
        }

        /// The conditions, or nil when there are none.
        static func make(query: QueryConstraint?, requirement: RequestMatcher?, scenario: ScenarioStep?, stubID: UUID? = nil) -> RouteConditions? {
            query == nil && requirement == nil && scenario == nil && stubID == nil
                ? nil : RouteConditions(query: query, requirement: requirement, scenario: scenario, stubID: stubID)
        }
    }

    /// A registered stub as the route index keeps it: what matching reads, never changed once
    /// added. What a hit changes (its queue, its served count) is in ``RouteTable``.
    struct Route: Sendable {
        /// The patterns as parsed when registered: nothing parses a route's text again.
        let sharedHost: SharedPattern
        let path: Pattern
        let conditions: RouteConditions?
        /// The path trie its host pattern leads to.
        let pathTrie: Int
        let rank: Rank

        var host: Pattern { sharedHost.pattern }
        var query: QueryConstraint? { conditions?.query }
        var requirement: RequestMatcher? { conditions?.requirement }
        var scenario: ScenarioStep? { conditions?.scenario }

        var stub: StubDescription {
            StubDescription(host: host.source, path: path.source, details: conditions?.details)
        }
    }

    /// How specific a stub is; lower ranks win. Exact patterns have no wildcards and so beat any
    /// wildcard; fewer wildcards (`**` counting two) beat more; longer literal text breaks ties;
    /// then a stub with a `requiring:` matcher beats one without; then a query constraint beats
    /// none (an exact one beats `contains`, more parameters beat fewer); then the stub registered
    /// first wins.
    ///
    /// A stub with an ordering key a format supplied (``Registration/Precedence/key(_:)``) ranks
    /// by it instead: its key first, where stubs ranked by specificity count as key 0 and come
    /// before stubs of the same key, then the stub added last.
    struct Rank: Comparable, Sendable {
        // Narrow fields: every route keeps its rank (24 bytes instead of 48 at 100,000 stubs).
        let key: Int32
        let wildcards: Int32
        let literalLength: Int32
        let queryCount: Int32
        /// Registration order; negated for ordering keys, where the newest wins.
        let order: Int32
        /// 0 for stubs ranked by specificity, 1 for ordering keys.
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
            case .key(let key):
                // Only the key and the order count, not the patterns' specificity.
                self.key = Int32(clamping: key)
                precedenceClass = 1
                wildcards = 0
                literalLength = 0
                requirementClass = 0
                queryClass = 0
                queryCount = 0
                self.order = -Int32(clamping: order)
                return
            case .specificity:
                key = 0
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
            if lhs.key != rhs.key { return lhs.key < rhs.key }
            if lhs.precedenceClass != rhs.precedenceClass { return lhs.precedenceClass < rhs.precedenceClass }
            return (lhs.wildcards, -lhs.literalLength, lhs.requirementClass, lhs.queryClass, -lhs.queryCount, lhs.order)
                < (rhs.wildcards, -rhs.literalLength, rhs.requirementClass, rhs.queryClass, -rhs.queryCount, rhs.order)
        }
    }
}
