import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix

extension Cassette {
    /// Sends every recorded request to a live service over SwiftNIO (the client the server
    /// forwards with: one connection per request, `https` verified with the system's trust
    /// roots) and reports what drifted, as `Cassette.verify(against:options:send:)` does.
    ///
    /// Run it where the service is reachable, such as in a nightly job — never under Airgap:
    ///
    /// ```swift
    /// @Test func usersCassetteStillTrue() async throws {
    ///     let cassette = try Cassette(verifying: URL(fileURLWithPath: "Fixtures/users.har"))
    ///     let report = try await cassette.verify(against: URL(string: "https://staging.example.com")!)
    ///     #expect(!report.hasDrift && !report.hasUnverified, "\(report.table)")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: The live service's origin (and a path prefix, if any).
    ///   - options: What is compared, what is ignored, and where placeholders' values come from.
    ///   - timeout: How long each answer may take, in seconds: an entry whose answer takes longer
    ///     is reported as not verified, and a stream still open then (an event feed that never
    ///     ends) is compared as far as it came.
    /// - Returns: The report, one entry per entry of the file.
    /// - Throws: `CassetteError` when the file, a rule or the base URL cannot be used.
    public func verify(against baseURL: URL, options: DriftOptions = DriftOptions(), timeout: TimeInterval = 60) async throws(CassetteError) -> DriftReport {
        let forwarder = Forwarder(group: MultiThreadedEventLoopGroup.singleton)
        let seconds = timeout.isFinite && timeout > 0 ? min(timeout, ResponseLimits.maximumSeconds) : 60
        return try await verify(against: baseURL, options: options) { request in
            try await Self.send(request, with: forwarder, timeout: .nanoseconds(Int64(seconds * 1_000_000_000)))
        }
    }

    /// One request, its answer collected whole (a stream to its end).
    private static func send(_ request: LiveRequest, with forwarder: Forwarder, timeout: TimeAmount) async throws -> RecordedResponse {
        let started = Date()
        return try await withCheckedThrowingContinuation { continuation in
            // The forward's events arrive one at a time on its connection's event loop. A stream
            // (a body without a length) is kept with its parts and the time before each, as
            // `airlock record` keeps one, so that `--update` writes it as a recording would.
            let state = Locked(LiveAnswer(last: started))
            @Sendable func finish(_ result: Result<RecordedResponse, any Error>) {
                guard state.withLock({ state in defer { state.answered = true }; return !state.answered }) else { return }
                continuation.resume(with: result)
            }
            /// The stream as far as it came.
            @Sendable func finishStream() {
                let (head, parts) = state.withLock { ($0.head, $0.parts) }
                let body = parts.reduce(into: Data()) { $0.append($1.bytes) }
                finish(.success(Self.response(status: Int(head?.status.code ?? 0), headers: head?.headers ?? [:], body: body, parts: parts, since: started)))
            }
            let handle = forwarder.execute(
                method: HTTPMethod(rawValue: request.method),
                url: request.url,
                headers: request.headers.map { (name: $0.name, value: $0.value) },
                body: request.body,
                limit: 64 * 1024 * 1024,
                timeout: timeout,
                streams: true
            ) { event in
                switch event {
                case .whole(let response):
                    finish(.success(Self.response(status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView), parts: nil, since: started)))
                case .streamHead(let head):
                    state.withLock {
                        $0.head = head
                        $0.last = Date()
                    }
                case .piece(let piece):
                    state.withLock { state in
                        let now = Date()
                        state.parts.append(StreamPart(bytes: Data(piece.readableBytesView), after: now.timeIntervalSince(state.last)))
                        state.last = now
                    }
                case .end:
                    finishStream()
                case .failed(let failure):
                    // Closing a stream at the deadline can trip its parser: it still counts as far as it came.
                    let (hasHead, timedOut) = state.withLock { ($0.head != nil, $0.timedOut) }
                    if timedOut, hasHead { finishStream() } else { finish(.failure(failure)) }
                case .cancelled:
                    // A stream still open at the deadline: compared as far as it came.
                    finishStream()
                }
            }
            // A whole answer times out on its own; a stream that never ends (an event feed) is
            // closed once the time is up.
            MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: timeout) {
                state.withLock { $0.timedOut = true }
                handle.cancel()
            }
        }
    }

    /// What has arrived of one live answer, behind the lock its events share.
    private struct LiveAnswer {
        var head: HTTPResponseHead?
        /// A stream's parts so far, each with the time before it.
        var parts: [StreamPart] = []
        /// When the head or the last part arrived.
        var last: Date
        /// Whether the caller has its answer.
        var answered = false
        /// Whether the time ran out (a stream is then closed, and compared as far as it came).
        var timedOut = false
    }

    private static func response(status: Int, headers: HTTPHeaders, body: Data, parts: [StreamPart]?, since started: Date) -> RecordedResponse {
        let fields = HTTPFields(pairs: headers.lazy.map { (name: $0.name, value: $0.value) })
        let encoded = fields.contentCoding != nil
        return RecordedResponse(
            status: status,
            headerFields: fields,
            body: body,
            bodyIsEncoded: encoded,
            duration: Date().timeIntervalSince(started),
            // The parts of a body in a content coding mean nothing apart, as in a recording.
            stream: parts.flatMap { encoded ? nil : ResponseStream(kind: ResponseStream.Kind(contentType: fields[.contentType]), parts: $0) }
        )
    }
}
