@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// A WebSocket no stub answers, relayed to its real host while it is recorded: the `.passthrough`
/// policy and recording (`airlock record`), as a reverse proxy, a forward proxy, and inside
/// `CONNECT` tunnels.
///
/// It opens a WebSocket to the upstream with SwiftNIO's client upgrader (on the client
/// connection's own event loop, TLS for `https`), answers the client's upgrade with the
/// upstream's `101` (its fields — the negotiated subprotocol among them — beside the handshake's
/// own), then passes every frame on both ways as it arrives: messages (fragments joined), pings
/// and pongs (each endpoint answers its own), and close frames with their code and reason; once
/// both sides have sent a close, both connections close. Every message and close frame goes into
/// the journal entry as it passes, and the recording cassette gets the exchange with all its
/// frames when the conversation ends (the server stopping ends it too) — up to the body limit
/// (`Configuration.maxRequestBodySize`) of messages and close reasons: a longer conversation is
/// relayed whole but not recorded, and its journal entry says why, as a stream's does.
///
/// Each side goes no faster than the other reads: while a side's connection is not writable,
/// the relay stops reading the other (`autoRead` off) until what was written has gone out, so a
/// client that stops reading leaves the upstream's frames in the upstream's buffers, not in the
/// server's memory.
///
/// No extension is negotiated (the client's `Sec-WebSocket-Extensions` is not passed on): frames
/// are relayed as SwiftNIO reads them, and it reads no compressed ones. An upstream that answers
/// the upgrade with anything but `101` has that answer relayed and recorded as any other
/// response; one that cannot be reached, or does not answer within the forwarding timeout, gets
/// the client a `502` saying why.
///
/// Where the conversation stands is one value, ``StateMachine``: the relay feeds it each event
/// and does what it answers, keeping only the two connections and the last write to each.
final class WebSocketRelay {
    /// One side's connection, once it speaks WebSocket, and the last write to it: a side closes
    /// once what was written to it has gone out.
    private struct Peer {
        var channel: (any Channel)?
        var lastWrite: EventLoopFuture<Void>?
    }

    private var state: StateMachine
    private var client = Peer()
    private var upstream = Peer()
    private let recorder: ExchangeRecorder

    private init(recorder: ExchangeRecorder, limit: Int) {
        self.recorder = recorder
        state = StateMachine(limit: limit, keepsConversation: recorder.isRecording)
    }

    /// Fields of the client's request that are not passed on: the connection's own, and the
    /// handshake's (SwiftNIO's client upgrader writes a key and version of its own; no extension
    /// is negotiated).
    static let requestFieldsNotPassed: Set<String> = ExchangeDelivery.hopByHop.union(["content-length", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"])

    /// Fields of the upstream's `101` that are not passed on: SwiftNIO's server upgrader writes
    /// the handshake's own for the client's key.
    static let responseFieldsNotPassed: Set<String> = ExchangeDelivery.hopByHop.union(["content-length", "sec-websocket-accept", "sec-websocket-extensions"])

    /// Relays the WebSocket that `delivery`'s request opens to `url` (the request's own, or a
    /// proxying stub's target).
    ///
    /// - Parameters:
    ///   - fields: The fields a proxying stub's request carries, as the core decided them; `nil`
    ///     for the request's own.
    ///   - recording: Whether a recording cassette keeps the conversation.
    ///   - timeout: How long the upstream may take to connect and to answer the upgrade.
    static func open(
        to url: String,
        fields: [(name: String, value: String)]? = nil,
        recording: Bool,
        recorder: ExchangeRecorder,
        on delivery: ExchangeDelivery,
        timeout: TimeAmount = .seconds(60)
    ) {
        let eventLoop = delivery.context.eventLoop
        let loopBoundDelivery = NIOLoopBound(delivery, eventLoop: eventLoop)
        guard let endpoint = Forwarder.Endpoint(url) else {
            return refuse(502, .forwardFailed(target: url, error: "it is not an http or https URL"), recorder: recorder, on: delivery)
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.target)
        head.headers.add(name: "Host", value: endpoint.hostField)
        for field in fields ?? delivery.head.headers.map({ (name: $0.name, value: $0.value) }) where !requestFieldsNotPassed.contains(field.name.lowercased()) {
            head.headers.add(name: field.name, value: field.value)
        }
        let requestHead = head
        let relay = NIOLoopBound(WebSocketRelay(recorder: recorder, limit: delivery.server.configuration.maxRequestBodySize), eventLoop: eventLoop)
        let answer = NIOLoopBound(HandshakeAnswer(origin: endpoint.origin, limit: delivery.server.configuration.maxRequestBodySize), eventLoop: eventLoop)
        answer.value.done = { outcome in
            let delivery = loopBoundDelivery.value
            switch outcome {
            case .refused(let status, let headers, let body):
                let fields = HTTPFields(pairs: headers.lazy.filter { !responseFieldsNotPassed.contains($0.name.lowercased()) }.map { (name: $0.name, value: $0.value) })
                recorder.record(.response(status: status), headers: fields, body: body, bodyIsEncoded: true)
                delivery.relayAnswer(status: status, headers: fields, body: ByteBuffer(bytes: body), recorder: recorder)
            case .failed(let reason):
                refuse(502, .forwardFailed(target: url, error: reason), recorder: recorder, on: delivery)
            }
        }
        let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: WebSocketUpgrade.maxMessageSize, automaticErrorHandling: true) { channel, response in
            channel.eventLoop.makeCompletedFuture {
                let pipeline = channel.pipeline.syncOperations
                answer.value.upgraded = true
                answer.value.deadline?.cancel()
                if let handler = try? pipeline.handler(type: HandshakeAnswer.self) { pipeline.removeHandler(handler, promise: nil) }
                try pipeline.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: WebSocketUpgrade.maxMessageSize))
                try pipeline.addHandler(Side(relay: relay.value, isClient: false))
                relay.value.upstream.channel = channel
                relay.value.upstreamOpened(response, recording: recording, on: loopBoundDelivery.value)
            }
        }
        let clientChannel = delivery.context.channel
        delivery.server.forwarder.connect(to: endpoint, on: eventLoop, timeout: timeout) { channel in
            // Bytes that follow the 101 at once (a greeting) are the first frames: kept, not dropped.
            try channel.pipeline.syncOperations.addHTTPClientHandlers(
                leftOverBytesStrategy: .forwardBytes,
                withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
            )
            try channel.pipeline.syncOperations.addHandler(answer.value)
        }.whenComplete { result in
            switch result {
            case .failure(let error):
                answer.value.finish(.failed("could not connect to \(endpoint.origin): \(error)"))
            case .success(let channel):
                // The client leaving ends the relay; an upstream that does not answer in time fails it.
                clientChannel.closeFuture.whenComplete { _ in channel.close(promise: nil) }
                let deadline = eventLoop.scheduleTask(in: timeout) {
                    answer.value.finish(.failed("no answer to the WebSocket upgrade from \(endpoint.origin) within \(timeout.nanoseconds / 1_000_000_000) s"))
                    if !answer.value.upgraded { channel.close(promise: nil) }
                }
                answer.value.deadline = deadline
                channel.closeFuture.whenComplete { _ in deadline.cancel() }
                channel.write(HTTPClientRequestPart.head(requestHead), promise: nil)
                channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in
                    answer.value.finish(.failed("could not send the upgrade request to \(endpoint.origin): \(error)"))
                }
            }
        }
    }

    /// Answers the client with `status` and the failure's message (recorded as the failure).
    private static func refuse(_ status: Int, _ failure: ExchangeFailure, recorder: ExchangeRecorder, on delivery: ExchangeDelivery) {
        recorder.record(.failure(failure))
        delivery.relayAnswer(status: status, headers: [.contentType: "text/plain"], body: ByteBuffer(string: failure.description + "\n"), recorder: recorder)
    }

    // MARK: The conversation

    /// The upstream accepted: the client gets its `101` and its side joins.
    private func upstreamOpened(_ response: HTTPResponseHead, recording: Bool, on delivery: ExchangeDelivery) {
        var fields = HTTPHeaders()
        for field in response.headers where !Self.responseFieldsNotPassed.contains(field.name.lowercased()) {
            fields.add(name: field.name, value: field.value)
        }
        guard delivery.context.channel.isActive else {
            upstream.channel?.close(promise: nil)
            return
        }
        let relay = NIOLoopBound(self, eventLoop: delivery.context.eventLoop)
        WebSocketUpgrade.accept(fields, recorder: recorder, holdsRecording: recording, on: delivery) { channel, opening in
            try channel.pipeline.syncOperations.addHandler(Side(relay: relay.value, isClient: true))
            relay.value.clientOpened(channel, opening: opening)
        }
    }

    private func clientOpened(_ channel: any Channel, opening: RecordedResponse) {
        client.channel = channel
        let action = state.clientOpened(opening)
        for frame in action.early { received(frame, fromClient: false) }
        if action.closeBoth { closeBoth() }
    }

    /// A frame from either side: recorded, and passed on to the other.
    fileprivate func received(_ frame: WebSocketFrame, fromClient: Bool) {
        switch state.frameReceived(frame, fromClient: fromClient, at: Date()) {
        case .hold, .drop:
            return
        case .relay(let journal, let closeBoth):
            if let journal { recorder.record(journal) }
            relay(frame, fromClient: fromClient)
            if closeBoth { self.closeBoth() }
        }
    }

    /// Writes `frame` to the side it is not from; the side it came from is not read again until
    /// it has gone out, when the other side cannot take more for now.
    private func relay(_ frame: WebSocketFrame, fromClient: Bool) {
        guard let target = fromClient ? upstream.channel : client.channel, target.isActive else { return }
        // A client masks what it sends (RFC 6455 §5.3): the relay is the upstream's client.
        let relayed = WebSocketFrame(fin: true, opcode: frame.opcode, maskKey: fromClient ? .random() : nil, data: frame.unmaskedData)
        let written = target.writeAndFlush(relayed)
        if fromClient { upstream.lastWrite = written } else { client.lastWrite = written }
        // Back-pressure: the side that sent this is not read again until it has gone out.
        if !target.isWritable, let source = fromClient ? client.channel : upstream.channel {
            source.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            written.whenComplete { _ in
                guard source.isActive else { return }
                source.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
            }
        }
    }

    /// Closes each side once what was written to it has gone out.
    private func closeBoth() {
        for peer in [client, upstream] {
            guard let channel = peer.channel else { continue }
            if let written = peer.lastWrite { written.whenComplete { _ in channel.close(promise: nil) } } else { channel.close(promise: nil) }
        }
    }

    /// One side's connection closed: the other closes, and the cassette gets the conversation.
    fileprivate func closed(fromClient: Bool) {
        let action = state.sideClosed(fromClient: fromClient)
        (fromClient ? upstream : client).channel?.close(promise: nil)
        switch action {
        case .closeOther:
            break
        case .closeOtherAndRecord(let opening, let frames):
            recorder.recordConversation(opening, frames: frames)
        case .closeOtherOverLimit:
            // Only a recording loses anything: without one, the journal keeps its `101` and the
            // frames its own limits allow.
            recorder.record(.failure(.notRecorded(.webSocket, limit: state.limit)))
        }
    }
}

extension WebSocketRelay {
    /// One side of a relayed WebSocket (the client's or the upstream's): hands the relay what
    /// arrives.
    fileprivate final class Side: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = WebSocketFrame

        private let relay: WebSocketRelay
        private let isClient: Bool

        init(relay: WebSocketRelay, isClient: Bool) {
            self.relay = relay
            self.isClient = isClient
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            relay.received(unwrapInboundIn(data), fromClient: isClient)
        }

        func channelInactive(context: ChannelHandlerContext) {
            relay.closed(fromClient: isClient)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    /// The upstream's answer to the upgrade when it is not a `101`: collected (up to the body
    /// limit) to be relayed; or why there is none. Leaves the pipeline when the upgrade succeeds.
    fileprivate final class HandshakeAnswer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart

        enum Outcome {
            case refused(status: Int, headers: HTTPHeaders, body: Data)
            case failed(String)
        }

        private let origin: String
        private let limit: Int
        private var head: HTTPResponseHead?
        private var body = Data()
        /// Whether the upstream switched protocols.
        var upgraded = false
        /// Fails the handshake when the upstream takes too long; cancelled by the upgrade.
        var deadline: Scheduled<Void>?
        /// Called once, with the answer or the failure (not when the upgrade succeeds).
        var done: ((Outcome) -> Void)?

        init(origin: String, limit: Int) {
            self.origin = origin
            self.limit = limit
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body(let buffer):
                guard body.count + buffer.readableBytes <= limit else {
                    finish(.failed("the answer to the WebSocket upgrade is over the limit of \(limit) bytes"))
                    context.close(promise: nil)
                    return
                }
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                if let head { finish(.refused(status: Int(head.status.code), headers: head.headers, body: body)) }
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failed("the WebSocket upgrade with \(origin) failed: \(error)"))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failed("\(origin) closed the connection before it answered the WebSocket upgrade"))
            context.fireChannelInactive()
        }

        /// Hands on the outcome once, unless the upgrade succeeded.
        func finish(_ outcome: Outcome) {
            guard !upgraded, let done else { return }
            self.done = nil
            done(outcome)
        }
    }
}
