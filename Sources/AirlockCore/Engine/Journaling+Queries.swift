import AirlockBase
import Foundation

extension Journaling {
    /// Every request received, matched or not, in order: method, URL, headers, the complete body,
    /// when, which stub answered, and what was delivered.
    ///
    /// ```swift
    /// let sent = mock.requests.last
    /// #expect(sent?.method == "POST")
    /// #expect(sent?.bodyText == #"{"name":"Alice"}"#)
    /// ```
    ///
    /// Values are recorded as sent; use ``redactedRequests`` to show them to people.
    public var requests: [RecordedRequest] {
        journal.all
    }

    /// The requests that satisfy a matcher, in order.
    /// - Parameter matcher: The condition, such as `.post && .path("/users")`.
    /// - Returns: The matching requests.
    public func requests(matching matcher: RequestMatcher) -> [RecordedRequest] {
        requests.filter(matcher.matches)
    }

    /// The requests no stub answered (the unmocked policy did, or, for a logger, all of them), in order.
    public var unmatchedRequests: [RecordedRequest] {
        requests.filter { !$0.wasMatched }
    }

    /// ``requests`` with credentials hidden according to ``redaction``.
    public var redactedRequests: [RecordedRequest] {
        let redaction = self.redaction
        return requests.map(redaction.apply)
    }

    /// How much of the traffic the journal keeps. Defaults to ``JournalCapacity/unlimited``
    /// (`airlock serve` uses ``JournalCapacity/server``). When older entries are dropped,
    /// ``requests`` and verification cover the entries kept, and say how many were dropped.
    public var journalCapacity: JournalCapacity {
        get { journal.capacity }
        set { journal.capacity = newValue }
    }

    /// How many requests were received since the journal was last cleared, kept or not.
    public var requestCount: Int {
        journal.counts.seen
    }

    /// How many of the oldest requests were dropped to stay within ``journalCapacity``.
    public var droppedRequestCount: Int {
        journal.counts.dropped
    }

    /// Forgets the recorded requests. Stubs and queues stay.
    public func clearRequests() {
        journal.clear()
    }

    /// How credentials are shown in messages, logs, ``redactedRequests`` and HAR exports.
    /// Defaults to ``Redaction/standard``.
    public var redaction: Redaction {
        get { journal.redaction }
        set { journal.redaction = newValue }
    }
}
