import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix

extension Cassette {
    /// Sends every recorded request to a live service over SwiftNIO (the client the server
    /// forwards with: one connection per request, `https` verified with the system's trust
    /// roots and the certificates of `trusting`) and reports what drifted, as
    /// `Cassette.verify(against:options:send:)` does.
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
    ///   - certificates: PEM files of certificates to trust besides the system's roots: a staging
    ///     service's private CA.
    /// - Returns: The report, one entry per entry of the file.
    /// - Throws: `CassetteError` when the file, a rule, the base URL or a file of `certificates`
    ///   cannot be used.
    public func verify(
        against baseURL: URL, options: DriftOptions = DriftOptions(), timeout: TimeInterval = 60, trusting certificates: [URL] = []
    ) async throws(CassetteError) -> DriftReport {
        let forwarder: Forwarder
        do {
            forwarder = Forwarder(trusting: try Forwarder.certificates(in: certificates))
        } catch {
            throw CassetteError(
                .upstreamTrustUnusable, file: nil, problem: "cannot trust the certificates of \(error.file) for the live service: \(error.reason)",
                fix: "Give a PEM file of the certificates to trust, such as the service's private CA (airlock cassette verify --upstream-ca)."
            )
        }
        let seconds = timeout.isFinite && timeout > 0 ? min(timeout, ResponseLimits.maximumSeconds) : 60
        return try await verify(against: baseURL, options: options) { request in
            try await Self.send(request, with: forwarder, timeout: .nanoseconds(Int64(seconds * 1_000_000_000)))
        }
    }

    /// One request, its answer collected whole (a stream to its end).
    private static func send(_ request: LiveRequest, with forwarder: Forwarder, timeout: TimeAmount) async throws -> RecordedResponse {
        let started = Date()
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        return try await withCheckedThrowingContinuation { continuation in
            eventLoop.execute {
                send(request, with: forwarder, timeout: timeout, since: started, on: eventLoop) { continuation.resume(with: $0) }
            }
        }
    }

    /// Sends `request` from `eventLoop` and calls `answer` once, there, with its answer.
    private static func send(
        _ request: LiveRequest, with forwarder: Forwarder, timeout: TimeAmount, since started: Date, on eventLoop: any EventLoop,
        answer: @escaping @Sendable (Result<RecordedResponse, any Error>) -> Void
    ) {
        // The forward's events arrive one at a time on its event loop, as its deadline does. A
        // stream (a body without a length) is kept with its parts and the time before each, as
        // `airlock record` keeps one, so that `--update` writes it as a recording would.
        let state = NIOLoopBoundBox(LiveAnswer(), eventLoop: eventLoop)
        @Sendable func finish(_ result: Result<RecordedResponse, any Error>) {
            guard !state.value.answered else { return }
            state.value.answered = true
            answer(result)
        }
        /// The stream as far as it came.
        @Sendable func finishStream() {
            let recording = state.value.stream.end(.closed)
            let head = state.value.head
            let response = Self.response(
                status: Int(head?.status.code ?? 0), headers: head?.headers ?? [:], body: recording?.body ?? Data(), parts: recording?.parts ?? [], since: started
            )
            finish(.success(response))
        }
        @Sendable func received(_ event: Forwarder.Event) {
            switch event {
            case .whole(let response):
                finish(.success(Self.response(status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView), parts: nil, since: started)))
            case .streamHead(let head):
                state.value.head = head
                // The answer keeps the head's own fields (as received), not the recorder's.
                state.value.stream.head(status: Int(head.status.code), headers: [:], isStream: true, bodyIsEncoded: true)
            case .piece(let piece):
                state.value.stream.piece(piece.readableBytesView)
            case .end:
                finishStream()
            case .failed(let failure):
                // Closing a stream at the deadline can trip its parser: it still counts as far as it came.
                if state.value.timedOut, state.value.head != nil { finishStream() } else { finish(.failure(failure)) }
            case .cancelled:
                // A stream still open at the deadline: compared as far as it came.
                finishStream()
            }
        }
        let forward = forwarder.execute(
            method: HTTPMethod(rawValue: request.method),
            url: request.url,
            headers: request.headers.map { (name: $0.name, value: $0.value) },
            body: request.body,
            limit: 64 * 1024 * 1024,
            timeout: timeout,
            streams: true,
            on: eventLoop,
            relayTo: { try $0.addHandler(Forwarder.EventCallback(received)) },
            unreachable: { received(.failed($0)) }
        )
        // A whole answer times out on its own; a stream that never ends (an event feed) is closed
        // once the time is up.
        eventLoop.scheduleTask(in: timeout) {
            state.value.timedOut = true
            forward.cancel()
        }
    }

    /// What has arrived of one live answer, on its forward's event loop.
    private struct LiveAnswer {
        var head: HTTPResponseHead?
        /// A stream's parts so far, each with the time before it.
        var stream = StreamRecorder()
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
