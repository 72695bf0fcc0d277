import AirlockBase
import Foundation
import HTTPMock
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streaming.md's samples, run: what the article says they do, they do.
struct StreamingDocumentationTests {
    /// A data delegate that keeps each piece and tells when the task ends.
    final class EventReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let pieces = Locked<[String]>([])
        let onPiece: @Sendable (String) -> Void
        private let finished: AsyncStream<Void>.Continuation
        let ended: AsyncStream<Void>

        init(onPiece: @escaping @Sendable (String) -> Void = { _ in }) {
            self.onPiece = onPiece
            (ended, finished) = AsyncStream.makeStream()
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let text = String(decoding: data, as: UTF8.self)
            pieces.withLock { $0.append(text) }
            onPiece(text)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            finished.finish()
        }
    }

    @Test func theChatCompletionSampleStreamsEachEventToTheDelegate() async {
        let mock = HTTPMock()
        registerChatCompletionEvents(on: mock)
        let reader = EventReader()
        let session = startChatCompletion(on: mock, eventReader: reader)
        for await _ in reader.ended {}
        #expect(reader.pieces.withLock { $0 } == [
            "id: 1\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
            "id: 2\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n",
            "data: [DONE]\n\n",
        ])
        session.invalidateAndCancel()
    }

    @Test func theGateSampleKeepsTheFeedOpenUntilItOpens() async throws {
        let mock = HTTPMock()
        let sawFirst = AsyncStream<Void>.makeStream()
        let reader = EventReader { text in if text.contains("first") { sawFirst.continuation.yield() } }
        let session = mock.makeURLSession(configuration: .ephemeral, delegate: reader)
        let opened = Locked<Date?>(nil)
        let ended = Task { for await _ in reader.ended {}; return Date() }
        try await feedThatWaitsOnAGate(on: mock) {
            session.dataTask(with: URL(string: "https://live.example.com/feed")!).resume()
            for await _ in sawFirst.stream { break }
            // The app has "first". The gate opens a while later: a stream that ended on its own
            // would end before it opened.
            try await Task.sleep(for: .milliseconds(300))
            opened.withLock { $0 = Date() }
        }
        let endedAt = await ended.value
        #expect(endedAt >= (try #require(opened.withLock { $0 })))
        #expect(reader.pieces.withLock { $0 } == ["data: first\n\n"])
        session.invalidateAndCancel()
    }

    @Test func theResumeSampleAnswersALastEventIDWithTheRest() async throws {
        let mock = HTTPMock()
        resumableEvents(on: mock)
        var request = URLRequest(url: URL(string: "https://live.example.com/events")!)
        let (first, _) = try await mock.urlSession.data(for: request)
        #expect(String(decoding: first, as: UTF8.self) == "id: 1\ndata: one\n\nid: 2\ndata: two\n\n")
        request.setValue("2", forHTTPHeaderField: "Last-Event-ID")
        let (resumed, _) = try await mock.urlSession.data(for: request)
        #expect(String(decoding: resumed, as: UTF8.self) == "id: 3\ndata: three\n\n")
    }

    /// The recorded-stream sample on a real recording (`Tests/Fixtures/Streams/chat.har`: three
    /// events 0.3 s apart): replayed at once, each part still reaches the delegate on its own.
    @Test func theRecordedStreamSampleReplaysChatHarsPartsAtOnce() async throws {
        let mock = try recordedStreamReplayedAtOnce(fixtures: Repository.fixture("Streams"))
        let reader = EventReader()
        let session = mock.makeURLSession(configuration: .ephemeral, delegate: reader)
        session.dataTask(with: URL(string: "https://api.example.com/events?count=3&pause=0.3")!).resume()
        for await _ in reader.ended {}
        #expect(reader.pieces.withLock { $0 } == [
            "id: 1\ndata: {\"n\":1}\n\n",
            "id: 2\ndata: {\"n\":2}\n\n",
            "id: 3\ndata: {\"n\":3}\n\n",
        ])
        session.invalidateAndCancel()
    }

    @Test func theNDJSONAndPaceSamplesKeepTheirParts() {
        #expect(ndjsonParts().first?.stream?.parts.map(\.delay) == [0, 0.05])
        #expect(ndjsonParts().first?.headers["Content-Type"] == "application/x-ndjson")
        #expect(instantStream().stream?.parts.map(\.delay) == [0, 0])
        #expect(instantStream().stream?.body == Data("ab".utf8))
    }
}
