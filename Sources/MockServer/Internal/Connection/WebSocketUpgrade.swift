@_spi(AirlockTransport) import AirlockCore
import AirlockBase
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Opens a mocked WebSocket on a connection: checks that the request asks for the upgrade,
/// answers `101 Switching Protocols` with SwiftNIO's handshake (`Sec-WebSocket-Accept`), takes
/// the HTTP handlers out of the pipeline and puts SwiftNIO's frame codec and a
/// ``WebSocketSessionHandler`` in. Works the same on plain and TLS connections and inside
/// `CONNECT` tunnels: the handlers it replaces are found by type, wherever they sit.
enum WebSocketUpgrade {
    /// The largest message a client may send, fragments joined (16 MiB).
    static let maxMessageSize = 1 << 24

    /// Answers the opening request in `delivery` and plays `script` on the connection.
    static func open(_ response: MockResponse, playing script: WebSocketScript, for incoming: IncomingRequest, recorder: ExchangeRecorder, on delivery: ExchangeDelivery) {
        let context = delivery.context
        let head = delivery.head
        guard context.channel.isActive else { return }
        guard let problem = problem(with: head) else {
            return accept(response, playing: script, for: incoming, recorder: recorder, on: delivery)
        }
        let message = "Airlock MockServer: \(incoming.url) is a WebSocket stub, but the request \(problem). Connect with a WebSocket client (ws:// or wss://).\n"
        recorder.record(.response(status: 400), headers: [.contentType: "text/plain"], body: Data(message.utf8))
        delivery.report(status: 400, fault: nil, recorder: recorder)
        delivery.respond(status: 400, headers: [.contentType: "text/plain"], body: Data(message.utf8))
    }

    /// Why the request cannot be upgraded, if it cannot.
    static func problem(with head: HTTPRequestHead) -> String? {
        guard head.method == .GET else { return "is a \(head.method.rawValue), not a GET" }
        // RFC 8441 (WebSocket over an HTTP/2 stream) is not offered: a client opens it over HTTP/1.1.
        guard head.version.major != 2 else { return "came over HTTP/2, where the server offers no WebSocket (RFC 8441); connect over HTTP/1.1" }
        guard head.version == .http1_1 else { return "is not HTTP/1.1" }
        guard head.headers[canonicalForm: "upgrade"].contains(where: { $0.lowercased() == "websocket" }) else { return "has no Upgrade: websocket" }
        guard head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "upgrade" }) else { return "has no Connection: Upgrade" }
        guard head.headers.first(name: "Sec-WebSocket-Key")?.isEmpty == false else { return "has no Sec-WebSocket-Key" }
        guard head.headers.first(name: "Sec-WebSocket-Version") == "13" else { return "does not ask for Sec-WebSocket-Version: 13" }
        return nil
    }

    private static func accept(_ response: MockResponse, playing script: WebSocketScript, for incoming: IncomingRequest, recorder: ExchangeRecorder, on delivery: ExchangeDelivery) {
        let hub = delivery.server.webSockets
        let request = recorder.recordedRequest(incoming)
        var fields = HTTPHeaders(response.wireHeaderFields.map { ($0.name.rawName, $0.value) })
        fields.remove(name: "Content-Length")
        fields.remove(name: "Content-Type")
        accept(fields, recorder: recorder, on: delivery) { channel, _ in
            try channel.pipeline.syncOperations.addHandler(WebSocketSessionHandler(script: script, request: request, recorder: recorder, hub: hub))
        }
    }

    /// Answers the opening request in `delivery` with `101 Switching Protocols` — `fields` beside
    /// SwiftNIO's handshake fields — records it, swaps the HTTP handlers for SwiftNIO's frame codec
    /// and an aggregator of fragments, and has `session` add the handler that takes the messages.
    ///
    /// - Parameters:
    ///   - holdsRecording: Whether a recording cassette waits for the conversation (a relay hands
    ///     it over when it ends).
    ///   - session: Adds the session's handler once the connection speaks WebSocket; given the
    ///     channel and the `101` as recorded.
    static func accept(
        _ fields: HTTPHeaders,
        recorder: ExchangeRecorder,
        holdsRecording: Bool = false,
        on delivery: ExchangeDelivery,
        session: @escaping @Sendable (any Channel, RecordedResponse) throws -> Void
    ) {
        let context = delivery.context
        let channel = context.channel
        let head = delivery.head
        // Recorded when the 101 goes out, read when the pipeline switches (later, on the same loop).
        let opening = Locked<RecordedResponse?>(nil)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: maxMessageSize,
            automaticErrorHandling: true,
            // SwiftNIO builds the 101's fields from what this returns (it ignores
            // `initialResponseHeaders`), its handshake fields added.
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(fields) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: maxMessageSize))
                    let response = opening.withLock { $0 } ?? RecordedResponse(outcome: .response(status: 101), headers: HTTPFields(), body: Data(), duration: 0)
                    try session(channel, response)
                }
            }
        )
        upgrader.buildUpgradeResponse(channel: channel, upgradeRequest: head, initialResponseHeaders: fields).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let upgrade):
                let fields = HTTPFields(upgrade.compactMap { field in HTTPField.Name(field.name).map { HTTPField(name: $0, value: field.value) } })
                let response = recorder.record(.response(status: 101), headers: fields, holdsRecording: holdsRecording)
                opening.withLock { $0 = response }
                switchProtocols(with: upgrade, upgrader: upgrader, recorder: recorder, on: delivery)
            case .failure(let error):
                // Checked above; SwiftNIO refuses what the check lets through only for a malformed key.
                let message = "Airlock MockServer: the WebSocket handshake failed (\(error)).\n"
                recorder.record(.response(status: 400), headers: [.contentType: "text/plain"], body: Data(message.utf8))
                delivery.report(status: 400, fault: nil, recorder: recorder)
                delivery.respond(status: 400, headers: [.contentType: "text/plain"], body: Data(message.utf8), closing: true)
            }
        }
    }

    /// Writes the `101`, then swaps the HTTP handlers for the frames'.
    private static func switchProtocols(with upgrade: HTTPHeaders, upgrader: NIOWebSocketServerUpgrader, recorder: ExchangeRecorder, on delivery: ExchangeDelivery) {
        let context = delivery.context
        let channel = context.channel
        let head = delivery.head
        delivery.report(status: 101, fault: nil, recorder: recorder)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: .switchingProtocols, headers: upgrade))), promise: nil)
        // The HTTP handlers leave; SwiftNIO's frame codec and the session join at the end.
        let pipeline = channel.pipeline.syncOperations
        removeHandler(HTTPResponseEncoder.self, from: pipeline)
        removeHandler(NIOHTTPResponseHeadersValidator.self, from: pipeline)
        removeHandler(ByteToMessageHandler<HTTPRequestDecoder>.self, from: pipeline)
        removeHandler(HTTPServerPipelineHandler.self, from: pipeline)
        removeHandler(BadRequestResponder.self, from: pipeline)
        removeHandler(ByteArrivalObserver.self, from: pipeline)
        removeHandler(RequestHandler.self, from: pipeline)
        upgrader.upgrade(context: context, upgradeRequest: head).assumeIsolated().whenComplete { result in
            if case .failure = result { channel.close(promise: nil) } else { channel.read() }
        }
    }

    private static func removeHandler<Handler: RemovableChannelHandler>(_ type: Handler.Type, from pipeline: ChannelPipeline.SynchronousOperations) {
        guard let handler = try? pipeline.handler(type: type) else { return }
        pipeline.removeHandler(handler, promise: nil)
    }
}
