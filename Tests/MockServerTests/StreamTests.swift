import AirlockBase
import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOHTTP1
import Testing

/// Streams through a real socket: server-sent events and chunked parts, read by AsyncHTTPClient
/// part by part, with the pause between parts observed (a lower bound, never an upper one).
@Suite struct ServerStreamTests {
    @Test func aPostIsAnsweredByEventsThatArriveOneByOneWithTheirPauses() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") {
                Path("/v1/chat/completions", requiring: .post) {
                    MockResponse.events([
                        ServerSentEvent(#"{"delta":"Hel"}"#, id: "1"),
                        ServerSentEvent(#"{"delta":"lo"}"#, event: "delta", id: "2", after: 0.2),
                        ServerSentEvent("[DONE]", after: 0.2),
                    ])
                }
            }
        }
        try await withServer(mock) { server in
            try await withClient { client in
                let received = try await readStream(client, server.baseURL.absoluteString + "/v1/chat/completions", method: .POST, body: #"{"stream":true}"#)
                #expect(received.status == 200)
                #expect(received.headers["Content-Type"] == ["text/event-stream"])
                #expect(received.headers["Content-Length"].isEmpty)
                #expect(received.headers["Transfer-Encoding"] == ["chunked"])
                #expect(received.headers["Cache-Control"] == ["no-cache"])
                #expect(received.text == "id: 1\ndata: {\"delta\":\"Hel\"}\n\nevent: delta\nid: 2\ndata: {\"delta\":\"lo\"}\n\ndata: [DONE]\n\n")
                // Each event in a part of its own, the pause between them kept (at least).
                #expect(received.parts.map(\.text) == ["id: 1\ndata: {\"delta\":\"Hel\"}\n\n", "event: delta\nid: 2\ndata: {\"delta\":\"lo\"}\n\n", "data: [DONE]\n\n"])
                if received.parts.count == 3 {
                    #expect(received.arrivals[1] >= 0.2)
                    #expect(received.arrivals[2] >= 0.4)
                }
            }
            let journal = mock.requests
            #expect(journal.last?.response?.stream?.parts.count == 3)
            #expect(journal.last?.response?.stream?.kind == .events)
        }
    }

    @Test func chunkedPartsKeepTheirBoundariesAndTheConnectionServesTheNextRequest() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") {
                Path("/api/generate") {
                    MockResponse.stream(
                        [StreamPart(#"{"response":"Hel"}"# + "\n"), StreamPart(#"{"response":"lo","done":true}"# + "\n", after: 0.1)],
                        contentType: "application/x-ndjson",
                        lifetime: .eternal
                    )
                }
            }
        }
        try await withServer(mock) { server in
            try await withClient { client in
                for _ in 0..<2 {
                    let received = try await readStream(client, server.baseURL.absoluteString + "/api/generate")
                    #expect(received.headers["Content-Type"] == ["application/x-ndjson"])
                    #expect(received.parts.map(\.text) == [#"{"response":"Hel"}"# + "\n", #"{"response":"lo","done":true}"# + "\n"])
                }
            }
        }
    }

    @Test func aStreamThatWaitsOnAGateEndsOnlyWhenTheTestOpensIt() async throws {
        let gate = StreamGate()
        let opened = Locked<Date?>(nil)
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") {
                Path("/feed") { MockResponse.events([ServerSentEvent("first"), ServerSentEvent("second")], ending: .gate(gate)) }
            }
        }
        try await withServer(mock) { server in
            try await withClient { client in
                let received = try await readStream(client, server.baseURL.absoluteString + "/feed") { _, text in
                    guard text.contains("second") else { return }
                    // Both events are in. The gate opens a while later: a stream that ended on its
                    // own would end before it opened.
                    Task {
                        try await Task.sleep(for: .milliseconds(300))
                        opened.withLock { $0 = Date() }
                        gate.open()
                    }
                }
                let ended = Date()
                let openedAt = try #require(opened.withLock { $0 }, "the stream ended before the gate opened")
                #expect(ended >= openedAt)
                #expect(received.text == "data: first\n\ndata: second\n\n")
            }
        }
    }

    /// `keepOpen`: after its last part the stream stays open until the client leaves. By
    /// construction: a stream that ends writes its end, and reports the exchange to the
    /// configuration's exchange handler, in the same turn of its event loop as its last part; so a
    /// request sent on another connection once the client has the last part, reported while the
    /// stream is not, shows the stream still open.
    @Test func aStreamKeptOpenStaysOpenAfterItsLastPartUntilTheClientLeaves() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") {
                Path("/feed") { MockResponse.events([ServerSentEvent("first"), ServerSentEvent("last", after: 0.05)], ending: .keepOpen) }
                Path("/ping") { MockResponse.plaintext("pong", lifetime: .eternal) }
            }
        }
        let reported = Locked<[String]>([])
        let configuration = MockServer.Configuration(exchangeHandler: { exchange in reported.withLock { $0.append(exchange.target) } })
        try await withServer(mock, configuration: configuration) { server in
            try await withRawConnection(to: server) { feed in
                try await feed.send("GET /feed HTTP/1.1\r\nHost: localhost\r\n\r\n")
                await feed.read { String(decoding: $0, as: UTF8.self).contains("data: last\n\n") }
                #expect(feed.ending == nil, "the stream ended: \(feed.text)")
                let ping = try await rawExchange(port: server.port, "GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                #expect(ping.hasSuffix("pong"), "\(ping)")
                #expect(reported.withLock { $0 } == ["/ping"], "the stream ended after its last part")
            }
            // The client has left: its entry holds the whole stream, with no failure, and the
            // server serves on.
            let entry = try #require(mock.requests(matching: .path("/feed")).first?.response)
            #expect(entry.status == 200)
            #expect(entry.error == nil)
            #expect(entry.stream?.ending == .keepOpen)
            #expect(entry.stream?.parts.map { String(decoding: $0.bytes, as: UTF8.self) } == ["data: first\n\n", "data: last\n\n"])
            #expect(try await rawExchange(port: server.port, "GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").hasSuffix("pong"))
        }
    }

    @Test func lastEventIDReachesMatchersSoAReconnectResumes() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") {
                Path("/events", requiring: .header("Last-Event-ID", "2")) {
                    MockResponse.events([ServerSentEvent("three", id: "3")])
                }
                Path("/events") { MockResponse.events([ServerSentEvent("one", id: "1"), ServerSentEvent("two", id: "2")]) }
            }
        }
        try await withServer(mock) { server in
            try await withClient { client in
                let first = try await readStream(client, server.baseURL.absoluteString + "/events")
                #expect(first.text == "id: 1\ndata: one\n\nid: 2\ndata: two\n\n")
                let resumed = try await readStream(client, server.baseURL.absoluteString + "/events", headers: [("Last-Event-ID", "2")])
                #expect(resumed.text == "id: 3\ndata: three\n\n")
            }
        }
    }

    @Test func anHTTP10ClientGetsTheStreamEndedByAClose() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") { Path("/events") { MockResponse.events([ServerSentEvent("one"), ServerSentEvent("two")]) } }
        }
        try await withServer(mock) { server in
            let answer = try await rawExchange(port: server.port, "GET /events HTTP/1.0\r\nHost: localhost\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.0 200 OK\r\n"))
            #expect(!answer.lowercased().contains("transfer-encoding"))
            #expect(answer.hasSuffix("\r\n\r\ndata: one\n\ndata: two\n\n"))
        }
    }
}

/// The event's wire form, as the `text/event-stream` format spells it.
@Suite struct ServerSentEventEncodingTests {
    @Test func fieldsAndMultilineDataAndCommentsAreSpelledAsTheFormatSays() {
        #expect(String(decoding: ServerSentEvent("a\nb\r\nc", event: "e", id: "7", retry: 1500).encoded, as: UTF8.self) == "event: e\nid: 7\nretry: 1500\ndata: a\ndata: b\ndata: c\n\n")
        #expect(String(decoding: ServerSentEvent.comment("keep-alive").encoded, as: UTF8.self) == ": keep-alive\n\n")
        #expect(String(decoding: ServerSentEvent(retry: 10).encoded, as: UTF8.self) == "retry: 10\n\n")
    }

    @Test func anEventTheFormatCannotCarryFailsWithAMessageThatNamesIt() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**") { Path("/bad") { MockResponse.events([ServerSentEvent("x", id: "1\n2")]) } }
        }
        try await withServer(mock) { server in
            let (status, text) = try await fetch(server.baseURL.appendingPathComponent("bad"))
            #expect(status == 500)
            #expect(text.contains("the event id \"1\\n2\" holds a line break"))
        }
    }
}
