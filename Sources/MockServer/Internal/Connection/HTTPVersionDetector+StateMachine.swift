import NIOCore

extension HTTPVersionDetector {
    /// Which HTTP a connection speaks, told once from what comes first: the protocol TLS
    /// negotiated through ALPN (`h2`, `http/1.1`) or, without one (plain HTTP, or a TLS client
    /// that named no protocol), the first bytes: HTTP/2's connection preface
    /// (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, RFC 9113 §3.4, "prior knowledge") or anything else.
    ///
    /// It touches no channel: ``HTTPVersionDetector`` feeds it each event and performs the
    /// action it returns. Bytes that could still begin the preface are kept until the rest
    /// arrives (a client may send the preface in pieces); the first byte that differs decides
    /// HTTP/1.1, so an HTTP/1.1 request is handed on with its first read. Putting HTTP/2's
    /// handlers in place takes a turn of the event loop (SwiftNIO's HTTP/1.1 decoder leaves the
    /// pipeline on the next tick): what arrives meanwhile is kept, and handed over with the rest.
    struct StateMachine {
        /// The HTTP/2 connection preface every HTTP/2 client sends first.
        static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

        enum State {
            /// Nothing tells yet; the bytes so far (a beginning of the preface) are kept.
            case undecided(kept: ByteBuffer?)
            /// HTTP/2 it is, and its handlers are being put in place; the bytes so far are kept.
            case switchingToHTTP2(kept: ByteBuffer?)
            /// The choice is made: the detector has left.
            case decided
        }

        /// What the detector does next.
        enum Action: Equatable {
            /// Wait for more bytes (those arrived are a beginning of the preface, kept).
            case wait
            /// Serve HTTP/1.1: hand on these bytes (if any) to the HTTP/1.1 pipeline, and leave.
            case serveHTTP1(ByteBuffer?)
            /// Serve HTTP/2: put its pipeline in place of HTTP/1.1's, then report
            /// ``switchedToHTTP2()``.
            case switchToHTTP2
            /// HTTP/2's handlers are in place: hand them these bytes (if any), and leave.
            case handOverToHTTP2(ByteBuffer?)
            /// Nothing: the choice was made already.
            case none
        }

        private(set) var state: State = .undecided(kept: nil)

        /// TLS finished its handshake with `negotiated` (ALPN), `nil` when the client named none.
        mutating func handshakeCompleted(negotiated: String?) -> Action {
            guard case .undecided(let kept) = state else { return .none }
            switch negotiated {
            case "h2":
                state = .switchingToHTTP2(kept: kept)
                return .switchToHTTP2
            case "http/1.1":
                state = .decided
                return .serveHTTP1(kept)
            default:
                // No protocol (or one the server did not offer): the first bytes tell.
                return .wait
            }
        }

        /// Bytes arrived.
        mutating func bytesArrived(_ bytes: ByteBuffer) -> Action {
            let all: ByteBuffer
            switch state {
            case .undecided(let kept):
                all = Self.joined(kept, bytes)
            case .switchingToHTTP2(let kept):
                state = .switchingToHTTP2(kept: Self.joined(kept, bytes))
                return .wait
            case .decided:
                return .none
            }
            let count = min(all.readableBytes, Self.preface.count)
            let prefix = all.readableBytesView.prefix(count)
            guard prefix.elementsEqual(Self.preface.prefix(count)) else {
                state = .decided
                return .serveHTTP1(all)
            }
            guard count == Self.preface.count else {
                // A beginning of the preface (or an empty read): wait for the rest.
                state = .undecided(kept: all)
                return .wait
            }
            state = .switchingToHTTP2(kept: all)
            return .switchToHTTP2
        }

        /// HTTP/2's handlers are in place.
        mutating func switchedToHTTP2() -> Action {
            guard case .switchingToHTTP2(let kept) = state else { return .none }
            state = .decided
            return .handOverToHTTP2(kept)
        }

        private static func joined(_ kept: ByteBuffer?, _ bytes: ByteBuffer) -> ByteBuffer {
            guard var kept else { return bytes }
            var bytes = bytes
            kept.writeBuffer(&bytes)
            return kept
        }

        /// The client closed its side before anything decided: what it sent (a beginning of the
        /// preface, or nothing) goes to HTTP/1.1, whose decoder reports what is wrong with it.
        mutating func inputEnded() -> Action {
            guard case .undecided(let kept) = state else { return .none }
            state = .decided
            return .serveHTTP1(kept)
        }
    }
}
