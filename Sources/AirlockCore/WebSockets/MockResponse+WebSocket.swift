import Foundation

extension MockResponse {
    /// A WebSocket: the server accepts the opening request's upgrade (`101 Switching Protocols`)
    /// and plays `script` on the connection, one player per connection.
    ///
    /// ```swift
    /// server.registerResponses {
    ///     Host("**") {
    ///         Path("/chat") {
    ///             MockResponse.webSocket([.send(.text("welcome")), .echoUntilClosed], lifetime: .eternal)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Only a server (`MockServer`, `airlock serve`) can carry a WebSocket. A `URLProtocol` cannot:
    /// `URLSessionWebSocketTask` never reaches one, and `HTTPMock` answers a plain request for this
    /// response with an error that says to use `MockServer`. A request that does not ask for the
    /// upgrade (no `Upgrade: websocket`, no `Sec-WebSocket-Key`) gets `400`.
    ///
    /// - Parameters:
    ///   - script: What the connection does once it is open.
    ///   - lifetime: How many connections the stub opens. Defaults to `.single`.
    ///   - headers: Extra fields of the `101` response, such as `Sec-WebSocket-Protocol`.
    /// - Returns: A mocked response.
    public static func webSocket(_ script: WebSocketScript, lifetime: Lifetime = .single, headers: [String: String] = [:]) -> MockResponse {
        MockResponse(
            body: script.problem.map { .failure("\($0). Fix the WebSocketScript.") } ?? .webSocket(script),
            contentType: nil,
            status: .other(101),
            lifetime: lifetime,
            delivery: .instant,
            headers: headers
        )
    }

    /// The script this response plays, if it is a WebSocket.
    public var webSocketScript: WebSocketScript? {
        if case .webSocket(let script) = body { return script }
        return nil
    }
}
