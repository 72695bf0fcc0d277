import AirlockBase
import Dispatch
import Foundation

/// What a transport does with an exchange the core carries out: the writes and the timer, and
/// nothing else. ``ResolvedExchange/deliver(to:)`` drives it through the one sequence every
/// transport shares — forward or stop, or wait out the delay, load the body (files off the
/// transport's thread), record the outcome in the journal, then send the response whole or
/// dribbled — so no transport decides any of it again.
///
/// Every method is called on the thread the delivery began on, or inside work given to
/// ``schedule(after:_:)``; only `schedule` may be called from any thread.
package protocol ExchangeSink: AnyObject, Sendable {
    /// What the transport can be handed besides a response.
    associatedtype Kind: TransportKind

    /// Runs `work` after `seconds` (0: as soon as it can) on the transport's own timer and
    /// thread, unless the exchange is over by then (the client went away).
    func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void)

    /// How long the client waits for the next thing to arrive before it gives up, if it does
    /// (a `URLSession`'s timeout); `nil` for a socket, whose client decides alone.
    var idleTimeout: TimeInterval? { get }

    /// Whether the client takes a body in pieces as they arrive. `false` when only the last piece
    /// would reach it (swift-corelibs-foundation's completion handlers): the whole body is then
    /// sent once the dribble's time has passed.
    var takesBodyInPieces: Bool { get }

    /// Fails the exchange with a timeout after `seconds`, unless it ends first, and records it.
    /// - Parameter reason: What the client was waiting for, such as "its mocked response is
    ///   delayed 600 s".
    func timeOut(after seconds: TimeInterval, because reason: String, recorder: ExchangeRecorder)

    /// Starts the response: its status and fields, for a body of `bodySize` bytes (`nil`: a
    /// stream, whose length is not known until it ends). Returns `false` when the transport
    /// answered otherwise (it followed the redirect the response asks for): no body follows then.
    func begin(_ planned: PlannedResponse, bodySize: Int?) -> Bool

    /// Sends a piece of the body, flushed at once; the last one ends the response.
    func send(_ piece: Data, isLast: Bool, of planned: PlannedResponse)

    /// Answers with what kept the core from producing the response (a missing file, a closure
    /// that threw), already recorded.
    func fail(_ failure: ExchangeFailure)

    /// Fails the request with the stub's Swift error, already recorded.
    func fail(carrying error: Kind.Failure)

    /// Misbehaves on the connection as the fault says, already recorded.
    func perform(_ fault: MockResponse.Fault)

    /// Sends the request to the real network and relays the answer, recording it with `recorder`.
    /// - Parameters:
    ///   - recording: Whether a cassette records the exchange (it wants bodies it can read).
    ///   - target: The absolute URL to send it to instead of its own (a stub that proxies), with
    ///     the request's method, fields (but `Host`) and body.
    func forward(recording: Bool, to target: String?, recorder: ExchangeRecorder)

    /// Stops the process (the `.fatalError` policy, on a transport that may stop it).
    func stop(_ stop: Kind.Stop) -> Never

    /// Accepts the request's WebSocket upgrade and plays `script` on the connection, recording
    /// the outcome with `recorder`. A transport that cannot carry a WebSocket (a `URLProtocol`)
    /// keeps the default, which fails the exchange and says to use MockServer.
    func openWebSocket(_ planned: PlannedResponse, playing script: WebSocketScript, recorder: ExchangeRecorder)
}

extension ExchangeSink {
    /// Fails the exchange: this transport cannot carry a WebSocket.
    package func openWebSocket(_ planned: PlannedResponse, playing script: WebSocketScript, recorder: ExchangeRecorder) {
        let message = "Airlock: the stub answers with a WebSocket (MockResponse.webSocket), which a URLProtocol cannot carry: "
            + "URLSessionWebSocketTask never reaches a URLProtocol. Serve the stub with MockServer (or airlock serve) "
            + "and connect the WebSocket client to server.baseURL (ws://127.0.0.1:<port>/…)."
        recorder.record(.failure(message))
        fail(ExchangeFailure(.responseUnavailable, message))
    }
}

extension ResolvedExchange {
    /// Carries the exchange out on `sink`: the one delivery sequence of every transport.
    ///
    /// Bytes in memory with no delay are answered before this returns, on the caller's thread —
    /// no timer, no task. A delay waits on the sink's timer (or times out first when the client
    /// would give up sooner); a file is read on a global queue; the outcome is recorded before the
    /// first byte goes out; a dribbled body goes out in the plan's pieces.
    @inlinable
    package func deliver<Sink: ExchangeSink>(to sink: Sink) where Sink.Kind == Kind {
        switch action {
        case .forward(let recording, let target):
            guard delay > 0 else { return sink.forward(recording: recording, to: target, recorder: recorder) }
            sink.schedule(after: delay) { [recorder] in sink.forward(recording: recording, to: target, recorder: recorder) }
        case .stop(let stop):
            sink.stop(stop)
        case .answer(let answer):
            guard delay > 0 else { return deliver(answer, on: sink) }
            if let timeout = sink.idleTimeout, delay >= timeout {
                return sink.timeOut(after: timeout, because: "its mocked response is delayed \(Self.seconds(delay)) s", recorder: recorder)
            }
            sink.schedule(after: delay) { deliver(answer, on: sink) }
        }
    }

    @inlinable
    func deliver<Sink: ExchangeSink>(_ answer: Answer, on sink: Sink) where Sink.Kind == Kind {
        switch answer {
        case .respond(let planned):
            if case .stream(let stream) = planned.response.body {
                return respond(planned, streaming: stream, on: sink)
            }
            if case .webSocket(let script) = planned.response.body {
                return sink.openWebSocket(planned, playing: script, recorder: recorder)
            }
            if let body = planned.response.body.bytesInMemory {
                return respond(planned, body: .success(body), on: sink)
            }
            // Reading a file may block: never on the transport's thread.
            let stub = self.stub
            DispatchQueue.global().async {
                let loaded = planned.response.body.load(for: stub)
                sink.schedule(after: 0) { respond(planned, body: loaded, on: sink) }
            }
        case .fail(let error):
            recorder.record(.failure(error.summary))
            sink.fail(carrying: error)
        case .fault(let fault):
            recorder.record(.fault(fault))
            sink.perform(fault)
        }
    }

    @inlinable
    func respond<Sink: ExchangeSink>(_ planned: PlannedResponse, body loaded: Result<Data, ExchangeFailure>, on sink: Sink) where Sink.Kind == Kind {
        let wireBody: Data
        switch loaded {
        case .failure(let failure):
            recorder.record(.failure(failure.description))
            return sink.fail(failure)
        case .success(let body):
            wireBody = body
        }
        let response = planned.response
        recorder.record(.response(status: response.status.code), headers: response.headerFields, body: wireBody, bodyIsEncoded: !response.bodyIsDecoded)
        // A URLSession decodes gzip and deflate bodies for its callers; a socket sends them as kept.
        let body = transport.decodesContentCoding && !response.bodyIsDecoded
            ? response.headerFields.contentCoding.flatMap { ContentCoding.decode(wireBody, coding: $0) } ?? wireBody : wireBody
        guard sink.begin(planned, bodySize: body.count) else { return }
        guard let dribble = response.dribble, body.count > 1 else {
            return sink.send(body, isLast: true, of: planned)
        }
        let (pieces, interval) = dribble.pieces(of: body)
        if interval > 0, let timeout = sink.idleTimeout, interval >= timeout {
            return sink.timeOut(after: timeout, because: "its mocked body is dribbled with \(Self.seconds(interval)) s between pieces", recorder: recorder)
        }
        if sink.takesBodyInPieces {
            send(pieces, from: 0, every: interval, of: planned, on: sink)
        } else {
            sink.schedule(after: dribble.seconds) { sink.send(body, isLast: true, of: planned) }
        }
    }

    /// Sends piece `index` now and the next ones `interval` apart.
    @inlinable
    func send<Sink: ExchangeSink>(_ pieces: [Data], from index: Int, every interval: TimeInterval, of planned: PlannedResponse, on sink: Sink) {
        let isLast = index == pieces.count - 1
        sink.send(pieces[index], isLast: isLast, of: planned)
        guard !isLast else { return }
        sink.schedule(after: interval) { send(pieces, from: index + 1, every: interval, of: planned, on: sink) }
    }

    /// Sends a stream's head, then each part after its pause, then ends it as the stream says.
    /// The journal gets the whole stream (its parts and pauses) before the head goes out.
    @inlinable
    func respond<Sink: ExchangeSink>(_ planned: PlannedResponse, streaming stream: ResponseStream, on sink: Sink) where Sink.Kind == Kind {
        let response = planned.response
        recorder.record(.response(status: response.status.code), headers: response.headerFields, body: stream.body, bodyIsEncoded: !response.bodyIsDecoded, stream: stream)
        guard sink.begin(planned, bodySize: nil) else { return }
        if let timeout = sink.idleTimeout, let longest = stream.parts.lazy.map(\.delay).max(), longest >= timeout {
            return sink.timeOut(after: timeout, because: "its mocked stream pauses \(Self.seconds(longest)) s before a part", recorder: recorder)
        }
        guard sink.takesBodyInPieces else {
            // Only the last piece would reach the client: the whole body goes once its time has passed.
            let body = stream.body
            let last = stream.ending == .close
            sink.schedule(after: stream.duration) {
                sink.send(body, isLast: last, of: planned)
                if !last { Self.end(stream, of: planned, on: sink) }
            }
            return
        }
        send(stream, from: 0, of: planned, on: sink)
    }

    /// Sends the parts from `index` on that have no pause now, and schedules the first that has
    /// one; after the last part, ends the stream.
    @inlinable
    func send<Sink: ExchangeSink>(_ stream: ResponseStream, from index: Int, of planned: PlannedResponse, on sink: Sink) where Sink.Kind == Kind {
        var index = index
        while index < stream.parts.count {
            let part = stream.parts[index]
            if part.delay > 0 {
                let next = index
                return sink.schedule(after: part.delay) {
                    sink.send(part.bytes, isLast: false, of: planned)
                    send(stream, from: next + 1, of: planned, on: sink)
                }
            }
            sink.send(part.bytes, isLast: false, of: planned)
            index += 1
        }
        Self.end(stream, of: planned, on: sink)
    }

    /// Ends the stream after its last part: at once, never (the client leaves), when the gate
    /// opens, or once the recorded wait has passed (unless the client left first).
    @inlinable
    static func end<Sink: ExchangeSink>(_ stream: ResponseStream, of planned: PlannedResponse, on sink: Sink) {
        switch stream.ending {
        case .close:
            sink.send(Data(), isLast: true, of: planned)
        case .keepOpen:
            break
        case .gate(let gate):
            gate.whenOpen { sink.schedule(after: 0) { sink.send(Data(), isLast: true, of: planned) } }
        case .closeAfter(let seconds), .clientLeft(let seconds):
            sink.schedule(after: seconds) { sink.send(Data(), isLast: true, of: planned) }
        }
    }

    /// `2` or `0.5`.
    @usableFromInline
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
