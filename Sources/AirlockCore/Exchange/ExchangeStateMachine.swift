import AirlockBase
import Foundation

/// One exchange, from the core's decision to its last byte: a value type whose events each return
/// the one thing the transport does next, as AsyncHTTPClient's `Transaction+StateMachine` does.
///
/// The registry resolves a request into a machine in its first state, with everything decided —
/// the unmocked policy applied, the response chosen and checked, its redirect rule worked out.
/// The transport starts it and then only feeds it events:
///
/// - ``start(idleTimeout:takesBodyInPieces:)`` — the transport is ready;
/// - ``timerFired()`` — the wait an action asked for has passed;
/// - ``bodyLoaded(_:)`` — the body an action asked to read off the transport's thread is read;
/// - ``gateOpened()`` — the gate a stream waits on is open;
/// - ``clientLeft()`` — the client went away.
///
/// Each returns an ``Action``: something to carry out now (a ``Delivery``: write, fail, forward,
/// act out a fault…) and what wakes the machine next (``Next``: a timer, a file read, a gate, or
/// nothing). A transport's sink is one `switch` over ``Delivery``; the timers, the file reads and
/// the gates are the core's driver's (``ExchangeSink/run(_:)``). The journal gets the outcome
/// from the machine, before the first byte of it goes out.
///
/// Timing is a matter of events, so the machine is tested without timers: feed it
/// `timerFired()` and read what it asks for.
package struct ExchangeStateMachine<Kind: TransportKind>: Sendable {
    /// What the registry decided, before the transport starts the exchange.
    enum Plan: Sendable {
        /// Send the request to the real network (after the delay): as it came, or as a proxying
        /// stub sends it on (`target`).
        case forward(recording: Bool, target: ForwardTarget?, failed: FailedForwardAnswer)
        /// Stop the process.
        case stop(Kind.Stop)
        /// Send this response (its body bytes, a file, a failure, a stream or a WebSocket).
        case respond(MockResponse, redirect: RedirectRule?)
        /// Fail with the transport's error, recorded as `recorded`.
        case failCarrying(Kind.Failure, recorded: ExchangeFailure)
        /// Misbehave on the connection.
        case fault(MockResponse.Fault)
    }

    enum State: Sendable {
        /// Resolved; the transport has not started it.
        case planned(Plan, delay: TimeInterval)
        /// Waiting out the delay before carrying the plan out.
        case delaying(Plan)
        /// Waiting for the client's timeout, which comes before the answer could.
        case timingOut(ExchangeFailure)
        /// A file is being read off the transport's thread.
        case loading(MockResponse, redirect: RedirectRule?)
        /// The head is sent; the body goes out in these pieces, `interval` apart.
        case dribbling(pieces: [Data], next: Int, interval: TimeInterval)
        /// The head is sent; the whole body goes once the time its pieces would take has passed
        /// (a client that only gets the last piece); then, for a stream, its ending.
        case holding(Data, ending: ResponseStream.Ending?)
        /// The head is sent; part `next` of the stream goes when the timer fires.
        case streaming(ResponseStream, next: Int)
        /// The stream's parts are sent; it ends as its ending says: when the timer fires, when its
        /// gate opens, or never (the client leaves).
        case ending(ResponseStream.Ending)
        /// Over: answered, failed, forwarded, or the client left.
        case finished
    }

    /// What a transport does now, and what wakes the machine next.
    package struct Action: Sendable {
        /// What to carry out now, if anything.
        package let delivery: Delivery?
        /// What to wait for before the next event.
        package let next: Next

        /// Nothing to do.
        package static var none: Action { Action(delivery: nil, next: .none) }

        static func deliver(_ delivery: Delivery, then next: Next = .none) -> Action {
            Action(delivery: delivery, next: next)
        }

        static func wait(_ next: Next) -> Action {
            Action(delivery: nil, next: next)
        }
    }

    /// What wakes the machine next.
    package enum Next: Sendable {
        /// Nothing: the exchange is over, or waits for the client to leave.
        case none
        /// Call ``timerFired()`` after this many seconds (0: as soon as the transport can).
        case timer(TimeInterval)
        /// Read the body off the transport's thread, then call ``bodyLoaded(_:)``.
        case load(MockResponse.Body, owner: ExchangeFailure.Owner)
        /// Call ``gateOpened()`` once the gate is open.
        case gate(StreamGate)
    }

    /// What the transport carries out: the one `switch` of every sink.
    package enum Delivery: Sendable {
        /// Write the response's head (when `head` is set) and these pieces, flushing each; the
        /// response ends after them when `ends` is set.
        case write(Write)
        /// Fail the exchange: a `URLError` with the message, or a `500` with it (recorded).
        case fail(ExchangeFailure)
        /// Fail the request with the stub's Swift error (recorded).
        case failCarrying(Kind.Failure)
        /// Misbehave on the connection as the fault says (recorded); then send `webhooks`, each
        /// after its delay.
        case fault(MockResponse.Fault, webhooks: [WebhookRequest])
        /// Send the request to the real network and relay the answer, recording it. `target`: for
        /// a stub that proxies, the URL to send it to instead of its own and the header fields to
        /// send (the core applied the stub's header edits; no `Host`), with the request's method
        /// and body; `recording`: a cassette records it (it wants bodies it can read);
        /// `inPieces`: the client takes the answer's body in pieces as they arrive; `webhooks`:
        /// a proxying stub's, to send once the answer has been relayed (or failed), each after
        /// its delay; `answeringFailure`: what to answer, in the request's form, when the forward
        /// fails before the real host's answer began.
        case forward(recording: Bool, target: ForwardTarget?, inPieces: Bool, webhooks: [WebhookRequest], answeringFailure: FailedForwardAnswer)
        /// Stop the process (the `.fatalError` policy, on a transport that may).
        case stop(Kind.Stop)
        /// Accept the WebSocket upgrade with this response and play the script (recorded by the
        /// transport as the conversation goes).
        case openWebSocket(MockResponse, WebSocketScript)
        /// Make the next request the redirect asks for (a transport that follows redirects
        /// itself); the response that asked for it is recorded.
        case follow(RedirectRule, after: MockResponse)
    }

    /// A response's head and pieces of its body.
    package struct Write: Sendable {
        /// The response whose head goes first, and the body's size (`nil`: a stream, whose
        /// length is not known until it ends); `nil` when the head went before.
        package let head: (response: MockResponse, bodySize: Int?)?
        /// The pieces of the body, in order; each is flushed as it goes.
        package let pieces: Pieces
        /// Whether the response ends after these pieces.
        package let ends: Bool
        /// The response the pieces belong to.
        package let response: MockResponse
        /// The webhooks to send once the response has ended, each after its delay (set on the
        /// last write only).
        package var webhooks: [WebhookRequest] = []
    }

    /// Pieces of a body, without an array for the usual one.
    package enum Pieces: Sendable {
        case none
        case one(Data)
        case several([Data])

        /// Calls `body` with each piece, in order.
        package func forEach(_ body: (Data) -> Void) {
            switch self {
            case .none: break
            case .one(let piece): body(piece)
            case .several(let pieces): pieces.forEach(body)
            }
        }

        /// The only piece, when there is exactly one.
        package var only: Data? {
            if case .one(let piece) = self { return piece }
            return nil
        }
    }

    private var state: State
    /// Where the outcome goes in the journal.
    package let recorder: ExchangeRecorder
    /// The stub that answered; `nil` when the unmocked policy did.
    package let stub: StubDescription?
    /// What the machine needs of the transport once planned (not the transport itself: its
    /// closures would be retained and released with every copy of the machine).
    private let decodesContentCoding: Bool
    private let carriesWebSockets: Bool
    /// The request, for a timeout's message (its URL is joined only then).
    private let request: IncomingRequest
    /// The client's timeout and whether it takes pieces, as the transport said at the start.
    private var idleTimeout: TimeInterval?
    private var takesBodyInPieces = true
    /// The response being written, once its head went.
    private var response: MockResponse?
    /// The stub's webhooks, until ``init(_:request:transport:redaction:webhookPolicy:)`` renders
    /// and checks them.
    var unplannedWebhooks: [Webhook] = []
    /// The webhooks the core allowed, for the answer's end.
    var webhooks: [WebhookRequest] = []

    init(_ plan: Plan, delay: TimeInterval, recorder: ExchangeRecorder, stub: StubDescription?, request: IncomingRequest, transport: Transport<Kind>) {
        state = .planned(plan, delay: delay)
        self.recorder = recorder
        self.stub = stub
        decodesContentCoding = transport.decodesContentCoding
        carriesWebSockets = transport.carriesWebSockets
        self.request = request
    }

    // MARK: What the transport may ask before starting

    /// Whether the answer is a body sent in pieces over time (a stream, a dribble, or a forwarded
    /// answer, which may be a stream), for which a transport may need to find out whether its
    /// client takes pieces.
    package var sendsBodyInPieces: Bool {
        guard case .planned(let plan, _) = state else { return false }
        switch plan {
        case .respond(let response, _): return response.stream != nil || response.dribble != nil
        case .forward: return true
        case .stop, .failCarrying, .fault: return false
        }
    }

    /// The response the exchange is to send, before it starts; `nil` when it forwards, stops,
    /// fails or acts out a fault.
    package var plannedResponse: MockResponse? {
        guard case .planned(.respond(let response, _), _) = state else { return nil }
        return response
    }

    /// Whether the exchange waits before its answer or sends it over time: only then does the
    /// client's timeout matter.
    var waits: Bool {
        guard case .planned(let plan, let delay) = state else { return false }
        if delay > 0 { return true }
        if case .respond(let response, _) = plan { return response.stream != nil || response.dribble != nil }
        return false
    }

    // MARK: Events
    //
    // The transports call each event through its concrete entry point for their kind (see
    // `ExchangeStateMachine+Transports.swift`); these generic bodies are specialized there.

    /// What ``start(idleTimeout:takesBodyInPieces:)`` decides, before the webhooks are attached.
    private mutating func decidingStart(idleTimeout: @autoclosure () -> TimeInterval?, takesBodyInPieces: @autoclosure () -> Bool) -> Action {
        guard case .planned(let plan, let delay) = state else { return .none }
        if waits { self.idleTimeout = idleTimeout() }
        if sendsBodyInPieces { self.takesBodyInPieces = takesBodyInPieces() }
        switch plan {
        case .stop(let stop):
            state = .finished
            return .deliver(.stop(stop))
        case .forward(let recording, let target, let failed):
            guard delay > 0 else {
                state = .finished
                return .deliver(.forward(recording: recording, target: target, inPieces: self.takesBodyInPieces, webhooks: [], answeringFailure: failed))
            }
            state = .delaying(plan)
            return .wait(.timer(delay))
        case .respond, .failCarrying, .fault:
            guard delay > 0 else { return carryOut(plan) }
            if let timeout = self.idleTimeout, delay >= timeout {
                return timeOut(after: timeout, waiting: .delay(delay))
            }
            state = .delaying(plan)
            return .wait(.timer(delay))
        }
    }

    /// What ``timerFired()`` decides, before the webhooks are attached.
    private mutating func decidingTimerFired() -> Action {
        switch state {
        case .delaying(let plan):
            if case .forward(let recording, let target, let failed) = plan {
                state = .finished
                return .deliver(.forward(recording: recording, target: target, inPieces: takesBodyInPieces, webhooks: [], answeringFailure: failed))
            }
            return carryOut(plan)
        case .timingOut(let failure):
            state = .finished
            recorder.record(.failure(failure))
            return .deliver(.fail(failure))
        case .dribbling(let pieces, let next, let interval):
            guard let response else { return .none }
            let ends = next == pieces.count - 1
            state = ends ? .finished : .dribbling(pieces: pieces, next: next + 1, interval: interval)
            return .deliver(.write(Write(head: nil, pieces: .one(pieces[next]), ends: ends, response: response)), then: ends ? .none : .timer(interval))
        case .holding(let body, let ending):
            guard let response else { return .none }
            let ends = ending == nil || ending == .close
            let write = Write(head: nil, pieces: .one(body), ends: ends, response: response)
            guard !ends, let ending else {
                state = .finished
                return .deliver(.write(write))
            }
            return .deliver(.write(write), then: awaitEnd(ending))
        case .streaming(let stream, let next):
            return sendParts(of: stream, from: next, firstIsDue: true)
        case .ending(.close), .ending(.closeAfter), .ending(.clientLeft):
            return end()
        case .ending(.keepOpen), .ending(.gate), .planned, .loading, .finished:
            return .none
        }
    }

    /// What ``bodyLoaded(_:)`` decides, before the webhooks are attached.
    private mutating func decidingBodyLoaded(_ loaded: Result<Data, ExchangeFailure>) -> Action {
        guard case .loading(let response, let redirect) = state else { return .none }
        switch loaded {
        case .success(let body): return respond(response, body: body, redirect: redirect)
        case .failure(let failure): return fail(failure)
        }
    }

    /// What ``gateOpened()`` decides, before the webhooks are attached.
    private mutating func decidingGateOpened() -> Action {
        guard case .ending(.gate) = state else { return .none }
        return end()
    }

    /// What ``start(idleTimeout:takesBodyInPieces:)`` does, for any transport.
    mutating func handleStart(idleTimeout: @autoclosure () -> TimeInterval?, takesBodyInPieces: @autoclosure () -> Bool) -> Action {
        attachingWebhooks(decidingStart(idleTimeout: idleTimeout(), takesBodyInPieces: takesBodyInPieces()))
    }

    /// What ``timerFired()`` does, for any transport.
    mutating func handleTimerFired() -> Action {
        attachingWebhooks(decidingTimerFired())
    }

    /// What ``bodyLoaded(_:)`` does, for any transport.
    mutating func handleBodyLoaded(_ loaded: Result<Data, ExchangeFailure>) -> Action {
        attachingWebhooks(decidingBodyLoaded(loaded))
    }

    /// What ``gateOpened()`` does, for any transport.
    mutating func handleGateOpened() -> Action {
        attachingWebhooks(decidingGateOpened())
    }

    /// The action, with the webhooks on it when it ends the answer: the response's last write, a
    /// fault, or a forward (whose transport sends them once the proxied answer is relayed).
    private mutating func attachingWebhooks(_ action: Action) -> Action {
        guard !webhooks.isEmpty, let delivery = action.delivery else { return action }
        let attached: Delivery
        switch delivery {
        case .write(var write) where write.ends:
            write.webhooks = webhooks
            attached = .write(write)
        case .fault(let fault, _):
            attached = .fault(fault, webhooks: webhooks)
        case .forward(let recording, let target, let inPieces, _, let failed):
            attached = .forward(recording: recording, target: target, inPieces: inPieces, webhooks: webhooks, answeringFailure: failed)
        case .write, .fail, .failCarrying, .stop, .openWebSocket, .follow:
            return action
        }
        webhooks = []
        return Action(delivery: attached, next: action.next)
    }

    /// The client went away: nothing more is sent, and no timer the exchange set does anything.
    package mutating func clientLeft() {
        state = .finished
    }

    /// Whether the exchange is over.
    package var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    // MARK: Carrying the plan out

    private mutating func carryOut(_ plan: Plan) -> Action {
        switch plan {
        case .forward(let recording, let target, let failed):
            state = .finished
            return .deliver(.forward(recording: recording, target: target, inPieces: takesBodyInPieces, webhooks: [], answeringFailure: failed))
        case .stop(let stop):
            state = .finished
            return .deliver(.stop(stop))
        case .failCarrying(let error, let recorded):
            state = .finished
            recorder.record(.failure(recorded))
            return .deliver(.failCarrying(error))
        case .fault(let fault):
            state = .finished
            recorder.record(.fault(fault))
            return .deliver(.fault(fault, webhooks: []))
        case .respond(let response, let redirect):
            switch response.body {
            case .data(let body):
                return respond(response, body: body, redirect: redirect)
            case .stream(let stream):
                return respond(response, streaming: stream, redirect: redirect)
            case .webSocket(let script):
                guard carriesWebSockets else { return fail(.webSocketNeedsServer(owner: ExchangeFailure.Owner(stub))) }
                state = .finished
                return .deliver(.openWebSocket(response, script))
            case .failure(let problem):
                return fail(.responseUnservable(owner: ExchangeFailure.Owner(stub), problem: problem))
            case .file, .error, .fault, .computed, .proxy:
                // Reading a file may block: never on the transport's thread. (Planning turned the
                // other kinds into plans of their own; loading says so if one got here.)
                state = .loading(response, redirect: redirect)
                return .wait(.load(response.body, owner: ExchangeFailure.Owner(stub)))
            }
        }
    }

    private mutating func fail(_ failure: ExchangeFailure) -> Action {
        state = .finished
        recorder.record(.failure(failure))
        return .deliver(.fail(failure))
    }

    private mutating func timeOut(after timeout: TimeInterval, waiting: ExchangeFailure.Wait) -> Action {
        state = .timingOut(.timedOut(request: "\(request.method) \(Redaction.standard.url(request.url))", after: timeout, waiting: waiting))
        return .wait(.timer(timeout))
    }

    /// Records the response and sends it: whole, or in the dribble's pieces.
    private mutating func respond(_ response: MockResponse, body wireBody: Data, redirect: RedirectRule?) -> Action {
        recorder.record(
            .response(status: response.status.code), headers: response.headerFields, body: wireBody, bodyIsEncoded: !response.bodyIsDecoded, trailers: response.trailerFields
        )
        if let redirect {
            state = .finished
            return .deliver(.follow(redirect, after: response))
        }
        // A URLSession decodes gzip and deflate bodies for its callers; a socket sends them as kept.
        let body = decodesContentCoding && !response.bodyIsDecoded
            ? response.headerFields.contentCoding.flatMap { ContentCoding.decode(wireBody, coding: $0) } ?? wireBody : wireBody
        let head = (response: response, bodySize: Optional(body.count))
        guard let dribble = response.dribble, body.count > 1 else {
            state = .finished
            return .deliver(.write(Write(head: head, pieces: .one(body), ends: true, response: response)))
        }
        self.response = response
        let (pieces, interval) = dribble.pieces(of: body)
        if interval > 0, let timeout = idleTimeout, interval >= timeout {
            let action = timeOut(after: timeout, waiting: .dribble(interval))
            return .deliver(.write(Write(head: head, pieces: .none, ends: false, response: response)), then: action.next)
        }
        guard takesBodyInPieces else {
            state = .holding(body, ending: nil)
            return .deliver(.write(Write(head: head, pieces: .none, ends: false, response: response)), then: .timer(dribble.seconds))
        }
        state = .dribbling(pieces: pieces, next: 1, interval: interval)
        return .deliver(.write(Write(head: head, pieces: .one(pieces[0]), ends: false, response: response)), then: .timer(interval))
    }

    /// Records the whole stream (its parts and pauses) and sends its head, then the parts that
    /// have no pause.
    private mutating func respond(_ response: MockResponse, streaming stream: ResponseStream, redirect: RedirectRule?) -> Action {
        recorder.record(
            .response(status: response.status.code), headers: response.headerFields, body: stream.body, bodyIsEncoded: !response.bodyIsDecoded, stream: stream,
            trailers: response.trailerFields
        )
        if let redirect {
            state = .finished
            return .deliver(.follow(redirect, after: response))
        }
        self.response = response
        let head = (response: response, bodySize: Int?.none)
        if let timeout = idleTimeout, let longest = stream.parts.lazy.map(\.delay).max(), longest >= timeout {
            let action = timeOut(after: timeout, waiting: .streamPause(longest))
            return .deliver(.write(Write(head: head, pieces: .none, ends: false, response: response)), then: action.next)
        }
        guard takesBodyInPieces else {
            // Only the last piece would reach the client: the whole body goes once its time has passed.
            state = .holding(stream.body, ending: stream.ending)
            return .deliver(.write(Write(head: head, pieces: .none, ends: false, response: response)), then: .timer(stream.duration))
        }
        state = .streaming(stream, next: 0)
        let action = sendParts(of: stream, from: 0, firstIsDue: false)
        guard case .write(let write)? = action.delivery else {
            return .deliver(.write(Write(head: head, pieces: .none, ends: false, response: response)), then: action.next)
        }
        return .deliver(.write(Write(head: head, pieces: write.pieces, ends: write.ends, response: response)), then: action.next)
    }

    /// Sends the parts from `index` on that are due — the first whose pause has passed when
    /// `firstIsDue`, then every one without a pause — and waits for the next pause, or ends the
    /// stream after the last part.
    private mutating func sendParts(of stream: ResponseStream, from index: Int, firstIsDue: Bool) -> Action {
        guard let response else { return .none }
        var end = index
        while end < stream.parts.count, stream.parts[end].delay <= 0 || (firstIsDue && end == index) {
            end += 1
        }
        let pieces: Pieces = switch end - index {
        case 0: .none
        case 1: .one(stream.parts[index].bytes)
        default: .several(stream.parts[index..<end].map(\.bytes))
        }
        if end < stream.parts.count {
            state = .streaming(stream, next: end)
            return .deliver(.write(Write(head: nil, pieces: pieces, ends: false, response: response)), then: .timer(stream.parts[end].delay))
        }
        let ends = stream.ending == .close
        let write = Write(head: nil, pieces: pieces, ends: ends, response: response)
        guard !ends else {
            state = .finished
            return .deliver(.write(write))
        }
        return .deliver(.write(write), then: awaitEnd(stream.ending))
    }

    /// Waits for the stream's end after its last part: never (the client leaves), until the gate
    /// opens, or until the recorded wait has passed (unless the client left first).
    private mutating func awaitEnd(_ ending: ResponseStream.Ending) -> Next {
        state = .ending(ending)
        switch ending {
        case .close: return .timer(0)
        case .keepOpen: return .none
        case .gate(let gate): return .gate(gate)
        case .closeAfter(let seconds), .clientLeft(let seconds): return .timer(seconds)
        }
    }

    /// Ends the stream.
    private mutating func end() -> Action {
        guard let response else { return .none }
        state = .finished
        return .deliver(.write(Write(head: nil, pieces: .none, ends: true, response: response)))
    }
}
