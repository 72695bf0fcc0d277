import AirlockBase

extension MockRegistry {
    /// The unmatched-request diagnosis's sorted path indexes — every route by its path text, and
    /// by host and then path text — behind a lock of their own (``MockRegistry/neighbours``).
    ///
    /// An unmatched request looks for its neighbours here, holding only this lock: the
    /// registry's, under which matched requests take their responses, is then held only to copy
    /// the few routes found. (Under the registry's lock, 10,000 unmatched requests against 100,000
    /// routes made the matched requests' p99 3.5× the control's: each held it for the binary
    /// searches, the walk outward and the set of ids, about 7 µs.) The registry tells it of every
    /// route added and cleared, under its own lock and then this one, never the other way round.
    struct NeighbourIndex: Sendable {
        private var byPath = SortedPathIndex()
        private var byHostAndPath = SortedPathIndex()
        /// The routes cleared since the last reset: skipped, and dropped at the next settle.
        private var cleared = Set<Int>()
        /// The registry's epoch the route ids belong to (``MockRegistry/State/epoch``).
        private(set) var epoch = 0

        /// Adds a route, registered with `path` under the host pattern of `pathTrie`.
        mutating func append(id: Int, pathTrie: Int, path: String) {
            byPath.append(id: id, key: 0, path: path)
            byHostAndPath.append(id: id, key: pathTrie, path: path)
        }

        /// Notes routes that serve nothing more.
        mutating func clear(_ ids: some Sequence<Int>) {
            cleared.formUnion(ids)
            byPath.noteRemovals()
            byHostAndPath.noteRemovals()
        }

        /// Forgets every route: the registry removed them all and is now at `epoch`.
        mutating func reset(epoch: Int) {
            self = NeighbourIndex()
            self.epoch = epoch
        }

        /// The routes an unmatched-request diagnosis considers (see ``MockRegistry/DiagnosisSnapshot``),
        /// in registration order, with the epoch they belong to: those `nearby` found through a
        /// snapshot's tries (the most specific by `routes`' ranks, when there are many), and the
        /// neighbours in the sorted path indexes, so that the cost follows the request and the
        /// few stubs near it, not the number of stubs.
        mutating func nearbyRoutes(path: String, nearby: NearbyCandidates, routes: [Route]) -> (epoch: Int, ids: [Int]) {
            typealias Snapshot = MockRegistry.DiagnosisSnapshot
            let sameEpoch = nearby.epoch == epoch
            let cleared = self.cleared
            let isLive = { (id: Int) in !cleared.contains(id) }
            var ids = Set<Int>()
            var matching: [Int] = []
            if sameEpoch {
                for id in nearby.matching where isLive(id) && ids.insert(id).inserted {
                    matching.append(id)
                }
            }
            if matching.count > Snapshot.matchingLimit {
                matching.sort { routes[$0].rank < routes[$1].rank }
                ids = Set(matching.prefix(Snapshot.matchingLimit))
            }
            byPath.settle(isLive: isLive)
            byHostAndPath.settle(isLive: isLive)
            if sameEpoch {
                for pathTrie in nearby.hosts.prefix(Snapshot.neighbourHosts) {
                    ids.formUnion(byHostAndPath.nearest(to: path, key: pathTrie, count: Snapshot.neighbourCount, isLive: isLive))
                }
            }
            ids.formUnion(byPath.nearest(to: path, key: 0, count: Snapshot.neighbourCount, isLive: isLive))
            return (epoch, ids.sorted())
        }
    }
}
