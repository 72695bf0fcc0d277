import Foundation
import HTTPMockTesting
import MockServer
import Testing

// The Swift samples of WebSockets.md (MockServer) and of the HTTPMock and Airgap articles'
// WebSocket notes, verbatim. WebSocketDocumentationTests runs the script and push samples with a
// websocket-kit client.

func webSocketScriptSample(chatWithTheApp: (String) async throws -> Void) async throws {
    let server = MockServer()
    server.registerResponses {
        Host("**") {
            Path("/chat") {
                MockResponse.webSocket([
                    .send(.text("welcome")),              // at once, after the upgrade
                    .expect(.text(matching: "hello*")),   // waits for a matching client message
                    .send(.text("hi")),                   // the reply
                    .echo(count: 2),                      // sends the next two messages back
                    .close(code: 4000, reason: "bye"),    // a close frame with this code
                ], lifetime: .eternal)
            }
        }
    }
    try await server.start()
    try await chatWithTheApp("ws://127.0.0.1:\(server.port)/chat")   // any WebSocket client
    try await server.shutdown()
}

func webSocketPushSample(server: MockServer) {
    let reached = server.webSockets.send(.text("news"), toConnectionsMatching: .path("/chat"))
    server.webSockets.close(connectionsMatching: .query(["room": "b"]), code: 4001)
    _ = reached
}

func webSocketVerifySample(server: MockServer) {
    server.verify(.path("/chat") && .webSocketMessageFromClient(.text(matching: "hello*")), .exactly(1))
    let frames = server.requests(matching: .path("/chat")).last?.webSocketFrames ?? []
    let sent = frames.filter { $0.direction == .fromClient }.compactMap(\.message)
    _ = sent
}

// HTTPMock's Responses.md and Airgap's HowAirgapWorks.md: the MockServer way for WebSocket code.
func webSocketInsteadOfURLProtocolSample() async throws {
    let server = MockServer()
    server.registerResponses {
        Host("**") { Path("/live") { MockResponse.webSocket([.send(.text("hello")), .echoUntilClosed]) } }
    }
    try await server.start()
    let url = URL(string: "ws://127.0.0.1:\(server.port)/live")!   // give this to the app's WebSocket client
    _ = url
    try await server.shutdown()
}
