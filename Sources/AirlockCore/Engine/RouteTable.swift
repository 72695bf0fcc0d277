import AirlockBase

/// What a hit changes, per route: its queue of responses (with their lifetimes), how many it
/// served, whether it was cleared. Held under the registry's lock and touched only when a hit
/// takes a response, a stub is registered or removed; matching itself never reads it.
///
/// Indexed by route id, as ``RouteIndex`` numbers its routes.
struct RouteTable: Sendable {
    /// One route's changing part.
    struct Entry: Sendable {
        var queue = ResponseQueue()
        /// How many responses it has served.
        var served = 0
        /// Whether it was removed (by host, by source id): it serves nothing more and is no
        /// longer listed.
        var cleared = false
        /// Whether each response left unserved counts as unused (a cassette's).
        var reportsEachResponse = false
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }

    subscript(id: Int) -> Entry {
        entries[id]
    }

    /// Whether the route has a response queued.
    func hasResponses(_ id: Int) -> Bool {
        !entries[id].queue.isEmpty
    }

    /// Adds the entry of a route the index just added (ids are handed out in order).
    mutating func add(_ id: Int) {
        precondition(id == entries.count, "route \(id) added out of order")
        entries.append(Entry())
    }

    /// Queues responses on a route; whether one queued before is eternal (anything behind it is
    /// never served).
    mutating func append(_ responses: [MockResponse], to id: Int, reportsEachResponse: Bool) -> Bool {
        let wasEternal = entries[id].queue.hasEternal
        if reportsEachResponse { entries[id].reportsEachResponse = true }
        for response in responses {
            entries[id].queue.append(response)
        }
        return wasEternal
    }

    /// Takes the route's next response, counting it served; `nil` when its queue is empty.
    mutating func take(_ id: Int) -> MockResponse? {
        guard let response = entries[id].queue.next() else { return nil }
        entries[id].served += 1
        return response
    }

    /// Clears one route: it serves nothing more and is no longer listed.
    mutating func clear(_ id: Int) {
        entries[id].queue = ResponseQueue()
        entries[id].cleared = true
    }

    var queuedResponseCount: Int {
        entries.reduce(0) { $0 + $1.queue.count }
    }
}
