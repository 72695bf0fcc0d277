import Foundation

/// The list of requests a mock or a logger received, in order, with what each got back — one
/// type for every transport, behind one lock. Its owner's ``Journaling`` API reads it.
///
/// Requests are numbered from 1; ``clear()`` starts the numbering again, and outcomes that
/// arrive for requests recorded before a clear are dropped instead of landing on a newer entry.
public final class RequestJournal: Sendable {
    private struct State {
        var entries: [RecordedRequest] = []
        var generation = 0
        var redaction: Redaction = .standard
    }

    private let state = Locked(State())

    package init() {}

    /// Records a request and returns where its outcome goes.
    package func append(_ request: RecordedRequest, started: Date, cassette: Cassette? = nil) -> ExchangeRecorder {
        state.withLock { state in
            // Appended, then numbered in place: no copy of the entry.
            state.entries.append(request)
            let sequence = state.entries.count
            state.entries[sequence - 1].sequence = sequence
            return ExchangeRecorder(journal: self, generation: state.generation, sequence: sequence, started: started, cassette: cassette)
        }
    }

    /// Records a request as it arrived.
    package func append(_ request: IncomingRequest, at date: Date) -> ExchangeRecorder {
        append(RecordedRequest(sequence: 0, request: request, date: date), started: date)
    }

    /// Stores what was delivered for entry `sequence` of `generation`; returns the completed entry.
    @discardableResult
    fileprivate func record(_ response: RecordedResponse, generation: Int, sequence: Int) -> RecordedRequest? {
        state.withLock { state in
            guard state.generation == generation, state.entries.indices.contains(sequence - 1) else { return nil }
            state.entries[sequence - 1].response = response
            return state.entries[sequence - 1]
        }
    }

    /// Every request, in order.
    package var all: [RecordedRequest] {
        state.withLock { $0.entries }
    }

    /// Forgets every request.
    package func clear() {
        state.withLock { state in
            state.entries.removeAll()
            state.generation += 1
        }
    }

    /// How credentials are shown in messages, logs and exports.
    package var redaction: Redaction {
        get { state.withLock { $0.redaction } }
        set { state.withLock { $0.redaction = newValue } }
    }
}

/// Where a transport reports what became of one request: the response delivered, the failure,
/// or the fault acted out.
package struct ExchangeRecorder: Sendable {
    private let journal: RequestJournal
    private let generation: Int
    /// The request's number in the journal.
    package let sequence: Int
    /// When the request reached the mock.
    package let started: Date
    /// Where a forwarded exchange is recorded, when a cassette records it.
    private let cassette: Cassette?

    fileprivate init(journal: RequestJournal, generation: Int, sequence: Int, started: Date, cassette: Cassette?) {
        self.journal = journal
        self.generation = generation
        self.sequence = sequence
        self.started = started
        self.cassette = cassette
    }

    /// Records the outcome.
    package func record(_ outcome: RecordedResponse.Outcome, headers: [String: String] = [:], body: Data = Data()) {
        let entry = journal.record(
            RecordedResponse(outcome: outcome, headers: headers, body: body, duration: Date().timeIntervalSince(started)),
            generation: generation,
            sequence: sequence
        )
        if let cassette, let entry {
            cassette.record(entry)
        }
    }
}
