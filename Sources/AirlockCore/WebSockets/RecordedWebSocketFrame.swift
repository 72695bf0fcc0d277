import Foundation

/// One frame of a WebSocket conversation, as the journal keeps it with the opening request
/// (``RecordedRequest/webSocketFrames``): who sent it, what it carried, and when.
///
/// ```swift
/// let chat = server.requests(matching: .path("/chat")).last
/// let sent = chat?.webSocketFrames.filter { $0.direction == .fromClient }.compactMap(\.message)
/// #expect(sent == [.text("hello")])
/// ```
public struct RecordedWebSocketFrame: Hashable, Sendable {
    /// Who sent a frame.
    public enum Direction: String, Hashable, Sendable {
        /// The client sent it to the mock (Chrome's HAR export calls it `send`).
        case fromClient
        /// The mock (or, while recording, the upstream) sent it to the client (`receive`).
        case toClient
    }

    /// What a frame carried.
    public enum Content: Hashable, Sendable {
        /// A whole message (its fragments, if any, joined).
        case message(WebSocketMessage)
        /// A close frame with its status code (`nil`: none given) and reason.
        case close(code: UInt16?, reason: String)
    }

    /// Who sent the frame.
    public let direction: Direction
    /// What it carried.
    public let content: Content
    /// When it was sent or received.
    public let date: Date

    /// A frame as the journal keeps it.
    public init(direction: Direction, content: Content, date: Date) {
        self.direction = direction
        self.content = content
        self.date = date
    }

    /// The bytes the frame carried, as the journal counts them: a message's (text as UTF-8), or
    /// a close frame's reason and code.
    package var size: Int {
        switch content {
        case .message(.text(let text)): text.utf8.count
        case .message(.binary(let data)): data.count
        case .close(let code, let reason): reason.utf8.count + (code == nil ? 0 : 2)
        }
    }

    /// The message the frame carried; `nil` for a close frame.
    public var message: WebSocketMessage? {
        if case .message(let message) = content { return message }
        return nil
    }
}
