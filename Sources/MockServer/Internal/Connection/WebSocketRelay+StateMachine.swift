import AirlockCore
import Foundation
import NIOCore
import NIOWebSocket

extension WebSocketRelay {
    /// The one model of a relayed WebSocket's life: whether the client's side is in place yet
    /// (frames the upstream sends before it are held), which side has sent its close frame, and
    /// what of the conversation a recording cassette keeps.
    ///
    /// It touches no channel. Its owner, ``WebSocketRelay``, feeds it what happens and performs
    /// the action it returns, one action type per event, as Hummingbird's
    /// `HTTPConnectionStateHandler` and AsyncHTTPClient's `Transaction.StateMachine` do:
    ///
    /// | Event | Action |
    /// |---|---|
    /// | ``clientOpened(_:)`` | ``ClientOpenedAction`` |
    /// | ``frameReceived(_:fromClient:at:)`` | ``FrameAction`` |
    /// | ``sideClosed(fromClient:)`` | ``SideClosedAction`` |
    ///
    /// The upstream's side is in place when the relay is made: the machine starts
    /// ``State/waitingForClient(early:upstreamClosed:)``, holding what the upstream sends until
    /// the client has its `101` (``State/open(_:)``). Once both sides have sent a close frame both
    /// connections close; the first connection that closes ends the conversation
    /// (``State/finished``), and the cassette gets it with every frame — up to the limit of bytes
    /// of messages and close reasons, past which it is relayed whole but not recorded.
    struct StateMachine {
        /// Where the conversation is.
        enum State {
            /// The upstream accepted; the client's side is not in place yet. `early`: the frames
            /// the upstream sent meanwhile, in order; `upstreamClosed`: its connection closed.
            case waitingForClient(early: [WebSocketFrame], upstreamClosed: Bool)
            /// Both sides are in place and frames pass both ways.
            case open(Conversation)
            /// A connection closed, and the conversation was handed over: frames still in flight
            /// are relayed and go into the journal, but no longer into the recording.
            case finished
        }

        /// A conversation under way: the `101` the client got, who has sent a close frame, and
        /// the frames kept for the cassette.
        struct Conversation {
            /// The `101` the client got, as recorded.
            let opening: RecordedResponse
            var closeFromClient = false
            var closeFromUpstream = false
            /// The frames kept, in order; emptied once they pass the limit.
            var frames: [RecordedWebSocketFrame] = []
            var bytes = 0
            var isOverLimit = false
        }

        // MARK: Actions, one type per event

        /// What follows the client's side coming into place.
        struct ClientOpenedAction {
            /// The frames the upstream sent before, to relay now, in order (each an event of its own).
            let early: [WebSocketFrame]
            /// Whether both connections close once those are written: the upstream has closed already.
            let closeBoth: Bool
        }

        /// What follows a frame from either side.
        enum FrameAction: Equatable {
            /// The client's side is not in place: the frame waits (``ClientOpenedAction/early``).
            case hold
            /// A frame that is not relayed (a continuation the aggregator joins, a reserved opcode
            /// the protocol handler answers).
            case drop
            /// Relay the frame to the other side, after `journal` (if any) went into the
            /// journal entry; `closeBoth`: both sides have now sent a close frame, so both
            /// connections close once what was written to them has gone out.
            case relay(journal: RecordedWebSocketFrame?, closeBoth: Bool)
        }

        /// What follows one side's connection closing.
        enum SideClosedAction {
            /// Close the other side, and nothing else.
            case closeOther
            /// Close the other side and hand the conversation to the recording cassette.
            case closeOtherAndRecord(RecordedResponse, frames: [RecordedWebSocketFrame])
            /// Close the other side; the conversation passed the limit and is not recorded (the
            /// journal says why).
            case closeOtherOverLimit
        }

        private(set) var state: State = .waitingForClient(early: [], upstreamClosed: false)
        /// The most bytes of frames recorded for the cassette (the server's body limit).
        let limit: Int
        /// Whether a recording cassette keeps the conversation (without one, only the journal does).
        let keepsConversation: Bool

        /// A machine for a relay whose upstream has accepted.
        /// - Parameters:
        ///   - limit: The most bytes of messages and close reasons kept for the cassette.
        ///   - keepsConversation: Whether a recording cassette keeps the conversation.
        init(limit: Int, keepsConversation: Bool) {
            self.limit = limit
            self.keepsConversation = keepsConversation
        }

        // MARK: Events

        /// The client has its `101`, recorded as `opening`, and its side is in place.
        mutating func clientOpened(_ opening: RecordedResponse) -> ClientOpenedAction {
            guard case .waitingForClient(let early, let upstreamClosed) = state else {
                return ClientOpenedAction(early: [], closeBoth: false)
            }
            state = .open(Conversation(opening: opening))
            // An upstream that closed before: the client gets everything it sent, and the
            // connection ends.
            return ClientOpenedAction(early: early, closeBoth: upstreamClosed)
        }

        /// A frame arrived from the client (`fromClient`) or the upstream at `date`.
        mutating func frameReceived(_ frame: WebSocketFrame, fromClient: Bool, at date: Date) -> FrameAction {
            if case .waitingForClient(var early, let upstreamClosed) = state {
                guard fromClient else {
                    early.append(frame)
                    state = .waitingForClient(early: early, upstreamClosed: upstreamClosed)
                    return .hold
                }
            }
            guard let content = Self.content(of: frame) else {
                return frame.opcode == .ping || frame.opcode == .pong ? .relay(journal: nil, closeBoth: false) : .drop
            }
            let recorded = RecordedWebSocketFrame(direction: fromClient ? .fromClient : .toClient, content: content, date: date)
            guard case .open(var conversation) = state else { return .relay(journal: recorded, closeBoth: false) }
            if keepsConversation, !conversation.isOverLimit {
                conversation.bytes += recorded.size
                if conversation.bytes > limit {
                    conversation.isOverLimit = true
                    conversation.frames = []
                } else {
                    conversation.frames.append(recorded)
                }
            }
            var closeBoth = false
            if frame.opcode == .connectionClose {
                let bothBefore = conversation.closeFromClient && conversation.closeFromUpstream
                if fromClient { conversation.closeFromClient = true } else { conversation.closeFromUpstream = true }
                closeBoth = !bothBefore && conversation.closeFromClient && conversation.closeFromUpstream
            }
            state = .open(conversation)
            return .relay(journal: recorded, closeBoth: closeBoth)
        }

        /// The client's (`fromClient`) or the upstream's connection closed.
        mutating func sideClosed(fromClient: Bool) -> SideClosedAction {
            switch state {
            case .waitingForClient(let early, _):
                // The client's side is not in place: it learns of the close once it is.
                if !fromClient { state = .waitingForClient(early: early, upstreamClosed: true) }
                return .closeOther
            case .open(let conversation):
                state = .finished
                if conversation.isOverLimit { return .closeOtherOverLimit }
                return .closeOtherAndRecord(conversation.opening, frames: conversation.frames)
            case .finished:
                return .closeOther
            }
        }

        /// What a frame says, as recorded: a message's text or bytes, a close frame's code and
        /// reason; `nil` for a ping, a pong, a continuation or a reserved opcode.
        static func content(of frame: WebSocketFrame) -> RecordedWebSocketFrame.Content? {
            var data = frame.unmaskedData
            switch frame.opcode {
            case .text:
                return .message(.text(data.getString(at: data.readerIndex, length: data.readableBytes) ?? ""))
            case .binary:
                return .message(.binary(Data(data.readableBytesView)))
            case .connectionClose:
                let code = data.readInteger(as: UInt16.self)
                let reason = data.readString(length: data.readableBytes) ?? ""
                return .close(code: code, reason: reason)
            default:
                return nil
            }
        }
    }
}
