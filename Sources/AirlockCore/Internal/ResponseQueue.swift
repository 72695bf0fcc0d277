/// One stub's FIFO of responses, honouring each response's lifetime.
struct ResponseQueue: Sendable {
    private struct Entry: Sendable {
        let response: MockResponse
        /// Uses left; `nil` for an eternal response.
        var usesLeft: Int?
    }

    private var entries: [Entry] = []
    private var head = 0

    var isEmpty: Bool { head == entries.count }
    var count: Int { entries.count - head }
    /// Whether an eternal response is queued, so that anything behind it is never served.
    var hasEternal: Bool { entries[head...].contains { $0.usesLeft == nil } }

    mutating func append(_ response: MockResponse) {
        entries.append(Entry(response: response, usesLeft: response.lifetime.uses))
    }

    /// The response to serve now; it leaves the queue when its uses run out.
    mutating func next() -> MockResponse? {
        guard head < entries.count else { return nil }
        let response = entries[head].response
        if let uses = entries[head].usesLeft {
            if uses <= 1 {
                head += 1
                compactIfNeeded()
            } else {
                entries[head].usesLeft = uses - 1
            }
        }
        return response
    }

    private mutating func compactIfNeeded() {
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
