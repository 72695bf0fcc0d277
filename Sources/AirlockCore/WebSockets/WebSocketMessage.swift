import Foundation

/// One WebSocket message: text or binary, as a client or a script sends it.
///
/// ```swift
/// WebSocketMessage.text("hello")
/// WebSocketMessage.binary(Data([0x01, 0x02]))
/// ```
public enum WebSocketMessage: Hashable, Sendable, CustomStringConvertible {
    /// A text message (opcode 1), UTF-8 on the wire.
    case text(String)
    /// A binary message (opcode 2).
    case binary(Data)

    /// The message's bytes: the text as UTF-8, or the binary data.
    public var bytes: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }

    /// The text of a text message; `nil` for a binary one.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// `text "hello"` or `binary 2 bytes`.
    public var description: String {
        switch self {
        case .text(let text): "text \"\(text)\""
        case .binary(let data): "binary \(data.count) bytes"
        }
    }
}
