import AirlockCore
import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOPosix
import Testing
import ProcessSupport

/// What the server sends on to a real host (recording, passthrough) goes over SwiftNIO's HTTP/1.1
/// client pipeline: the request as the client sent it, the real host's certificate verified, and
/// a clear `502` when the host cannot be reached or does not answer.
struct ForwarderTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-forwarder")
    private var folder: URL { temporary.url }

    /// A reverse proxy for `upstream` that records into a cassette of its own; always shut down.
    private func withRecorder(upstream: URL, _ body: (MockServer) async throws -> Void) async throws {
        let cassette = try Cassette(contentsOf: folder.appendingPathComponent("\(UUID().uuidString).har"), mode: .all, environment: [:])
        var configuration = MockServer.Configuration(upstream: upstream)
        configuration.eventLoopGroup = testEventLoops
        let recorder = MockServer(cassette: cassette, configuration: configuration)
        try await recorder.start()
        do {
            try await body(recorder)
            try await recorder.shutdown()
        } catch {
            try? await recorder.shutdown()
            throw error
        }
    }

    @Test func theRequestReachesTheUpstreamAsTheClientSentIt() async throws {
        let api = HTTPMock()
        api.addResponses(forPath: "/users", host: "**", requiring: .post) { MockResponse.plaintext("created", status: .created) }
        api.addResponses(forPath: "/items", host: "**") { MockResponse.plaintext("one") }
        try await withServer(api) { upstream in
            try await withRecorder(upstream: upstream.baseURL) { recorder in
                try await withClient { client in
                    let created = try await send(
                        client, "\(recorder.baseURL.absoluteString)/users?q=a%20b",
                        method: .POST, headers: [("X-Trace", "1"), ("Content-Type", "application/json"), ("X-Trace", "2")], body: #"{"name":"Ada"}"#
                    )
                    #expect(created.status == 201 && created.text == "created")
                    let head = try await send(client, "\(recorder.baseURL.absoluteString)/items", method: .HEAD)
                    #expect(head.status == 200 && head.text.isEmpty)
                }
            }
            let sent = try #require(api.requests.first)
            #expect(sent.method == "POST")
            #expect(sent.url.hasSuffix("/users?q=a%20b"), "\(sent.url)")
            #expect(sent.body == Data(#"{"name":"Ada"}"#.utf8))
            #expect(sent.headers.filter { $0.name == "X-Trace" }.map(\.value) == ["1", "2"])
            #expect(sent.headers.first { $0.name.lowercased() == "content-length" }?.value == "14")
            #expect(sent.headers.first { $0.name.lowercased() == "host" }?.value == "127.0.0.1:\(upstream.port)")
            #expect(api.requests.map(\.method) == ["POST", "HEAD"])
        }
    }

    #if HTTPS
    @Test func anUpstreamWhoseCertificateIsNotTrustedIsRefused() async throws {
        // The upstream speaks HTTPS with a certificate from a fresh Airlock CA, which no system trusts.
        let api = HTTPMock()
        api.addResponses(forPath: "/items", host: "**") { MockResponse.plaintext("from the upstream") }
        let authority = folder.appendingPathComponent("ca")
        try await withServer(api, configuration: .init(tls: .init(certificateAuthorityDirectory: authority))) { upstream in
            #expect(upstream.baseURL.scheme == "https")
            try await withRecorder(upstream: upstream.baseURL) { recorder in
                try await withClient { client in
                    let answer = try await send(client, "\(recorder.baseURL.absoluteString)/items")
                    #expect(answer.status == 502)
                    #expect(answer.text.contains("passthrough to \(upstream.baseURL.absoluteString)/items failed"), "\(answer.text)")
                    #expect(answer.text.contains("CERTIFICATE_VERIFY_FAILED"), "\(answer.text)")
                    #expect(!answer.text.contains("from the upstream"))
                }
            }
            #expect(api.requests.isEmpty)
        }
    }
    #endif

    @Test func anUpstreamThatClosesWithoutAnsweringGetsA502() async throws {
        // A host that reads the request and closes the connection without a word.
        let closer = try await ServerBootstrap(group: testEventLoops)
            .childChannelInitializer { channel in channel.pipeline.addHandler(CloseOnRead()) }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = try #require(closer.localAddress?.port)
        do {
            try await withRecorder(upstream: URL(string: "http://127.0.0.1:\(port)")!) { recorder in
                try await withClient { client in
                    let answer = try await send(client, "\(recorder.baseURL.absoluteString)/items")
                    #expect(answer.status == 502)
                    #expect(answer.text.contains("the connection closed before the response was complete"), "\(answer.text)")
                }
            }
            try await closer.close()
        } catch {
            try? await closer.close()
            throw error
        }
    }
}

/// Closes the connection once the request's first bytes are read (read, so the close is a clean
/// end of stream rather than a reset).
private final class CloseOnRead: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.close(promise: nil)
    }
}
