import AirlockBase
import Foundation
import HTTPMock
import HTTPTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streams in process: a `URLSession` data delegate receives each part as it is sent; a task with
/// a completion handler receives the whole body.
@Suite struct InProcessStreamTests {
    private func session(for mock: HTTPMock, delegate: PieceCollector) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = mock.urlSession.configuration.protocolClasses
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    @Test func aDataDelegateReceivesEachEventAsItIsSentWithItsPause() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/v1/messages", requiring: .post) {
                    MockResponse.events([
                        ServerSentEvent(#"{"type":"message_start"}"#, event: "message_start"),
                        ServerSentEvent(#"{"type":"content_block_delta"}"#, event: "content_block_delta", after: 0.2),
                        ServerSentEvent(#"{"type":"message_stop"}"#, event: "message_stop", after: 0.2),
                    ])
                }
            }
        }
        let collector = PieceCollector()
        let session = session(for: mock, delegate: collector)
        var request = URLRequest(url: URL(string: "https://api.example.com/v1/messages")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"stream":true}"#.utf8)
        let sent = Date()
        session.dataTask(with: request).resume()
        for await error in collector.ended { #expect(error == nil) }
        #expect(collector.texts == [
            "event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        ])
        // A piece may arrive late on a loaded machine, never before its pauses have passed.
        let arrivals = collector.pieces.withLock { $0.map { $0.at.timeIntervalSince(sent) } }
        if arrivals.count == 3 {
            #expect(arrivals[1] >= 0.2)
            #expect(arrivals[2] >= 0.4)
        }
        session.invalidateAndCancel()
    }

    @Test func aCompletionHandlerGetsTheWholeStream() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/lines") { MockResponse.stream([StreamPart("a\n"), StreamPart("b\n", after: 0.05), StreamPart("c\n", after: 0.05)], contentType: "application/x-ndjson") }
            }
        }
        let (data, response) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/lines")!)
        #expect(String(decoding: data, as: UTF8.self) == "a\nb\nc\n")
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/x-ndjson")
    }

    @Test func aStreamThatStaysOpenEndsWhenTheGateOpens() async throws {
        let gate = StreamGate()
        let opened = Locked<Date?>(nil)
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/feed") { MockResponse.events([ServerSentEvent("hello")], ending: .gate(gate)) }
            }
        }
        let collector = PieceCollector { data in
            guard String(decoding: data, as: UTF8.self).contains("hello") else { return }
            // The gate opens a while later: a stream that ended on its own would end before.
            Task {
                try await Task.sleep(for: .milliseconds(300))
                opened.withLock { $0 = Date() }
                gate.open()
            }
        }
        let session = session(for: mock, delegate: collector)
        session.dataTask(with: URL(string: "https://api.example.com/feed")!).resume()
        for await error in collector.ended { #expect(error == nil) }
        let ended = Date()
        let openedAt = try #require(opened.withLock { $0 }, "the stream ended before the gate opened")
        #expect(ended >= openedAt)
        #expect(collector.texts == ["data: hello\n\n"])
        session.invalidateAndCancel()
    }

    @Test func aPaceOfZeroSendsEveryPartAtOnceKeepingTheirBoundaries() async throws {
        let response = MockResponse.stream([StreamPart("a", after: 600), StreamPart("b", after: 600)]).paced(by: 0)
        #expect(response.stream?.parts == [StreamPart("a"), StreamPart("b")])
        let mock = HTTPMock()
        mock.registerResponses { Host("api.example.com") { Path("/slow") { response } } }
        let collector = PieceCollector()
        let session = session(for: mock, delegate: collector)
        session.dataTask(with: URL(string: "https://api.example.com/slow")!).resume()
        for await error in collector.ended { #expect(error == nil) }
        // Each part reaches the delegate on its own: the boundaries stay, not only the bytes.
        #expect(collector.texts == ["a", "b"])
        session.invalidateAndCancel()
    }
}
