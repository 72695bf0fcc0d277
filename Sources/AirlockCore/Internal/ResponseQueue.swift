/// One stub's FIFO of responses, honouring each response's lifetime.
struct ResponseQueue: Sendable {
    private var items: [MockResponse] = []
    /// Uses left for each item; `nil` for an eternal one.
    private var usesLeft: [Int?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }
    /// Whether an eternal response is queued, so that anything behind it is never served.
    private(set) var hasEternal = false

    mutating func append(_ response: MockResponse) {
        items.append(response)
        usesLeft.append(response.lifetime.uses)
        if response.lifetime == .eternal { hasEternal = true }
    }

    /// The response to serve now; it leaves the queue when its uses run out.
    mutating func next() -> MockResponse? {
        guard head < items.count else { return nil }
        let response = items[head]
        if let uses = usesLeft[head] {
            if uses <= 1 {
                head += 1
                compactIfNeeded()
            } else {
                usesLeft[head] = uses - 1
            }
        }
        return response
    }

    private mutating func compactIfNeeded() {
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            usesLeft.removeAll(keepingCapacity: true)
            head = 0
            hasEternal = false
        } else if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            usesLeft.removeFirst(head)
            head = 0
        }
    }
}
