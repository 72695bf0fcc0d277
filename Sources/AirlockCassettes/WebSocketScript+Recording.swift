import AirlockCore
import Foundation

extension WebSocketScript {
    /// A recorded WebSocket conversation as a script that plays it back to the same client: what
    /// the server sent before the client's first message goes out at once, each message the
    /// client sent becomes a step that waits for its next message (any message: the replay checks
    /// the order and number of the client's messages, not what they say), followed by what the
    /// server sent after it, and the server's close ends it.
    ///
    /// ```swift
    /// if let chat = server.requests(matching: .path("/chat")).last {
    ///     let replay = MockResponse.webSocket(WebSocketScript(replaying: chat.webSocketFrames, pace: .instant))
    /// }
    /// ```
    ///
    /// Cassettes replay their WebSocket entries (status `101`, with `_webSocketMessages`) this way.
    ///
    /// Each message from the server waits, before it goes out, the time it came after the frame
    /// before it (either side's) in the recording, multiplied by `pace`'s factor: at
    /// ``StreamPace/instant`` the server's messages go out as soon as the client's message they
    /// answer arrives. A close the client sent first is answered by the server as any mocked
    /// WebSocket answers it, so nothing after it is played.
    ///
    /// - Parameters:
    ///   - frames: The conversation, both ways, in order (`RecordedRequest.webSocketFrames`).
    ///   - openedAt: When the WebSocket opened: the first frame's time counts from here. Defaults
    ///     to the first frame's own time.
    ///   - pace: How fast the server's messages follow what came before them. Defaults to
    ///     ``StreamPace/asRecorded``.
    public init(replaying frames: [RecordedWebSocketFrame], openedAt: Date? = nil, pace: StreamPace = .asRecorded) {
        var steps: [Step] = []
        var previous = openedAt ?? frames.first?.date ?? Date()
        frames: for frame in frames {
            let pause = max(0, frame.date.timeIntervalSince(previous)) * pace.factor
            previous = frame.date
            switch (frame.direction, frame.content) {
            case (.fromClient, .message):
                steps.append(.expect(.any))
            case (.fromClient, .close):
                break frames
            case (.toClient, .message(let message)):
                if pause > 0 { steps.append(.wait(pause)) }
                steps.append(.send(message))
            case (.toClient, .close(let code, let reason)):
                if pause > 0 { steps.append(.wait(pause)) }
                steps.append(.close(code: code.flatMap { Self.isSendable(closeCode: $0) ? $0 : nil } ?? 1000, reason: Self.closeReason(reason)))
                break frames
            }
        }
        self.init(steps)
    }

    /// `reason`, shortened by whole characters to what a close frame carries (123 bytes).
    private static func closeReason(_ reason: String) -> String {
        var reason = reason
        while reason.utf8.count > 123 { reason.removeLast() }
        return reason
    }
}
