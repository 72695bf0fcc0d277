import AirlockBase
import Foundation
import HTTPTypes

/// The list of requests a mock or a logger received, in order, with what each got back — one
/// type for every transport, behind one lock. Its owner's ``Journaling`` API reads it.
///
/// Requests are numbered from 1; ``Journaling/clearRequests()`` starts the numbering again, and outcomes that
/// arrive for requests recorded before a clear are dropped instead of landing on a newer entry.
@_spi(AirlockTransport)
public final class RequestJournal: Sendable {
    private struct State {
        /// The kept entries, oldest first, from `head` on (the slots before it are dropped).
        var entries: [RecordedRequest] = []
        /// The bytes each entry counts (``RecordedRequest/journalBytes``), by the same index:
        /// dropping the oldest entry then reads one number, not the entry (long out of the cache).
        var sizes: [Int] = []
        var head = 0
        /// The sequence number of `entries[head]`.
        var firstSequence = 1
        /// Every request seen since the last clear, kept or not.
        var seen = 0
        /// The bytes the kept entries hold (``RecordedRequest/journalBytes``): bodies both ways,
        /// streams' parts, WebSocket frames.
        var bytes = 0
        var generation = 0
        var redaction: Redaction = .standard
        var capacity: JournalCapacity = .unlimited
        var observers: [any ExchangeObserver] = []

        var kept: Int { entries.count - head }
        var dropped: Int { seen - kept }

        /// The index of entry `sequence` of `generation`, if it is still kept.
        func index(of sequence: Int, generation: Int) -> Int? {
            let index = head + sequence - firstSequence
            guard self.generation == generation, sequence >= firstSequence, entries.indices.contains(index) else { return nil }
            return index
        }

        /// Drops the oldest entries while a limit is passed; the newest always stays. Returns
        /// them, to be released once unlocked: freeing an entry (its storage, its bodies) is work
        /// the lock need not be held for. A journal at its capacity drops one per request.
        mutating func dropOldestOverCapacity() -> DroppedEntries {
            var dropped = DroppedEntries()
            while kept > 1, kept > capacity.entries || capacity.bytes.map({ bytes > $0 }) == true {
                bytes -= sizes[head]
                let entry = entries[head]
                entries[head] = RecordedRequest.dropped
                if dropped.first == nil { dropped.first = entry } else { dropped.more.append(entry) }
                head += 1
                firstSequence += 1
            }
            if head >= 1024, head * 2 >= entries.count {
                entries.removeFirst(head)
                sizes.removeFirst(head)
                head = 0
            }
            return dropped
        }

        /// Sets the bytes entry `index` counts, keeping the total.
        mutating func resize(_ index: Int, to size: Int) {
            bytes += size - sizes[index]
            sizes[index] = size
        }
    }

    /// Entries dropped under the lock, released when this goes (after unlocking).
    private struct DroppedEntries {
        /// Usually the only one.
        var first: RecordedRequest?
        var more: [RecordedRequest] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Records a request and returns where its outcome goes. The entry is made only when it is
    /// kept (or a cassette records it): a journal that keeps nothing only counts.
    package func append(_ request: () -> RecordedRequest, started: Date, recording: (any UnmatchedRequestHandler)? = nil) -> ExchangeRecorder {
        let (recorder, dropped) = state.withLock { state -> (ExchangeRecorder, DroppedEntries) in
            state.seen += 1
            let sequence = state.seen
            let generation = state.generation
            let capacity = state.capacity
            let observers = state.observers
            func recorder(recordedRequest: RecordedRequest?, observed: RecordedRequest?) -> ExchangeRecorder {
                ExchangeRecorder(
                    journal: self, generation: generation, sequence: sequence, started: started, recording: recordedRequest == nil ? nil : recording,
                    request: recordedRequest, observed: observed.map { (request: $0, observers: observers) }
                )
            }
            guard capacity.entries > 0 || recording != nil || !observers.isEmpty else {
                state.firstSequence = sequence + 1
                return (recorder(recordedRequest: nil, observed: nil), DroppedEntries())
            }
            // A cassette and the observers need the request whatever the journal keeps.
            var numbered = request()
            numbered.sequence = sequence
            let keptForRecording = recording == nil ? nil : numbered
            let observed = observers.isEmpty ? nil : numbered
            guard capacity.entries > 0 else {
                state.firstSequence = sequence + 1
                return (recorder(recordedRequest: keptForRecording, observed: observed), DroppedEntries())
            }
            if let limit = capacity.bodyBytes, let body = numbered.body, body.count > limit {
                numbered.truncateBody(to: limit)
            }
            let size = numbered.journalBytes
            state.bytes += size
            state.entries.append(numbered)
            state.sizes.append(size)
            // Oldest entries go first when a limit is passed; the newest always stays.
            return (recorder(recordedRequest: keptForRecording, observed: observed), state.dropOldestOverCapacity())
        }
        withExtendedLifetime(dropped) {}
        return recorder
    }

    /// Records a request as it arrived.
    package func append(_ request: IncomingRequest, at date: Date) -> ExchangeRecorder {
        append({ RecordedRequest(sequence: 0, request: request, date: date) }, started: date)
    }

    /// Stores what was delivered for entry `sequence` of `generation`, if it is still kept.
    fileprivate func record(_ response: RecordedResponse, operationID: String?, problems: [String], generation: Int, sequence: Int) {
        let dropped = state.withLock { state -> DroppedEntries in
            guard let index = state.index(of: sequence, generation: generation) else { return DroppedEntries() }
            state.entries[index].response = response
            if let operationID { state.entries[index].operationID = operationID }
            if !problems.isEmpty { state.entries[index].problems = problems }
            // The response's body (and a stream's parts) count toward the capacity too.
            state.resize(index, to: state.entries[index].journalBytes)
            return state.dropOldestOverCapacity()
        }
        withExtendedLifetime(dropped) {}
    }

    /// Adds a WebSocket frame to entry `sequence` of `generation`, if it is still kept: up to
    /// ``JournalCapacity/bodyBytes`` of frames per entry (later ones are counted in
    /// ``RecordedRequest/webSocketFramesDropped``), each counted toward ``JournalCapacity/bytes``.
    fileprivate func record(_ frame: RecordedWebSocketFrame, generation: Int, sequence: Int) {
        let (observers, dropped) = state.withLock { state -> ([any ExchangeObserver], DroppedEntries) in
            guard let index = state.index(of: sequence, generation: generation) else { return ([], DroppedEntries()) }
            guard state.entries[index].appendWebSocketFrame(frame, limit: state.capacity.bodyBytes) else { return ([], DroppedEntries()) }
            state.resize(index, to: state.sizes[index] + frame.size)
            return (state.observers, state.dropOldestOverCapacity())
        }
        withExtendedLifetime(dropped) {}
        for observer in observers {
            observer.webSocketFrameRecorded(sequence: sequence)
        }
    }

    /// Adds what became of a webhook to entry `sequence` of `generation`, if it is still kept,
    /// and tells the observers (the traffic page).
    fileprivate func record(_ webhook: RecordedWebhook, generation: Int, sequence: Int) {
        let (entry, observers) = state.withLock { state -> (RecordedRequest?, [any ExchangeObserver]) in
            guard let index = state.index(of: sequence, generation: generation) else { return (nil, []) }
            state.entries[index].webhooks.append(webhook)
            return (state.entries[index], state.observers)
        }
        guard let entry else { return }
        let redaction = redaction
        for observer in observers {
            observer.webhookRecorded(entry, redaction: redaction)
        }
    }

    /// Adds an observer that looks at each exchange recorded from now on, when it ends.
    package func addObserver(_ observer: any ExchangeObserver) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Removes an observer added with ``addObserver(_:)``; exchanges under way still reach it.
    package func removeObserver(_ observer: any ExchangeObserver) {
        state.withLock { $0.observers.removeAll { $0 === observer } }
    }

    /// Every request kept, in order.
    package var all: [RecordedRequest] {
        state.withLock { Array($0.entries[$0.head...]) }
    }

    /// The entry numbered `sequence`, if the journal still keeps it.
    package func entry(sequence: Int) -> RecordedRequest? {
        state.withLock { state in
            let index = state.head + sequence - state.firstSequence
            guard sequence >= state.firstSequence, state.entries.indices.contains(index), index >= state.head else { return nil }
            let entry = state.entries[index]
            return entry.sequence == sequence ? entry : nil
        }
    }

    /// How many requests were seen since the last clear, and how many of the oldest were
    /// dropped to stay within ``capacity``.
    package var counts: (seen: Int, dropped: Int) {
        state.withLock { ($0.seen, $0.dropped) }
    }

    /// Forgets every request.
    package func clear() {
        state.withLock { state in
            state.entries.removeAll()
            state.sizes.removeAll()
            state.head = 0
            state.firstSequence = 1
            state.seen = 0
            state.bytes = 0
            state.generation += 1
        }
    }

    /// How credentials are shown in messages, logs and exports.
    package var redaction: Redaction {
        get { state.withLock { $0.redaction } }
        set { state.withLock { $0.redaction = newValue } }
    }

    /// How much the journal keeps.
    package var capacity: JournalCapacity {
        get { state.withLock { $0.capacity } }
        set { state.withLock { $0.capacity = newValue } }
    }
}

/// How much of the traffic a journal keeps: the newest entries up to a count and a total of bytes
/// (request and response bodies, streams' parts, WebSocket frames), each request body and each
/// WebSocket conversation up to a size. Counts of everything seen stay exact.
///
/// ```swift
/// mock.journalCapacity = .unlimited                                   // tests: the default
/// mock.journalCapacity = JournalCapacity(entries: 10_000, bytes: 64 << 20)
/// mock.journalCapacity = .off                                         // keep nothing, count only
/// ```
public struct JournalCapacity: Sendable, Hashable {
    /// The most entries kept; older ones are dropped first.
    public var entries: Int
    /// The most bytes kept across entries, if limited: request bodies, response bodies (a
    /// stream's parts counted apart from its body, since both are kept), and the messages and
    /// close reasons of WebSocket frames. Older entries are dropped first; the newest stays
    /// whatever its size.
    public var bytes: Int?
    /// The most bytes kept of one request body, if limited: a longer body keeps this prefix, its
    /// full length (``RecordedRequest/bodySize``) and a digest (``RecordedRequest/bodyDigest``).
    /// It also bounds the frames kept of one WebSocket conversation: the frames that come once
    /// it is reached are not kept, only counted (``RecordedRequest/webSocketFramesDropped``).
    /// Response bodies are kept whole (a relayed one is bounded by the server's body limit).
    public var bodyBytes: Int?

    /// A capacity.
    /// - Parameters:
    ///   - entries: The most entries kept (0 keeps none).
    ///   - bytes: The most bytes kept in all (bodies both ways, streams' parts, WebSocket
    ///     frames), or `nil` for no limit.
    ///   - bodyBytes: The most bytes kept of one request body and of one WebSocket
    ///     conversation's frames, or `nil` for no limit.
    public init(entries: Int, bytes: Int? = nil, bodyBytes: Int? = nil) {
        self.entries = max(0, entries)
        self.bytes = bytes
        self.bodyBytes = bodyBytes
    }

    /// Keep everything: the default for mocks in tests.
    public static let unlimited = JournalCapacity(entries: .max)
    /// Keep nothing, only count: for tests that never look at the journal.
    public static let off = JournalCapacity(entries: 0)
    /// What `airlock serve` keeps by default: 10,000 entries and 64 MiB in all (bodies both
    /// ways, streams' parts, WebSocket frames), 1 MiB per request body and per WebSocket
    /// conversation.
    public static let server = JournalCapacity(entries: 10_000, bytes: 64 << 20, bodyBytes: 1 << 20)
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
    private let recording: (any UnmatchedRequestHandler)?
    /// The request as it arrived, kept for the cassette whatever the journal keeps (one
    /// reference: a recorded request keeps its fields behind one).
    private let request: RecordedRequest?
    /// The request whole (before the journal cuts its body), and who looks at the exchange when
    /// it ends.
    private let observed: (request: RecordedRequest, observers: [any ExchangeObserver])?
    /// A transcoded request's: the response as it is kept, from the response as the wire had it
    /// (``Transcoding/record``).
    private var responseForm: (@Sendable (RecordedResponse) -> RecordedResponse)?

    /// The same recorder, keeping each response in the form `form` makes of it: the journal, the
    /// observers and a recording cassette get that form.
    package func keeping(responsesAs form: (@Sendable (RecordedResponse) -> RecordedResponse)?) -> ExchangeRecorder {
        var copy = self
        copy.responseForm = form
        return copy
    }

    fileprivate init(
        journal: RequestJournal, generation: Int, sequence: Int, started: Date, recording: (any UnmatchedRequestHandler)?, request: RecordedRequest?,
        observed: (request: RecordedRequest, observers: [any ExchangeObserver])?
    ) {
        self.journal = journal
        self.generation = generation
        self.sequence = sequence
        self.started = started
        self.recording = recording
        self.request = request
        self.observed = observed
    }

    /// Records the outcome.
    /// - Parameters:
    ///   - outcome: How the exchange ended.
    ///   - headers: The response's fields as delivered.
    ///   - body: The body as delivered.
    ///   - bodyIsEncoded: Whether `body` is still in the content coding the fields name (a
    ///     server relaying what it received); `false` when it was decoded or has no coding.
    ///   - stream: The body's parts and pauses, when it is a stream.
    ///   - trailers: The fields that followed the body.
    ///   - httpVersion: The protocol a real server answered over (``RecordedResponse/httpVersion``).
    ///   - holdsRecording: Whether a recording cassette waits for the rest of the exchange (a
    ///     relayed WebSocket's frames: ``recordConversation(_:frames:)`` hands it over when the
    ///     conversation ends); the journal has the outcome at once either way.
    /// - Returns: The response as recorded.
    @discardableResult
    package func record(
        _ outcome: RecordedResponse.Outcome, headers: HTTPFields = HTTPFields(), body: Data = Data(), bodyIsEncoded: Bool = false, stream: ResponseStream? = nil,
        trailers: HTTPFields = HTTPFields(), httpVersion: String? = nil, holdsRecording: Bool = false
    ) -> RecordedResponse {
        let wire = RecordedResponse(
            outcome: outcome, headers: headers, body: body, bodyIsEncoded: bodyIsEncoded, duration: Date().timeIntervalSince(started), stream: stream, trailers: trailers,
            httpVersion: httpVersion
        )
        let response = responseForm.map { $0(wire) } ?? wire
        // The observers look before the response goes out: a failure they report lands while
        // the client still waits for it.
        var operationID: String?
        var problems: [String] = []
        if let observed {
            let redaction = journal.redaction
            for observer in observed.observers {
                guard let observation = observer.exchangeEnded(observed.request, response: response, redaction: redaction) else { continue }
                if operationID == nil { operationID = observation.operationID }
                problems += observation.problems
            }
        }
        journal.record(response, operationID: operationID, problems: problems, generation: generation, sequence: sequence)
        if let observed {
            // Then, with the journal's entry complete, every observer sees the exchange with what
            // they all found.
            var seen = observed.request
            seen.response = response
            seen.operationID = operationID
            seen.problems = problems
            let redaction = journal.redaction
            for observer in observed.observers {
                observer.exchangeRecorded(seen, redaction: redaction)
            }
        }
        if !holdsRecording, let recording, var request {
            request.response = response
            request.operationID = operationID
            recording.record(request)
        }
        return response
    }

    /// Hands a relayed WebSocket's exchange to the recording cassette once the conversation has
    /// ended (or the server stops): the opening response, held back by
    /// ``record(_:headers:body:bodyIsEncoded:stream:holdsRecording:)``, with every frame.
    /// - Parameters:
    ///   - response: The opening response (`101`) as recorded.
    ///   - frames: The conversation's frames, both ways, in order.
    package func recordConversation(_ response: RecordedResponse, frames: [RecordedWebSocketFrame]) {
        guard let recording, var request else { return }
        request.response = response
        request.webSocketFrames = frames
        recording.record(request)
    }
}

extension ExchangeRecorder {
    /// Whether a cassette records this exchange (a relay keeps what it hands the cassette only
    /// then).
    package var isRecording: Bool { recording != nil && request != nil }

    /// Adds what became of a webhook the exchange's stub sent to its journal entry.
    package func record(_ webhook: RecordedWebhook) {
        journal.record(webhook, generation: generation, sequence: sequence)
    }

    /// Adds a frame of the WebSocket the request opened to its journal entry.
    package func record(_ frame: RecordedWebSocketFrame) {
        journal.record(frame, generation: generation, sequence: sequence)
    }

    /// The request as the journal recorded it, for a WebSocket's connection list.
    package func recordedRequest(_ incoming: IncomingRequest) -> RecordedRequest {
        RecordedRequest(sequence: sequence, request: incoming, date: started)
    }
}

/// Something that looks at each exchange a journal records, once it ends (before its response
/// goes out): the contract checks of `AirlockOpenAPI`.
package protocol ExchangeObserver: AnyObject, Sendable {
    /// Looks at a finished exchange.
    /// - Parameters:
    ///   - request: The request as it arrived, its body whole.
    ///   - response: What it got: a response, a failure or a fault.
    ///   - redaction: How the journal shows secrets.
    /// - Returns: What it found: the operation the request belongs to, which the journal keeps
    ///   with the entry (``RecordedRequest/operationID``), and problems with the exchange (a
    ///   contract's violations), which the journal keeps too; `nil` when it found nothing.
    func exchangeEnded(_ request: RecordedRequest, response: RecordedResponse, redaction: Redaction) -> ExchangeObservation?

    /// Sees the finished exchange once every observer has looked and the journal has its entry
    /// complete: the request with its response and what they found (its operation, its
    /// problems), its body whole. Does nothing unless the observer needs it (the traffic page's
    /// feed does).
    func exchangeRecorded(_ request: RecordedRequest, redaction: Redaction)

    /// Learns that the journal's entry `sequence` (a WebSocket's opening request) has a new
    /// frame. Does nothing unless the observer needs it.
    func webSocketFrameRecorded(sequence: Int)

    /// Sees the journal's entry again once a webhook its stub sent has ended (``RecordedRequest/webhooks``
    /// has it). Does nothing unless the observer needs it.
    func webhookRecorded(_ request: RecordedRequest, redaction: Redaction)
}

extension ExchangeObserver {
    package func exchangeRecorded(_ request: RecordedRequest, redaction: Redaction) {}
    package func webSocketFrameRecorded(sequence: Int) {}
    package func webhookRecorded(_ request: RecordedRequest, redaction: Redaction) {}
}

/// What an ``ExchangeObserver`` found in an exchange.
package struct ExchangeObservation: Sendable {
    /// The operation the request belongs to.
    package var operationID: String?
    /// What is wrong with the exchange, one line each (a contract violation with its pointer).
    package var problems: [String]

    package init(operationID: String?, problems: [String] = []) {
        self.operationID = operationID
        self.problems = problems
    }
}
