import Foundation

/// A list of recorded requests that transports append to: the journal of an `HTTPLogger`, kept
/// in the same `RecordedRequest` type as a mock's.
package final class RequestJournal: Sendable {
    private let entries = Locked<[RecordedRequest]>([])

    package init() {}

    /// Records a request and returns its sequence number.
    package func record(_ request: IncomingRequest, at date: Date) -> Int {
        entries.withLock { entries in
            entries.append(RecordedRequest(sequence: entries.count + 1, request: request, date: date))
            return entries.count
        }
    }

    /// Stores what was delivered for entry `sequence`.
    package func record(_ response: RecordedResponse, forSequence sequence: Int) {
        entries.withLock { entries in
            guard entries.indices.contains(sequence - 1) else { return }
            entries[sequence - 1].response = response
        }
    }

    /// Every request, in order.
    package var all: [RecordedRequest] {
        entries.withLock { $0 }
    }

    /// Forgets every request.
    package func clear() {
        entries.withLock { $0.removeAll() }
    }
}
