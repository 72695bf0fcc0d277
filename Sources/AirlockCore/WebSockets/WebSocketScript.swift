import Foundation

/// What a mocked WebSocket does once it has upgraded: a list of steps played in order, one
/// player per connection (each connection starts at the first step).
///
/// ```swift
/// let chat: WebSocketScript = [
///     .send(.text("welcome")),
///     .expect(.text(matching: "hello*")),  // waits for a matching message
///     .send(.text("hi")),                  // the reply
///     .echo(count: 2),                     // echoes the next two messages
///     .wait(0.5),                          // half a second before the next step
///     .close(code: 1000),
/// ]
/// let response = MockResponse.webSocket(chat)
/// ```
///
/// Serve it with `MockServer`: a `URLProtocol` cannot carry a WebSocket, so `HTTPMock` answers a
/// request for it with an error that says so. After the last step the connection stays open:
/// messages the client sends are recorded and left unanswered, and a test can still push
/// messages (`server.webSockets.send(_:toConnectionsMatching:)`).
public struct WebSocketScript: Hashable, Sendable, ExpressibleByArrayLiteral {
    /// One step of a script.
    public enum Step: Hashable, Sendable {
        /// Sends a message to the client (a greeting, or after ``expect(_:)``, the reply).
        case send(WebSocketMessage)
        /// Waits for a client message the matcher accepts; messages it does not accept are
        /// recorded and passed over.
        case expect(WebSocketMessageMatcher)
        /// Sends each of the client's next `count` messages back to it.
        case echo(count: Int)
        /// Sends every message the client sends from now on back to it, until it closes.
        case echoUntilClosed
        /// Closes the connection with a close frame of this status code (1000: normal) and reason.
        case close(code: UInt16, reason: String)
        /// Waits this many seconds before the steps after it (a recorded conversation's pauses).
        /// Messages the client sends meanwhile are recorded; what they set off goes out after the
        /// steps the wait holds back, in order.
        case wait(TimeInterval)

        /// Closes with `code` (1000: a normal close) and no reason.
        public static func close(code: UInt16 = 1000) -> Step { .close(code: code, reason: "") }

        /// Echoes the client's next message.
        public static var echo: Step { .echo(count: 1) }
    }

    /// The steps, in order.
    public let steps: [Step]

    /// A script of `steps`.
    public init(_ steps: [Step]) {
        self.steps = steps
    }

    /// A script of the steps listed: `[.send(.text("welcome")), .echoUntilClosed]`.
    public init(arrayLiteral steps: Step...) {
        self.init(steps)
    }

    /// What is wrong with the script, if anything: a negative echo count or wait, a close code a
    /// server may not send (RFC 6455 §7.4), a reason longer than a close frame carries.
    var problem: String? {
        for step in steps {
            switch step {
            case .echo(let count) where count < 0:
                return "an echo step counts \(count) messages; give 0 or more"
            case .wait(let seconds) where !seconds.isFinite || seconds < 0:
                return "a wait step is \(seconds) seconds; give a finite number of 0 or more"
            case .close(let code, let reason):
                if !Self.isSendable(closeCode: code) {
                    return "close code \(code) may not be sent (RFC 6455 §7.4): use 1000-1003, 1007-1014, or 3000-4999"
                }
                if reason.utf8.count > 123 { return "a close reason is at most 123 bytes of UTF-8 (\(reason.utf8.count) given)" }
            default:
                continue
            }
        }
        return nil
    }

    /// Whether a server may send `code` in a close frame (RFC 6455 §7.4.1, 7.4.2).
    package static func isSendable(closeCode code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
