import AirlockBase
import Foundation

/// The WebSocket connections a server has open, each known by its opening request: a test (or the
/// admin API) pushes a message to every connection whose opening request a matcher accepts.
///
/// ```swift
/// let reached = server.webSockets.send(.text("news"), toConnectionsMatching: .path("/chat"))
/// ```
///
/// A message pushed goes out after whatever the connection's script is sending at that moment,
/// and is recorded in the journal with the connection's other frames.
public final class WebSocketConnections: Sendable {
    /// One open connection: its opening request and how to reach it.
    package struct Connection: Sendable {
        /// The opening request, as the journal recorded it.
        package let request: RecordedRequest
        /// Sends a message on the connection (from any thread; it goes out in order).
        package let send: @Sendable (WebSocketMessage) -> Void
        /// Closes the connection with a close frame of this code and reason.
        package let close: @Sendable (UInt16, String) -> Void

        package init(request: RecordedRequest, send: @escaping @Sendable (WebSocketMessage) -> Void, close: @escaping @Sendable (UInt16, String) -> Void) {
            self.request = request
            self.send = send
            self.close = close
        }
    }

    private struct State {
        var connections: [UInt64: Connection] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Adds an open connection; returns the id to pass to ``closed(_:)``.
    package func opened(_ connection: Connection) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.connections[state.nextID] = connection
            return state.nextID
        }
    }

    /// Forgets a connection that closed.
    package func closed(_ id: UInt64) {
        state.withLock { _ = $0.connections.removeValue(forKey: id) }
    }

    /// The open connections whose opening request `matcher` accepts, oldest first.
    package func connections(matching matcher: RequestMatcher) -> [Connection] {
        state.withLock { state in state.connections.sorted { $0.key < $1.key }.map(\.value) }.filter { matcher.matches($0.request) }
    }

    /// Sends `message` to every open connection whose opening request `matcher` accepts.
    ///
    /// - Parameters:
    ///   - message: The message to send.
    ///   - matcher: Which connections get it, by their opening request: `.path("/chat")`,
    ///     `.header("Sec-WebSocket-Protocol", "v2")`. Defaults to every connection.
    /// - Returns: How many connections the message was sent to.
    @discardableResult
    public func send(_ message: WebSocketMessage, toConnectionsMatching matcher: RequestMatcher = .any) -> Int {
        let reached = connections(matching: matcher)
        for connection in reached { connection.send(message) }
        return reached.count
    }

    /// Closes every open connection whose opening request `matcher` accepts, with a close frame of
    /// `code` (1000: normal) and `reason`.
    /// - Returns: How many connections were closed.
    @discardableResult
    public func close(connectionsMatching matcher: RequestMatcher = .any, code: UInt16 = 1000, reason: String = "") -> Int {
        let reached = connections(matching: matcher)
        for connection in reached { connection.close(code, reason) }
        return reached.count
    }

    /// The opening requests of the connections open now, oldest first.
    public var openRequests: [RecordedRequest] {
        connections(matching: .any).map(\.request)
    }
}
