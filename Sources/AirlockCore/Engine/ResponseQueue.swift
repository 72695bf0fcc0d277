import AirlockBase

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
    /// Whether an eternal response is queued, so that anything behind it is never served. An
    /// eternal response never leaves its queue, so this is kept as it is appended, not searched
    /// for: appending stays O(1) however long the queue.
    private(set) var hasEternal = false

    mutating func append(_ response: MockResponse) {
        let uses = response.lifetime.uses
        if uses == nil { hasEternal = true }
        entries.append(Entry(response: response, usesLeft: uses))
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
