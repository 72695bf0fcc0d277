import AirlockCore
import Foundation
import NIOCore
import NIOWebSocket
import WebSocketKit

/// A websocket-kit client (a client no one here wrote) whose messages a test awaits one by one:
/// what MockServer's WebSocket tests and the WebSocket documentation samples talk to the server with.
package struct WebSocketTestClient: Sendable {
    package let socket: WebSocket
    private let messages: AsyncStream<WebSocketMessage>

    /// Connects to `url` (directly, or through a server as an HTTP proxy with `CONNECT`) on `group`.
    package static func connect(
        _ url: String,
        proxyPort: Int? = nil,
        configuration: WebSocketClient.Configuration = .init(),
        on group: any EventLoopGroup
    ) async throws -> WebSocketTestClient {
        let (messages, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self)
        let opened = group.next().makePromise(of: WebSocket.self)
        let onUpgrade: @Sendable (WebSocket) -> Void = { socket in
            // Set before the first frame is read: the upgrade runs on the socket's event loop.
            socket.onText { _, text in continuation.yield(.text(text)) }
            socket.onBinary { _, buffer in continuation.yield(.binary(Data(buffer.readableBytesView))) }
            socket.onClose.whenComplete { _ in continuation.finish() }
            opened.succeed(socket)
        }
        let connecting: EventLoopFuture<Void>
        if let proxyPort {
            connecting = WebSocket.connect(to: url, proxy: "127.0.0.1", proxyPort: proxyPort, configuration: configuration, on: group, onUpgrade: onUpgrade)
        } else {
            connecting = WebSocket.connect(to: url, configuration: configuration, on: group, onUpgrade: onUpgrade)
        }
        connecting.whenFailure { opened.fail($0) }
        return WebSocketTestClient(socket: try await opened.futureResult.get(), messages: messages)
    }

    /// The next message the server sends; `nil` once the connection has closed.
    package func next() async -> WebSocketMessage? {
        var iterator = messages.makeAsyncIterator()
        return await iterator.next()
    }

    /// Sends a text message and waits until it is written.
    package func send(_ text: String) async throws {
        let sent = socket.eventLoop.makePromise(of: Void.self)
        socket.send(text, promise: sent)
        try await sent.futureResult.get()
    }

    /// Waits until the connection has closed; returns the close code the server sent.
    package func closed() async throws -> WebSocketErrorCode? {
        try await socket.onClose.get()
        return socket.closeCode
    }
}
