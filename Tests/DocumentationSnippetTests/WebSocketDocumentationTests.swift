import Foundation
import MockServer
import NIOPosix
import Testing
import WebSocketTestSupport

/// WebSockets.md's (and Streaming.md's) script and push samples, run with websocket-kit, a client
/// no one here wrote: what the articles say they do, they do.
struct WebSocketDocumentationTests {
    private static func connect(_ url: String) async throws -> WebSocketTestClient {
        try await WebSocketTestClient.connect(url, on: MultiThreadedEventLoopGroup.singleton)
    }

    @Test func theScriptSamplePlaysItsConversationAndShutsItsServerDown() async throws {
        var seen: [WebSocketMessage?] = []
        var address: String?
        try await webSocketScriptSample { url in
            address = url
            let client = try await Self.connect(url)
            seen.append(await client.next())
            // A message the script does not wait for is passed over.
            try await client.send("not yet")
            try await client.send("hello there")
            seen.append(await client.next())
            for message in ["one", "two"] {
                try await client.send(message)
                seen.append(await client.next())
            }
            #expect(try await client.closed() == .unknown(4000))
        }
        #expect(seen == [.text("welcome"), .text("hi"), .text("one"), .text("two")])
        // The sample shut its server down: nothing answers at its address any more.
        let url = try #require(address)
        await #expect(throws: (any Error).self) { _ = try await Self.connect(url) }
    }

    @Test func thePushSampleReachesTheChatsAndClosesRoomB() async throws {
        let server = MockServer()
        server.registerResponses {
            Host("**") { Path("/chat") { MockResponse.webSocket([.send(.text("ready")), .echoUntilClosed], lifetime: .eternal) } }
        }
        try await server.start()
        do {
            let roomA = try await Self.connect("ws://127.0.0.1:\(server.port)/chat?room=a")
            let roomB = try await Self.connect("ws://127.0.0.1:\(server.port)/chat?room=b")
            for client in [roomA, roomB] { #expect(await client.next() == .text("ready")) }
            webSocketPushSample(server: server)
            #expect(await roomA.next() == .text("news"))
            #expect(await roomB.next() == .text("news"))
            #expect(try await roomB.closed() == .unknown(4001))
            // Room a stays open: it still echoes.
            try await roomA.send("still here")
            #expect(await roomA.next() == .text("still here"))
            try await roomA.socket.close(code: .normalClosure).get()
            try await server.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}
