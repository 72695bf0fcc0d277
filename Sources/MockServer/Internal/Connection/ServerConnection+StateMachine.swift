import NIOCore
import NIOHTTP1

extension ServerConnection {
    /// The one model of a server connection's life: which request it is reading, whether it is
    /// answering one, when its time runs out, and whether it is closing.
    ///
    /// It touches no channel. Its owner, ``ServerConnection``, feeds it what happens (bytes
    /// arrived, a request's head, body part and end, a response ending, the timer firing, a
    /// malformed request) with the event loop's time, and performs the action it returns. Each
    /// event has an action type of its own, holding only what can follow that event, so that no
    /// caller lists cases that cannot happen:
    ///
    /// | Event | Action |
    /// |---|---|
    /// | ``activated(now:)``, ``readProcessed()`` | ``TimerAction`` |
    /// | ``bytesArrived(now:)`` | ``ReadAction`` |
    /// | ``headReceived(_:now:)``, ``bodyReceived(_:)`` | ``RequestPartAction`` |
    /// | ``endReceived()`` | ``RequestEndAction`` |
    /// | ``responseEnding(keepAlive:now:)`` | ``ResponseEndAction`` |
    /// | ``closeRequested(now:)`` | ``CloseRequestAction`` |
    /// | ``timerFired(now:)`` | ``TimerFiredAction`` |
    ///
    /// ``tunnelOpened()`` and ``timerCancelled()`` only record what happened.
    ///
    /// A connection is **idle** between requests: it may stay ``Limits/idleTimeout`` without a
    /// byte, then it is closed (what any keep-alive server does). From the first byte of a request
    /// it is **reading the head**, which must be complete within ``Limits/headerTimeout`` however
    /// slowly it trickles, or the client gets `408 Request Timeout`. **Receiving** the body, the
    /// body may pause at most the idle timeout (else `408`) and may not grow over
    /// ``Limits/maxBodySize`` (else `413`). While the request is **answered** nothing is timed: a
    /// response the stub delays by an hour is still delivered. A connection that is **closing**
    /// has sent its last response (or is sending it): what the client still sends is dropped.
    ///
    /// A `CONNECT` that is accepted makes the connection a tunnel (``isTunnel``): its later
    /// requests go through the same states, and name their own host.
    ///
    /// The requests it sees come from SwiftNIO's pipelining handler one at a time, while bytes
    /// are seen as they arrive: bytes of a pipelined request that arrive while another is
    /// answered belong to no state yet, and count once that request's head is handed over.
    struct StateMachine {
        /// The timeouts and the body cap a connection keeps to.
        struct Limits: Equatable {
            var headerTimeout: TimeAmount
            var idleTimeout: TimeAmount
            var maxBodySize: Int
            /// The timeouts as configured, in seconds, for the messages.
            var headerTimeoutSeconds: Double
            var idleTimeoutSeconds: Double

            init(_ limits: MockServer.ConnectionLimits, maxBodySize: Int) {
                headerTimeout = .saturatingSeconds(limits.headerTimeout)
                idleTimeout = .saturatingSeconds(limits.idleTimeout)
                headerTimeoutSeconds = limits.headerTimeout
                idleTimeoutSeconds = limits.idleTimeout
                self.maxBodySize = maxBodySize
            }
        }

        /// Where the connection is in its life.
        enum State: Equatable {
            /// Waiting for a request, not a byte of it yet, since the deadline's start.
            case idle(since: NIODeadline)
            /// Bytes of a request head have arrived; the head must be complete by the deadline.
            case readingHead(deadline: NIODeadline)
            /// The head is in and the body arrives; the next bytes must come by the deadline.
            case receiving(HTTPRequestHead, body: ByteBuffer?, deadline: NIODeadline)
            /// The request is complete and being answered: nothing is timed.
            case answering
            /// The last response is sent or on its way: the connection closes, and whatever the
            /// client still sends is dropped.
            case closing(since: NIODeadline)
        }

        // MARK: Actions, one type per event

        /// What follows an event that can only bring the deadline nearer: the connection became
        /// active, or a read has gone through the pipeline.
        enum TimerAction: Equatable {
            /// The one timer is to fire at this deadline (it replaces any timer set for later).
            case armTimer(at: NIODeadline)
            /// Nothing: the timer fires by the deadline anyway, or nothing is timed.
            case none
        }

        /// What becomes of bytes that arrived, in front of the HTTP decoder.
        enum ReadAction: Equatable {
            /// The bytes pass on to the HTTP decoder.
            case forward
            /// The connection is closing: the bytes are dropped unread.
            case drop
        }

        /// What follows a request's head or a part of its body.
        enum RequestPartAction: Equatable {
            /// Nothing: the part is kept until the request ends.
            case none
            /// The connection is closing, or no request is being received: the part is dropped.
            case drop
            /// The request's body is over the cap: answer `413` and close.
            case rejectOversizedBody(HTTPRequestHead, limit: Int)
        }

        /// What follows the end of a request.
        enum RequestEndAction: Equatable {
            /// A complete request, its body under the cap: resolve and answer it.
            case deliver(HTTPRequestHead, body: ByteBuffer?)
            /// No request is being received (it was rejected, or the connection is closing): the
            /// end is dropped.
            case drop
        }

        /// What follows a response that is about to end.
        enum ResponseEndAction: Equatable {
            /// The connection stays open: the one timer is to fire at this deadline (the idle one).
            case armTimer(at: NIODeadline)
            /// Once the end is written, close the sending side, then close for good when the client
            /// closes or lingering ends (see ``GracefulClose``).
            case closeGracefully
            /// Nothing: the connection stays open and the timer fires by its deadline anyway, or
            /// it is closing already.
            case none
        }

        /// What follows a request to close the connection after what has been written.
        enum CloseRequestAction: Equatable {
            /// Close the sending side once what is queued has gone out, then close for good when
            /// the client closes or lingering ends (see ``GracefulClose``).
            case closeGracefully
            /// Nothing: the connection is closing already.
            case none
        }

        /// What follows the timer firing.
        enum TimerFiredAction: Equatable {
            /// The deadline moved on since the timer was set: the timer is to fire at this one.
            case armTimer(at: NIODeadline)
            /// The request head or body was too slow: write `408 Request Timeout` with this
            /// message, then close gracefully.
            case answerTimeout(message: String)
            /// The connection sat idle too long: close now.
            case close
            /// Nothing: nothing is timed (a request is answered, or the connection is closing).
            case none
        }

        let limits: Limits
        private(set) var state: State
        /// Whether a `CONNECT` made the connection a tunnel, whose requests name their own host.
        private(set) var isTunnel = false
        /// When the one timer fires, if it is set. It is moved only when a deadline comes sooner:
        /// when it fires early it looks at the deadline again, so the many later deadlines of a busy
        /// keep-alive connection cost no timer operations.
        private(set) var armedTimer: NIODeadline?

        /// A new connection, idle from `now`.
        init(limits: Limits, now: NIODeadline) {
            self.limits = limits
            state = .idle(since: now)
        }

        /// Since when the connection has waited without a request on its way in or being
        /// answered; `nil` while one is. The server closes the connection idle the longest to make
        /// room for a new one; a closing connection counts as idle since it began closing.
        var idleSince: NIODeadline? {
            switch state {
            case .idle(let since), .closing(let since): since
            case .readingHead, .receiving, .answering: nil
            }
        }

        /// Whether the connection is closing, its input dropped.
        var isClosing: Bool {
            if case .closing = state { return true }
            return false
        }

        /// When the current state's time runs out; `nil` when nothing is timed.
        var deadline: NIODeadline? {
            switch state {
            case .idle(let since): since + limits.idleTimeout
            case .readingHead(let deadline), .receiving(_, _, let deadline): deadline
            case .answering, .closing: nil
            }
        }

        // MARK: Events

        /// The connection became active (or the machine's owner joined an active one): idle
        /// from `now`, with the timer set for the idle deadline.
        mutating func activated(now: NIODeadline) -> TimerAction {
            guard !isClosing else { return .none }
            state = .idle(since: now)
            return armIfSooner()
        }

        /// Bytes arrived, in front of the HTTP decoder.
        mutating func bytesArrived(now: NIODeadline) -> ReadAction {
            switch state {
            case .idle:
                state = .readingHead(deadline: now + limits.headerTimeout)
            case .receiving(let head, let body, _):
                state = .receiving(head, body: body, deadline: now + limits.idleTimeout)
            case .closing:
                return .drop
            case .readingHead, .answering:
                break
            }
            return .forward
        }

        /// The bytes of one read have gone through the pipeline — often a whole request,
        /// answered already: the timer must fire by the deadline of the state the connection is
        /// in now.
        mutating func readProcessed() -> TimerAction {
            armIfSooner()
        }

        /// The pipelining handler handed over a request's head.
        mutating func headReceived(_ head: HTTPRequestHead, now: NIODeadline) -> RequestPartAction {
            guard !isClosing else { return .drop }
            let declared = head.headers.first(name: "Content-Length").flatMap(Int.init) ?? 0
            guard declared <= limits.maxBodySize else { return .rejectOversizedBody(head, limit: limits.maxBodySize) }
            state = .receiving(head, body: nil, deadline: now + limits.idleTimeout)
            return .none
        }

        /// A part of the request's body arrived.
        mutating func bodyReceived(_ part: ByteBuffer) -> RequestPartAction {
            guard case .receiving(let head, var body, let deadline) = state else { return .drop }
            guard (body?.readableBytes ?? 0) + part.readableBytes <= limits.maxBodySize else {
                return .rejectOversizedBody(head, limit: limits.maxBodySize)
            }
            // Out of the state while it grows, so that the buffer is not copied.
            state = .answering
            if body == nil {
                body = part
            } else {
                var part = part
                body!.writeBuffer(&part)
            }
            state = .receiving(head, body: body, deadline: deadline)
            return .none
        }

        /// The request ended: answer it; nothing is timed until the response ends.
        mutating func endReceived() -> RequestEndAction {
            guard case .receiving(let head, let body, _) = state else { return .drop }
            state = .answering
            return .deliver(head, body: body)
        }

        /// A response is about to end. Told before its end is written, because ending a response
        /// lets the pipelining handler hand over the next request.
        ///
        /// - Parameter keepAlive: Whether the connection stays open for another request.
        /// - Returns: `closeGracefully` (to perform once the end is written) for a connection that
        ///   closes, the timer for the idle deadline for one that stays open, `none` when the timer
        ///   fires by then anyway or the connection is closing already.
        mutating func responseEnding(keepAlive: Bool, now: NIODeadline) -> ResponseEndAction {
            guard !isClosing else { return .none }
            guard keepAlive else {
                state = .closing(since: now)
                return .closeGracefully
            }
            state = .idle(since: now)
            switch armIfSooner() {
            case .armTimer(let deadline): return .armTimer(at: deadline)
            case .none: return .none
            }
        }

        /// A `CONNECT` was accepted: the requests that follow come through the tunnel.
        mutating func tunnelOpened() {
            isTunnel = true
        }

        /// The connection closes after what has been written — a `400` for a malformed request, a
        /// refusal written below the encoder: `closeGracefully` once, `none` when already closing.
        mutating func closeRequested(now: NIODeadline) -> CloseRequestAction {
            guard !isClosing else { return .none }
            state = .closing(since: now)
            return .closeGracefully
        }

        /// The timer fired at `now`.
        mutating func timerFired(now: NIODeadline) -> TimerFiredAction {
            armedTimer = nil
            guard let deadline else { return .none }
            if deadline > now {
                // The connection moved on since the timer was set: wait for the new deadline.
                armedTimer = deadline
                return .armTimer(at: deadline)
            }
            switch state {
            case .idle:
                // An idle keep-alive connection: closing it is what the client expects sooner or later.
                return .close
            case .readingHead:
                state = .closing(since: now)
                return .answerTimeout(message: Self.timeoutMessage(
                    "the request head did not arrive within \(Self.format(limits.headerTimeoutSeconds)) of its first byte",
                    option: "--header-timeout"
                ))
            case .receiving:
                state = .closing(since: now)
                return .answerTimeout(message: Self.timeoutMessage(
                    "the request body paused for more than \(Self.format(limits.idleTimeoutSeconds))",
                    option: "--idle-timeout"
                ))
            case .answering, .closing:
                return .none
            }
        }

        /// The timer was cancelled (the handlers left the pipeline, or the channel closed).
        mutating func timerCancelled() {
            armedTimer = nil
        }

        // MARK: Helpers

        /// Sets the timer for the deadline unless it fires by then anyway.
        private mutating func armIfSooner() -> TimerAction {
            guard let deadline else { return .none }
            if let armedTimer, armedTimer <= deadline { return .none }
            armedTimer = deadline
            return .armTimer(at: deadline)
        }

        private static func timeoutMessage(_ reason: String, option: String) -> String {
            "Airlock MockServer: \(reason); the connection is closed. (Limits: MockServer.ConnectionLimits, or airlock serve \(option).)\n"
        }

        private static func format(_ seconds: Double) -> String {
            seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
        }
    }
}
