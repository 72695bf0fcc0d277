import Foundation
import HTTPMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The Swift samples of Streaming.md, verbatim (CodeBlockTests checks that every sample appears in
// these files). StreamingDocumentationTests runs them.

// Streaming.md: events for an LLM-style POST.
func registerChatCompletionEvents(on mock: HTTPMock) {
    mock.registerResponses {
        Host("api.openai.example") {
            Path("/v1/chat/completions", requiring: .post) {
                MockResponse.events([
                    ServerSentEvent(#"{"choices":[{"delta":{"content":"Hel"}}]}"#, id: "1"),
                    ServerSentEvent(#"{"choices":[{"delta":{"content":"lo"}}]}"#, id: "2", after: 0.05),
                    ServerSentEvent("[DONE]", after: 0.05),
                ])
            }
        }
    }
}

// Streaming.md: reading the events part by part with a data delegate.
func startChatCompletion(on mock: HTTPMock, eventReader: any URLSessionDataDelegate) -> URLSession {
    let session = mock.makeURLSession(configuration: .ephemeral, delegate: eventReader)
    var request = URLRequest(url: URL(string: "https://api.openai.example/v1/chat/completions")!)
    request.httpMethod = "POST"
    session.dataTask(with: request).resume()
    return session
}

// Streaming.md: NDJSON parts.
@MockResponseBuilder
func ndjsonParts() -> [MockResponse] {
    MockResponse.stream([
        StreamPart(#"{"response":"Hel"}"# + "\n"),
        StreamPart(#"{"response":"lo","done":true}"# + "\n", after: 0.05),
    ], contentType: "application/x-ndjson")
}

// Streaming.md: a stream that stays open until the test opens its gate.
func feedThatWaitsOnAGate(on mock: HTTPMock, appShowsTheFirstEvent: () async throws -> Void) async rethrows {
    let done = StreamGate()
    mock.registerResponses {
        Host("live.example.com") {
            Path("/feed") { MockResponse.events([ServerSentEvent("first")], ending: .gate(done)) }
        }
    }
    try await appShowsTheFirstEvent()   // … and waits for more
    done.open()   // the stream ends now
}

// Streaming.md: reconnecting with Last-Event-ID.
func resumableEvents(on mock: HTTPMock) {
    mock.registerResponses {
        Host("live.example.com") {
            Path("/events", requiring: .header("Last-Event-ID", "2")) {
                MockResponse.events([ServerSentEvent("three", id: "3")])
            }
            Path("/events") {
                MockResponse.events([ServerSentEvent("one", id: "1"), ServerSentEvent("two", id: "2")])
            }
        }
    }
}

// Streaming.md: pace.
func instantStream() -> MockResponse {
    let instant = MockResponse.stream([StreamPart("a", after: 600), StreamPart("b", after: 600)]).paced(by: 0)
    return instant
}
