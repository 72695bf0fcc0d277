import Foundation

extension RequestMatcher {
    /// The request opened a WebSocket on which the client sent a message `message` accepts:
    /// verify what a client sent with the mock's `verify`.
    ///
    /// ```swift
    /// server.verify(.path("/chat") && .webSocketMessageFromClient(.text(matching: "hello*")), .exactly(1))
    /// ```
    ///
    /// - Parameter message: Which message the client must have sent.
    /// - Returns: A matcher of opening requests.
    public static func webSocketMessageFromClient(_ message: WebSocketMessageMatcher) -> RequestMatcher {
        RequestMatcher(description: "a WebSocket on which the client sent \(message)") { request in
            let sent = request.webSocketMessagesFromClient
            guard !sent.contains(where: message.matches) else { return [] }
            let shown = sent.suffix(5).map(\.description).joined(separator: ", ")
            return ["the client sent no \(message)" + (sent.isEmpty ? " (no messages)" : "; it sent \(shown)")]
        }
    }
}
