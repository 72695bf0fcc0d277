import AirlockBase
import Foundation

extension MockResponse {
    /// A response of server-sent events (`text/event-stream`), each sent after its pause: what
    /// an LLM API, an MCP server or a live feed answers with, for any method.
    ///
    /// ```swift
    /// MockResponse.events([
    ///     ServerSentEvent(#"{"delta":"Hel"}"#, id: "1"),
    ///     ServerSentEvent(#"{"delta":"lo"}"#, id: "2", after: 0.05),
    ///     ServerSentEvent("[DONE]", after: 0.05),
    /// ])
    /// ```
    ///
    /// A server sends it without `Content-Length`, flushing each event; a `URLSession` data
    /// delegate receives each event in its own `didReceive` (a completion handler gets the whole
    /// body when the stream ends). A request's `Last-Event-ID` header is there for matchers and
    /// templates, so a reconnect can resume where it left off.
    ///
    /// - Parameters:
    ///   - events: The events, in order.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the head is sent. Defaults to `.instant`.
    ///   - headers: Response headers; `Content-Type` defaults to `text/event-stream`.
    ///   - ending: What happens after the last event. Defaults to ``ResponseStream/Ending/close``.
    /// - Returns: A mocked response.
    public static func events(
        _ events: [ServerSentEvent],
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        ending: ResponseStream.Ending = .close
    ) -> MockResponse {
        let stream = ResponseStream(kind: .events, parts: events.map(\.part), ending: ending)
        let problem = events.lazy.compactMap(\.problem).first
        return MockResponse(
            body: problem.map { .failure("\($0). Fix the ServerSentEvent.") } ?? .stream(stream),
            contentType: "text/event-stream",
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: MockResponse.streamHeaders(headers)
        )
    }

    /// A response of server-sent events, built with a result builder.
    ///
    /// ```swift
    /// MockResponse.events {
    ///     ServerSentEvent("one")
    ///     ServerSentEvent("two", after: 0.1)
    /// }
    /// ```
    /// - Parameters:
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the head is sent. Defaults to `.instant`.
    ///   - headers: Response headers; `Content-Type` defaults to `text/event-stream`.
    ///   - ending: What happens after the last event. Defaults to ``ResponseStream/Ending/close``.
    ///   - events: The events, in order.
    /// - Returns: A mocked response.
    public static func events(
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        ending: ResponseStream.Ending = .close,
        @ElementBuilder<ServerSentEvent> _ events: () -> [ServerSentEvent]
    ) -> MockResponse {
        self.events(events(), status: status, lifetime: lifetime, delivery: delivery, headers: headers, ending: ending)
    }

    /// A response whose body is sent in parts, each after its pause: NDJSON lines, a chunked
    /// download, anything an app reads as it arrives.
    ///
    /// ```swift
    /// MockResponse.stream([
    ///     StreamPart(#"{"response":"Hel"}"# + "\n"),
    ///     StreamPart(#"{"response":"lo","done":true}"# + "\n", after: 0.05),
    /// ], contentType: "application/x-ndjson")
    /// ```
    ///
    /// - Parameters:
    ///   - parts: The parts, in order.
    ///   - contentType: The `Content-Type`, if any. An explicit `Content-Type` in `headers` wins.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the head is sent. Defaults to `.instant`.
    ///   - headers: Response headers.
    ///   - ending: What happens after the last part. Defaults to ``ResponseStream/Ending/close``.
    /// - Returns: A mocked response.
    public static func stream(
        _ parts: [StreamPart],
        contentType: String? = nil,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        ending: ResponseStream.Ending = .close
    ) -> MockResponse {
        MockResponse(
            body: .stream(ResponseStream(kind: .chunks, parts: parts, ending: ending)),
            contentType: contentType,
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// The stream this response sends, if it is one.
    public var stream: ResponseStream? {
        if case .stream(let stream) = body { return stream }
        return nil
    }

    /// The same response with its stream's pauses multiplied by `factor` (`0`: every part at
    /// once); any other response as it is.
    public func paced(by factor: Double) -> MockResponse {
        guard let stream else { return self }
        return with(body: .stream(stream.paced(by: factor)))
    }

    /// An event stream's headers: `Cache-Control: no-cache` unless given, as servers of events
    /// send it so that no cache holds the stream back.
    private static func streamHeaders(_ headers: [String: String]) -> [String: String] {
        guard !headers.keys.contains(where: { $0.lowercased() == "cache-control" }) else { return headers }
        var headers = headers
        headers["Cache-Control"] = "no-cache"
        return headers
    }
}
