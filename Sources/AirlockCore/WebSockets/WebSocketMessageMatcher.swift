import AirlockBase
import Foundation

/// Which client message a ``WebSocketScript`` waits for (``WebSocketScript/Step/expect(_:)``) or a
/// verification counts.
///
/// ```swift
/// WebSocketMessageMatcher.text("ping")              // exactly "ping"
/// WebSocketMessageMatcher.text(matching: "hello*")  // `*` stands for any run of characters
/// WebSocketMessageMatcher.text(containing: "token")
/// WebSocketMessageMatcher.any
/// ```
public struct WebSocketMessageMatcher: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case any
        case text(String)
        case textPattern(String)
        case textContaining(String)
        case anyBinary
        case binary(Data)
    }

    private let kind: Kind

    /// Any message, text or binary.
    public static var any: WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .any) }

    /// A text message that is exactly `text`.
    public static func text(_ text: String) -> WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .text(text)) }

    /// A text message that matches `pattern`, where `*` stands for any run of characters
    /// (`hello*`, `*"type":"join"*`).
    public static func text(matching pattern: String) -> WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .textPattern(pattern)) }

    /// A text message that contains `text`.
    public static func text(containing text: String) -> WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .textContaining(text)) }

    /// Any binary message.
    public static var binary: WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .anyBinary) }

    /// A binary message of exactly these bytes.
    public static func binary(_ data: Data) -> WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .binary(data)) }

    /// Whether `message` is one this matcher accepts.
    public func matches(_ message: WebSocketMessage) -> Bool {
        switch (kind, message) {
        case (.any, _): true
        case (.text(let expected), .text(let text)): text == expected
        case (.textPattern(let pattern), .text(let text)): Glob(Substring(pattern)).matches(Substring(text))
        case (.textContaining(let part), .text(let text)): part.isEmpty || text.contains(part)
        case (.anyBinary, .binary): true
        case (.binary(let expected), .binary(let data)): data == expected
        default: false
        }
    }

    /// `text matching "hello*"`, as messages show the matcher.
    public var description: String {
        switch kind {
        case .any: "any message"
        case .text(let text): "text \"\(text)\""
        case .textPattern(let pattern): "text matching \"\(pattern)\""
        case .textContaining(let part): "text containing \"\(part)\""
        case .anyBinary: "any binary message"
        case .binary(let data): "binary \(data.count) bytes"
        }
    }
}
