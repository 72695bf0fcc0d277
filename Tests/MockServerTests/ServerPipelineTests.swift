import HTTPMock
import MockServer
import NIOCore
import NIOEmbedded
import Testing

/// The server's real connection pipeline (``MockServer/acceptConnection(_:)``, what `start()` sets
/// up for every connection) on an `EmbeddedChannel`: bytes in, bytes out, and time that passes
/// only when the test advances it — every timeout is exact, and no test sleeps.
struct ServerPipelineTests {
    /// A server's connection on an embedded channel, with the kernel's half-close stood in for.
    private struct Connection {
        let server: MockServer
        let channel: EmbeddedChannel
        let loop: EmbeddedEventLoop
        let halfClose: HalfCloseRecorder

        init(limits: MockServer.ConnectionLimits = .init(headerTimeout: 2, idleTimeout: 10), maxRequestBodySize: Int = 1_024) throws {
            loop = EmbeddedEventLoop()
            channel = EmbeddedChannel(loop: loop)
            server = MockServer(configuration: .init(maxRequestBodySize: maxRequestBodySize, limits: limits))
            halfClose = HalfCloseRecorder()
            channel.localAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 8080)
            try server.acceptConnection(channel)
            try channel.pipeline.syncOperations.addHandler(halfClose, position: .first)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40_000)).wait()
        }

        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
        }

        /// Everything the server has written since the last call, as text.
        func received() throws -> String {
            var text = ""
            while let part = try channel.readOutbound(as: Any.self) {
                switch part {
                case let buffer as ByteBuffer: text += String(buffer: buffer)
                case let data as IOData:
                    guard case .byteBuffer(let buffer) = data else { Issue.record("a file region was written"); continue }
                    text += String(buffer: buffer)
                default: Issue.record("the server wrote \(type(of: part))")
                }
            }
            return text
        }

        func advance(_ amount: TimeAmount) {
            loop.advanceTime(by: amount)
        }
    }

    /// Stands in for the kernel's half-close, which an embedded channel does not have (it closes
    /// completely): records that the server closed its sending side and keeps the channel open,
    /// so that the test sees when the server closes it for good.
    private final class HalfCloseRecorder: ChannelOutboundHandler {
        typealias OutboundIn = Any
        private(set) var isOutputClosed = false

        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            guard mode == .output else { return context.close(mode: mode, promise: promise) }
            isOutputClosed = true
            promise?.succeed(())
        }
    }

    private static let get = "GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n"

    // MARK: Timeouts

    @Test func aHeadThatTricklesGets408AtTheHeaderTimeoutFromItsFirstByte() throws {
        let connection = try Connection(limits: .init(headerTimeout: 2, idleTimeout: 600))
        connection.server.addResponses(forPath: "/x", host: "**") { MockResponse.plaintext("never") }
        // A byte every 100 ms: trickling does not move the deadline.
        for byte in "GET /x HTTP/1.1\r\nHost: a.test\r\nX-Slow: ".prefix(19) {
            try connection.send(String(byte))
            connection.advance(.milliseconds(100))
        }
        #expect(try connection.received() == "")
        connection.advance(.milliseconds(99))
        #expect(try connection.received() == "")
        connection.advance(.milliseconds(1))
        let answer = try connection.received()
        #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain\r\n"), "\(answer)")
        #expect(answer.contains("Connection: close\r\n"))
        #expect(answer.hasSuffix(
            "\r\n\r\nAirlock MockServer: the request head did not arrive within 2 s of its first byte; the connection is closed. "
            + "(Limits: MockServer.ConnectionLimits, or airlock serve --header-timeout.)\n"
        ))
        #expect(connection.halfClose.isOutputClosed)
        // The rest of the head is dropped: it never reaches the mock.
        try connection.send("a\r\n\r\n")
        #expect(try connection.received() == "")
        #expect(connection.server.requests.isEmpty)
    }

    @Test func aKeepAliveConnectionThatServedRequestsGets408WhenItsNextHeadTrickles() throws {
        // The timer waits for the 600 s idle deadline after the responses; the next head's 2 s
        // deadline is sooner and must move it.
        let connection = try Connection(limits: .init(headerTimeout: 2, idleTimeout: 600))
        connection.server.addResponses(forPath: "/x", host: "**") { MockResponse.plaintext("served", lifetime: .eternal) }
        try connection.send(Self.get + Self.get)
        #expect(try connection.received().components(separatedBy: "HTTP/1.1 200 OK").count == 3)
        connection.advance(.seconds(30))
        try connection.send("GET /x HTTP/1.1\r\n")
        connection.advance(.seconds(1))
        try connection.send("Host: a.test\r\n")
        connection.advance(.seconds(1) - .nanoseconds(1))
        #expect(try connection.received() == "")
        connection.advance(.nanoseconds(1))
        #expect(try connection.received().hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(connection.server.requests.count == 2)
    }

    @Test func aClosingConnectionLingersUntilTheLingeringTimeoutThenCloses() throws {
        let connection = try Connection()
        try connection.send("GET /x HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
        #expect(try connection.received().hasPrefix("HTTP/1.1 404"))
        #expect(connection.halfClose.isOutputClosed)
        #expect(connection.channel.isActive)
        // Whatever the client still sends is read and dropped; nothing is answered.
        try connection.send(Self.get)
        #expect(try connection.received() == "")
        connection.advance(.seconds(5) - .nanoseconds(1))
        #expect(connection.channel.isActive)
        connection.advance(.nanoseconds(1))
        #expect(!connection.channel.isActive)
        #expect(connection.server.requests.count == 1)
    }

    @Test func aSilentConnectionIsClosedAtTheIdleTimeout() throws {
        let connection = try Connection(limits: .init(headerTimeout: 600, idleTimeout: 1))
        connection.advance(.milliseconds(999))
        #expect(connection.channel.isActive)
        connection.advance(.milliseconds(1))
        #expect(!connection.channel.isActive)
        #expect(try connection.received() == "")
        #expect(!connection.halfClose.isOutputClosed)
    }

    @Test func aConnectionIsClosedAtTheIdleTimeoutAfterItsLastResponse() throws {
        let connection = try Connection(limits: .init(headerTimeout: 600, idleTimeout: 1))
        connection.server.addResponses(forPath: "/x", host: "**") { MockResponse.plaintext("served", lifetime: .eternal) }
        connection.advance(.milliseconds(500))
        try connection.send(Self.get + Self.get + Self.get)
        #expect(try connection.received().components(separatedBy: "HTTP/1.1 200 OK").count == 4)
        // Idle from the last response, not from the connection's start.
        connection.advance(.milliseconds(999))
        #expect(connection.channel.isActive)
        connection.advance(.milliseconds(1))
        #expect(!connection.channel.isActive)
    }

    @Test func aBodyThatPausesLongerThanTheIdleTimeoutGets408() throws {
        let connection = try Connection(limits: .init(headerTimeout: 600, idleTimeout: 1))
        try connection.send("POST /x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 10\r\n\r\nabc")
        // Each arrival restarts the pause.
        connection.advance(.milliseconds(900))
        try connection.send("def")
        connection.advance(.milliseconds(999))
        #expect(try connection.received() == "")
        connection.advance(.milliseconds(1))
        let answer = try connection.received()
        #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(answer)")
        #expect(answer.contains("the request body paused for more than 1 s; the connection is closed."))
        #expect(answer.contains("airlock serve --idle-timeout"))
        #expect(connection.server.requests.isEmpty)
    }

    @Test func aResponseTheStubDelaysAppearsWhenItsTimeHasPassedAndOutlivesTheIdleTimeout() throws {
        let connection = try Connection(limits: .init(headerTimeout: 1, idleTimeout: 1))
        connection.server.addResponses(forPath: "/late", host: "**") { MockResponse.plaintext("worth the wait", delivery: .delayed(3)) }
        try connection.send("GET /late HTTP/1.1\r\nHost: a.test\r\n\r\n")
        connection.advance(.seconds(3) - .nanoseconds(1))
        #expect(try connection.received() == "")
        #expect(connection.channel.isActive)
        #expect(connection.server.busyConnectionCount == 1)
        connection.advance(.nanoseconds(1))
        let answer = try connection.received()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
        #expect(answer.hasSuffix("\r\n\r\nworth the wait"))
        #expect(connection.server.busyConnectionCount == 0)
    }

    // MARK: Requests

    @Test func pipelinedRequestsAreAnsweredInOrderEvenWhenTheFirstIsDelayed() throws {
        let connection = try Connection()
        connection.server.addResponses(forPath: "/slow", host: "**") { MockResponse.plaintext("first", delivery: .delayed(2)) }
        connection.server.addResponses(forPath: "/fast", host: "**") { MockResponse.plaintext("second") }
        try connection.send("GET /slow HTTP/1.1\r\nHost: a.test\r\n\r\nGET /fast HTTP/1.1\r\nHost: a.test\r\n\r\n")
        #expect(try connection.received() == "")
        connection.advance(.seconds(2))
        let answer = try connection.received()
        let first = try #require(answer.range(of: "first"))
        let second = try #require(answer.range(of: "second"))
        #expect(first.upperBound <= second.lowerBound, "\(answer)")
        #expect(connection.server.requests.map(\.path) == ["/slow", "/fast"])
    }

    @Test func aBodyDeclaredOverTheCapGets413AndTheConnectionClosesGracefully() throws {
        let connection = try Connection(maxRequestBodySize: 8)
        try connection.send("POST /x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 100\r\n\r\n0123456789")
        let answer = try connection.received()
        #expect(answer.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"), "\(answer)")
        #expect(answer.contains("Connection: close\r\n"))
        #expect(answer.hasSuffix(
            "Airlock: the request body is larger than this server accepts (8 bytes). Raise the limit with "
            + "MockServer.Configuration(maxRequestBodySize:) or `airlock serve --max-body-size <bytes>`.\n"
        ))
        #expect(connection.halfClose.isOutputClosed)
        try connection.send(String(repeating: "x", count: 90))
        #expect(try connection.received() == "")
        #expect(connection.server.requests.isEmpty)
    }

    @Test func aChunkedBodyThatGrowsOverTheCapGets413() throws {
        let connection = try Connection(maxRequestBodySize: 8)
        try connection.send("POST /x HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n")
        #expect(try connection.received() == "")
        try connection.send("5\r\n56789\r\n0\r\n\r\n")
        #expect(try connection.received().hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
        #expect(connection.halfClose.isOutputClosed)
    }

    @Test func aMalformedRequestGets400AndTheConnectionClosesGracefully() throws {
        let connection = try Connection()
        try connection.send("GARBAGE\u{1} \r\n\r\n")
        let answer = try connection.received()
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
        #expect(answer.contains("Airlock MockServer: bad request: the method is not a valid token"))
        #expect(connection.halfClose.isOutputClosed)
        try connection.send("more garbage")
        #expect(try connection.received() == "")
    }

    @Test func aRequestsFirstByteMakesTheConnectionBusyAndItsResponseIdleAgain() throws {
        let connection = try Connection()
        connection.server.addResponses(forPath: "/x", host: "**") { MockResponse.plaintext("ok") }
        #expect(connection.server.busyConnectionCount == 0)
        try connection.send("GET /x HTTP/1.1\r\n")
        #expect(connection.server.busyConnectionCount == 1)
        try connection.send("Host: a.test\r\n\r\n")
        #expect(try connection.received().hasPrefix("HTTP/1.1 200 OK"))
        #expect(connection.server.busyConnectionCount == 0)
    }

    @Test func connectToPort443WithoutTLSGets501SayingHowToTurnItOn() throws {
        let connection = try Connection()
        try connection.send("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n")
        let answer = try connection.received()
        #expect(answer.hasPrefix("HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain\r\n"), "\(answer)")
        #expect(answer.contains("HTTPS through CONNECT (api.example.com:443) needs TLS, which is off."))
        #expect(connection.halfClose.isOutputClosed)
    }

    @Test func aPlainConnectTunnelServesTheRequestsInsideItForTheirOwnHost() throws {
        let connection = try Connection()
        connection.server.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext("tunnelled") }
        try connection.send("CONNECT api.example.com:80 HTTP/1.1\r\nHost: api.example.com:80\r\n\r\n")
        #expect(try connection.received().hasPrefix("HTTP/1.1 200 Connection Established\r\n"))
        connection.loop.run()
        try connection.send("GET /users HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        let answer = try connection.received()
        #expect(answer.hasSuffix("\r\n\r\ntunnelled"), "\(answer)")
    }
}
