import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation

/// A WebSocket conversation in a HAR entry: Chrome DevTools' `_webSocketMessages`, read into the
/// opening request's ``RecordedRequest/webSocketFrames`` and written from them.
extension HTTPArchive {
    /// The frames `_webSocketMessages` spell, in order; pings and pongs (opcodes 9 and 10, which
    /// some tools keep) are left out, as the journal leaves them out.
    /// - Throws: `StubFileError` naming the entry, the frame and the field that is wrong.
    static func webSocketFrames(_ messages: [HARFormat.WebSocketMessage]?, at place: String, source: String) throws(StubFileError) -> [RecordedWebSocketFrame] {
        guard let messages else { return [] }
        var frames: [RecordedWebSocketFrame] = []
        for (index, message) in messages.enumerated() {
            let place = "\(place)[\(index)]"
            func invalid(_ field: String, _ problem: String, expected: String) -> StubFileError {
                StubFileError(.invalidValue, file: source, location: "\(place).\(field)", problem: problem, expected: expected)
            }
            let direction: RecordedWebSocketFrame.Direction
            switch message.type {
            case "send": direction = .fromClient
            case "receive": direction = .toClient
            case let other: throw invalid("type", other.map { "is \"\($0)\"" } ?? "is missing", expected: "\"send\" (client to server) or \"receive\"")
            }
            guard let time = message.time, time.isFinite, time >= 0 else {
                throw invalid("time", message.time.map { "is \($0)" } ?? "is missing", expected: "the frame's time in seconds since 1970, such as 1764237600.125")
            }
            let data = message.data ?? ""
            let content: RecordedWebSocketFrame.Content
            switch message.opcode {
            case 1:
                content = .message(.text(data))
            case 2:
                guard let bytes = Data(base64Encoded: data, options: .ignoreUnknownCharacters) else {
                    throw invalid("data", "is not base64", expected: "a binary frame's bytes in base64 (opcode 2)")
                }
                content = .message(.binary(bytes))
            case 8:
                if let code = message.code, UInt16(exactly: code) == nil {
                    throw invalid("code", "is \(code)", expected: "a close code from 0 to 65535")
                }
                content = .close(code: message.code.flatMap { UInt16(exactly: $0) }, reason: data)
            case 9, 10:
                continue
            case let other:
                throw invalid("opcode", other.map { "is \($0)" } ?? "is missing", expected: "1 (text), 2 (binary, base64), 8 (close), or 9 and 10 (ping and pong, left out)")
            }
            frames.append(RecordedWebSocketFrame(direction: direction, content: content, date: Date(timeIntervalSince1970: time)))
        }
        return frames
    }

    /// `_webSocketMessages` for the frames; `nil` when there are none.
    static func webSocketMessages(_ frames: [RecordedWebSocketFrame]) -> [HARFormat.WebSocketMessage]? {
        guard !frames.isEmpty else { return nil }
        return frames.map { frame in
            var message = HARFormat.WebSocketMessage(type: frame.direction == .fromClient ? "send" : "receive", time: frame.date.timeIntervalSince1970)
            switch frame.content {
            case .message(.text(let text)):
                message.opcode = 1
                message.data = text
            case .message(.binary(let data)):
                message.opcode = 2
                message.data = data.base64EncodedString()
            case .close(let code, let reason):
                message.opcode = 8
                message.data = reason
                message.code = code.map(Int.init)
            }
            return message
        }
    }
}
