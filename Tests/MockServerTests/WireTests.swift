import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOPosix
import Testing

/// The server on the wire: raw bytes over real loopback sockets, so that what is checked is what
/// any client (curl, a browser, a pipelining client, a misbehaving one) would see.
struct WireTests {
    // MARK: Pipelining

    @Test func pipelinedRequestsAreAnsweredInTheOrderTheyWereSent() async throws {
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/slow", host: "**") { MockResponse.plaintext("slow answer", delivery: .delayed(1)) }
            server.addResponses(forPath: "/fast", host: "**") { MockResponse.plaintext("fast answer") }
            let clock = ContinuousClock()
            let start = clock.now
            let (responses, received) = try await withRawConnection(to: server) { connection in
                // Both requests in one write: the second is in the server's hands before the first is answered.
                try await connection.send("GET /slow HTTP/1.1\r\nHost: wire.test\r\n\r\nGET /fast HTTP/1.1\r\nHost: wire.test\r\n\r\n")
                return (await connection.readResponses(2), connection.text)
            }
            #expect(responses.map(\.status) == [200, 200], "received: \(received)")
            #expect(responses.map(\.body) == ["slow answer", "fast answer"], "the delayed response must come first; received: \(received)")
            let slow = try #require(received.range(of: "slow answer"))
            let fast = try #require(received.range(of: "fast answer"))
            #expect(slow.upperBound <= fast.lowerBound)
            // The delay really happened, so the instant answer had the chance to overtake it.
            #expect(clock.now - start >= .milliseconds(900))
            #expect(server.requests.map(\.path) == ["/slow", "/fast"])
        }
    }

    @Test func noRequestIsServedAfterOneThatAskedToClose() async throws {
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/last", host: "**") { MockResponse.plaintext("last answer") }
            server.addResponses(forPath: "/ignored", host: "**") { MockResponse.plaintext("must not be served") }
            let (responses, ending, received) = try await withRawConnection(to: server) { connection in
                try await connection.send(
                    "GET /last HTTP/1.1\r\nHost: wire.test\r\nConnection: close\r\n\r\nGET /ignored HTTP/1.1\r\nHost: wire.test\r\n\r\n"
                )
                await connection.readToEnd()
                return (connection.responses, connection.ending, connection.text)
            }
            #expect(responses.first?.body == "last answer", "received: \(received.debugDescription)")
            #expect(responses.first?.header("Connection")?.lowercased() == "close")
            // NIO's parser refuses bytes after `Connection: close`, and its error handler answers
            // them with a 400 (which tells a pipelining client its request was not served).
            #expect(responses.dropFirst().allSatisfy { $0.status == 400 }, "received: \(received.debugDescription)")
            #expect(ending == .closedByServer, "the connection should be closed cleanly; it was \(ending?.description ?? "left open")")
            #expect(server.requests.map(\.path) == ["/last"])
        }
    }

    // MARK: Request body cap

    // The larger bodies are still arriving when the 413 goes out: a server that closed at once,
    // with the client's bytes unread, would reset the connection and could destroy the response.
    @Test(arguments: [1025, 4096, 256 * 1024])
    func aBodyDeclaredOverTheCapGets413NamingTheLimitAndTheConnectionCloses(size: Int) async throws {
        try await withServer(HTTPMock(), configuration: .init(maxRequestBodySize: 1024)) { server in
            server.addResponses(forPath: "/upload", host: "**") { MockResponse.plaintext("stored", lifetime: .eternal) }
            let body = Self.text(count: size)
            let (responses, ending, received) = try await withRawConnection(to: server) { connection in
                try await connection.send("POST /upload HTTP/1.1\r\nHost: wire.test\r\nContent-Length: \(size)\r\n\r\n\(body)")
                await connection.readToEnd()
                return (connection.responses, connection.ending, connection.text)
            }
            try Self.expectBodyTooLarge(responses, ending: ending, received: received, limit: 1024)
            #expect(server.requests.isEmpty, "a rejected body must not reach the mock")
        }
    }

    @Test func aChunkedBodyThatGrowsOverTheCapGets413() async throws {
        try await withServer(HTTPMock(), configuration: .init(maxRequestBodySize: 1024)) { server in
            server.addResponses(forPath: "/upload", host: "**") { MockResponse.plaintext("stored", lifetime: .eternal) }
            let chunk = Self.text(count: 512)
            let (responses, ending, received) = try await withRawConnection(to: server) { connection in
                // Three chunks of 512 bytes and no last chunk: the body is over the cap before it ends.
                try await connection.send("POST /upload HTTP/1.1\r\nHost: wire.test\r\nTransfer-Encoding: chunked\r\n\r\n")
                for _ in 0..<3 {
                    try await connection.send("200\r\n\(chunk)\r\n")
                }
                await connection.readToEnd()
                return (connection.responses, connection.ending, connection.text)
            }
            try Self.expectBodyTooLarge(responses, ending: ending, received: received, limit: 1024)
            #expect(server.requests.isEmpty, "a rejected body must not reach the mock")
        }
    }

    @Test(arguments: [BodyFraming.contentLength, .chunked])
    func aBodyUpToTheCapIsRecordedCompleteAndTheConnectionStaysOpen(framing: BodyFraming) async throws {
        try await withServer(HTTPMock(), configuration: .init(maxRequestBodySize: 1024)) { server in
            server.addResponses(forPath: "/upload", host: "**") { MockResponse.plaintext("stored", lifetime: .eternal) }
            server.addResponses(forPath: "/after", host: "**") { MockResponse.plaintext("still here") }
            let body = Self.text(count: 1024)
            let (responses, ending, received) = try await withRawConnection(to: server) { connection in
                try await connection.send(framing.request(path: "/upload", body: body))
                _ = await connection.readResponses(1)
                try await connection.send("GET /after HTTP/1.1\r\nHost: wire.test\r\n\r\n")
                return (await connection.readResponses(2), connection.ending, connection.text)
            }
            #expect(responses.map(\.status) == [200, 200], "received: \(received)")
            #expect(responses.map(\.body) == ["stored", "still here"])
            #expect(ending == nil, "the connection should stay open; it was \(ending?.description ?? "")")
            let recorded = try #require(server.requests.first)
            #expect(recorded.body?.count == 1024)
            #expect(recorded.bodyText == body)
            #expect(server.requests.map(\.path) == ["/upload", "/after"])
        }
    }

    // MARK: Malformed requests

    @Test(arguments: MalformedRequest.all)
    func aMalformedRequestGets400AndTheConnectionCloses(request: MalformedRequest) async throws {
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/**", host: "**") { MockResponse.plaintext("must not be served", lifetime: .eternal) }
            let (responses, ending, received) = try await withRawConnection(to: server) { connection in
                try await connection.send(request.bytes)
                await connection.readToEnd()
                return (connection.responses, connection.ending, connection.text)
            }
            #expect(responses.map(\.status) == [400], "received: \(received)")
            #expect(responses.first?.header("Connection")?.lowercased() == "close")
            #expect(ending == .closedByServer, "the connection should be closed cleanly; it was \(ending?.description ?? "left open")")
            #expect(server.requests.isEmpty)
        }
    }

    @Test(arguments: [
        (target: "/wire", host: "a/b@c"),
        (target: "/wire", host: "user@wire.test"),
        (target: "ftp://wire.test/file", host: "wire.test"),
    ])
    func aTargetOrHostThatIsNotAnAddressGets400NamingIt(target: String, host: String) async throws {
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/**", host: "**") { MockResponse.plaintext("must not be served", lifetime: .eternal) }
            let (responses, ending, received) = try await withRawConnection(to: server) { connection in
                try await connection.send("GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                await connection.readToEnd()
                return (connection.responses, connection.ending, connection.text)
            }
            let response = try #require(responses.first, "no complete response; received: \(received)")
            #expect(responses.count == 1)
            #expect(response.status == 400)
            #expect(response.body.contains("target \(target) "), "the message should name the target: \(response.body)")
            #expect(response.body.contains(host), "the message should name the Host header: \(response.body)")
            #expect(response.body.contains("origin-form"), "the message should say what to send: \(response.body)")
            #expect(ending == .closedByServer, "the connection should be closed cleanly; it was \(ending?.description ?? "left open")")
            #expect(server.requests.isEmpty)
        }
    }

    // MARK: Load

    /// Runs as an exit test, in a process of its own: with its 4,000 descriptors open in the test
    /// process, Foundation's `Process.run()` of Swift 6.3.1 reads past the buffer it lists
    /// `/proc/self/fd` with (swift-corelibs-foundation#5472) and crashed tests that start processes
    /// at the same moment. Expectations inside are reported here as usual.
    @Test func twoThousandConcurrentKeepAliveConnectionsAllGetTheirResponse() async throws {
        await #expect(processExitsWith: .success) {
            try await WireTests().twoThousandConcurrentKeepAliveConnections()
        }
    }

    private func twoThousandConcurrentKeepAliveConnections() async throws {
        let count = 2_000
        try await withEventLoopsOfItsOwn { eventLoops in
            try await withServerOfItsOwn(on: eventLoops) { server in
                server.addResponses(forPath: "/load/*", host: "**") { MockResponse.plaintext("loaded", lifetime: .eternal) }
                let opening = try await HeldConnection.open(count, to: server, on: eventLoops, deadline: hangGuard)
                let connections = opening.compactMap { try? $0.get() }
                let sent = await connections.send { "GET /load/\($0) HTTP/1.1\r\nHost: wire.test\r\n\r\n" }
                let responses = await connections.firstResponses()
                // No connection is closed before every one has its response, so all were open at once.
                let stillOpen = connections.filter(\.channel.isActive).count
                await connections.closeAll()

                #expect(connections.count == count, "not opened: \(opening.first { (try? $0.get()) == nil }.map { "\($0)" } ?? "-")")
                #expect(sent == count)
                let answered = responses.filter { $0?.status == 200 && $0?.body == "loaded" }
                #expect(answered.count == count, "first failure: \(responses.first { $0?.status != 200 }.map { "\($0?.description ?? "no response")" } ?? "-")")
                // Keep-alive: the server neither announced nor carried out a close.
                #expect(responses.allSatisfy { $0?.header("Connection")?.lowercased() != "close" })
                #expect(stillOpen == count)
                #expect(server.requests.count == count)
                #expect(Set(server.requests.map(\.path)).count == count)
            }
        }
    }

    // MARK: Slow clients

    @Test func clientsHoldingHalfARequestDoNotKeepOthersWaiting() async throws {
        let count = 300
        try await withEventLoopsOfItsOwn { eventLoops in
            try await withServerOfItsOwn(on: eventLoops) { server in
                server.addResponses(forPath: "/stalled/*", host: "**") { MockResponse.plaintext("finally", lifetime: .eternal) }
                server.addResponses(forPath: "/ping", host: "**") { MockResponse.plaintext("pong") }
                let opening = try await HeldConnection.open(count, to: server, on: eventLoops, deadline: hangGuard)
                let stalled = opening.compactMap { try? $0.get() }
                // Half a head: no blank line, and a header without its value.
                let sent = await stalled.send { "GET /stalled/\($0) HTTP/1.1\r\nHost: wire.test\r\nX-Half: " }

                // With the half requests open, a normal client is answered.
                var ping: (status: Int, text: String)?
                do {
                    try await withClient { client in
                        let response = try await send(client, "\(server.baseURL.absoluteString)/ping")
                        ping = (response.status, response.text)
                    }
                } catch {
                    await stalled.closeAll()
                    throw error
                }
                let journalDuringStall = server.requests.map(\.path)
                let stillOpen = stalled.filter(\.channel.isActive).count

                // Then the stalled clients finish: the server kept their connections and half heads.
                let finishing = await stalled.send { _ in "done\r\n\r\n" }
                let responses = await stalled.firstResponses()
                await stalled.closeAll()

                #expect(stalled.count == count && sent == count && finishing == count)
                #expect(ping?.status == 200 && ping?.text == "pong")
                #expect(journalDuringStall == ["/ping"], "only the complete request reaches the mock")
                #expect(stillOpen == count)
                let finished = responses.filter { $0?.status == 200 && $0?.body == "finally" }
                #expect(finished.count == count, "first failure: \(responses.first { $0?.status != 200 }.map { "\($0?.description ?? "no response")" } ?? "-")")
                let halfHeaders = server.requests.filter { $0.path.hasPrefix("/stalled/") }.compactMap { $0.header("X-Half") }
                #expect(halfHeaders.count == count && halfHeaders.allSatisfy { $0 == "done" })
            }
        }
    }

    // MARK: Response files

    @Test func aResponseFileIsServedWhole() async throws {
        let file = try TemporaryFile(contents: (0..<8_000).map { "line \($0) of the response file\n" }.joined(), extension: "txt")
        defer { file.remove() }
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/report", host: "**") { MockResponse.file(url: file.url) }
            try await withClient { client in
                let response = try await send(client, "\(server.baseURL.absoluteString)/report")
                #expect(response.status == 200)
                #expect(response.headers.first(name: "Content-Type") == "text/plain")
                #expect(response.headers.first(name: "Content-Length") == "\(file.contents.utf8.count)")
                #expect(response.text == file.contents)
            }
        }
    }

    @Test func aStubFilesResponseFileIsServedFromBesideTheStubFile() async throws {
        let file = try TemporaryFile(contents: #"{"from": "the stub file's folder"}"#, extension: "json")
        defer { file.remove() }
        let stubs = try StubFile(
            data: Data(#"{"stubs": [{"path": "/from-file", "responses": [{"file": "\#(file.url.lastPathComponent)"}]}]}"#.utf8),
            source: "wire-stubs.json",
            baseDirectory: file.url.deletingLastPathComponent()
        )
        try await withServer(HTTPMock()) { server in
            #expect(server.registerStubs(stubs).isEmpty)
            try await withClient { client in
                let response = try await send(client, "\(server.baseURL.absoluteString)/from-file")
                #expect(response.status == 200)
                #expect(response.headers.first(name: "Content-Type") == "application/json")
                #expect(response.text == file.contents)
            }
        }
    }

    /// A stub file's headers go on the wire in the file's order, after the body's own
    /// `Content-Type` (a WireMock mapping's are sent so too), templated ones as well.
    @Test(arguments: [false, true])
    func aStubFilesHeadersAreSentInTheFilesOrder(template: Bool) async throws {
        let stubs = try StubFile(
            data: Data(
                #"{"stubs": [{"path": "/ordered", "responses": [{"body": "x", "template": \#(template), "headers": {"X-Zeta": "1", "X-Alpha": "{{request.path.[0]}}", "Cache-Control": "no-store", "X-Mid": "3"}}]}]}"#.utf8
            ),
            source: "ordered.json",
            baseDirectory: FileManager.default.temporaryDirectory
        )
        try await withServer(HTTPMock()) { server in
            #expect(server.registerStubs(stubs).isEmpty)
            try await withClient { client in
                let response = try await send(client, "\(server.baseURL.absoluteString)/ordered")
                let names = response.headers.map(\.name).filter { $0 != "Content-Length" && $0 != "Date" && $0 != "Connection" }
                #expect(names == ["Content-Type", "X-Zeta", "X-Alpha", "Cache-Control", "X-Mid"], "\(response.headers)")
                #expect(response.headers.first(name: "X-Alpha") == (template ? "ordered" : "{{request.path.[0]}}"))
            }
        }
    }

    @Test func aMissingResponseFileGets500SayingSo() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-wire-missing-\(UUID().uuidString).json")
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/gone", host: "**") { MockResponse.file(url: missing) }
            try await withClient { client in
                let response = try await send(client, "\(server.baseURL.absoluteString)/gone")
                #expect(response.status == 500)
                #expect(response.text.contains(missing.path), "the message should name the file: \(response.text)")
                #expect(response.text.contains("does not exist"), "the message should say the file is missing: \(response.text)")
            }
            // The journal says the same as the client saw.
            let outcome = server.requests.first?.response?.outcome
            guard case .failure(.fileMissing(let path, _, _))? = outcome else {
                Issue.record("the journal should record the missing file, not \(String(describing: outcome))")
                return
            }
            #expect(path == missing.path)
        }
    }

    // MARK: Helpers

    /// Runs `body` with event loops that it alone uses, and always shuts them down: the load tests
    /// keep their event loops busy, and the shared ones serve timing-sensitive tests elsewhere
    /// (a dribbled body must arrive in pieces).
    private func withEventLoopsOfItsOwn(_ body: (MultiThreadedEventLoopGroup) async throws -> Void) async throws {
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        do {
            try await body(eventLoops)
        } catch {
            try? await eventLoops.shutdownGracefully()
            throw error
        }
        try await eventLoops.shutdownGracefully()
    }

    /// Starts a server of its own on `eventLoops`, runs `body`, and always shuts the server down.
    /// Its timeouts are far off: these tests hold connections half-written or idle on purpose, for
    /// as long as a loaded machine takes (``HostileClientTests`` checks the timeouts).
    private func withServerOfItsOwn(on eventLoops: MultiThreadedEventLoopGroup, _ body: (MockServer) async throws -> Void) async throws {
        let server = MockServer(configuration: .init(eventLoopGroup: eventLoops, limits: .init(headerTimeout: 3_600, idleTimeout: 3_600)))
        do {
            try await server.start()
            try await body(server)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// `count` bytes of letters and digits in no repeating pattern, so a lost or reordered piece shows.
    private static func text(count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// A single 413 that names the limit and both ways to raise it, and a connection the server closed.
    private static func expectBodyTooLarge(
        _ responses: [RawResponse],
        ending: RawConnection.Ending?,
        received: String,
        limit: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let response = try #require(responses.first, "no complete response; received: \(received)", sourceLocation: sourceLocation)
        #expect(responses.count == 1, sourceLocation: sourceLocation)
        #expect(response.status == 413, sourceLocation: sourceLocation)
        #expect(response.header("Connection")?.lowercased() == "close", sourceLocation: sourceLocation)
        #expect(response.body.contains("\(limit) bytes"), "the message should name the limit: \(response.body)", sourceLocation: sourceLocation)
        #expect(response.body.contains("maxRequestBodySize"), "the message should say how to raise it in code: \(response.body)", sourceLocation: sourceLocation)
        #expect(response.body.contains("--max-body-size"), "the message should say how to raise it for the CLI: \(response.body)", sourceLocation: sourceLocation)
        #expect(ending == .closedByServer, "the connection should be closed cleanly; it was \(ending?.description ?? "left open")", sourceLocation: sourceLocation)
    }
}

/// How a request body is framed on the wire.
enum BodyFraming: CaseIterable, Sendable {
    case contentLength
    case chunked

    /// A complete POST of `body` to `path`.
    func request(path: String, body: String) -> String {
        let head = "POST \(path) HTTP/1.1\r\nHost: wire.test\r\n"
        switch self {
        case .contentLength:
            return head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        case .chunked:
            // Pieces of uneven sizes, then the last chunk.
            var chunks = ""
            var rest = Substring(body)
            for size in [1, 255, 512, 256] where !rest.isEmpty {
                let piece = rest.prefix(size)
                rest = rest.dropFirst(piece.count)
                chunks += String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n"
            }
            if !rest.isEmpty { chunks += String(rest.utf8.count, radix: 16) + "\r\n" + rest + "\r\n" }
            return head + "Transfer-Encoding: chunked\r\n\r\n" + chunks + "0\r\n\r\n"
        }
    }
}

/// A request the HTTP parser refuses, named for test output.
struct MalformedRequest: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let bytes: String

    static let all = [
        MalformedRequest(testDescription: "not HTTP at all", bytes: "NOT HTTP\r\n\r\n"),
        MalformedRequest(testDescription: "a space inside the target", bytes: "GET /a b HTTP/1.1\r\nHost: wire.test\r\n\r\n"),
        MalformedRequest(testDescription: "a word after the version", bytes: "GET / HTTP/1.1 trailing\r\nHost: wire.test\r\n\r\n"),
        MalformedRequest(testDescription: "a target without a slash", bytes: "GET wire HTTP/1.1\r\nHost: wire.test\r\n\r\n"),
        MalformedRequest(testDescription: "a header without a colon", bytes: "GET / HTTP/1.1\r\nHost wire.test\r\n\r\n"),
        MalformedRequest(testDescription: "a Content-Length that is not a number", bytes: "GET / HTTP/1.1\r\nContent-Length: ten\r\n\r\n"),
        // The bytes that follow are still unread when the 400 goes out: closing at once would
        // reset the connection and could destroy the response.
        MalformedRequest(
            testDescription: "garbage followed by 150 kB more",
            bytes: "NOT HTTP\r\n\r\n" + String(repeating: "more bytes that are not HTTP either\r\n", count: 4_000)
        ),
    ]
}

/// A file in the temporary folder with known contents.
struct TemporaryFile: Sendable {
    let url: URL
    let contents: String

    init(contents: String, extension fileExtension: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-wire-\(UUID().uuidString).\(fileExtension)")
        self.contents = contents
        try Data(contents.utf8).write(to: url)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
