import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// Hands each request of one connection to where it goes, and its answer to delivery.
///
/// It sits behind SwiftNIO's standard server pipeline (`configureHTTPServerPipeline` with
/// pipelining assistance), which hands it one request at a time and holds pipelined requests
/// back until the previous response has ended. It feeds each request part to the connection's
/// ``ServerConnection/StateMachine`` (which keeps the body under its cap and knows when the
/// connection is closing), routes the complete request (``RequestRoute``: a ``ConnectTunnel``,
/// the ``AdminAPI``, or the registry), and leaves the answer to the core's delivery onto an
/// ``ExchangeDelivery``: every decision is the core's.
///
/// On an HTTP/2 connection each stream has one of its own, behind SwiftNIO's
/// `HTTP2FramePayloadToHTTP1ServerCodec` (see ``ServerConnection/switchToHTTP2(_:server:activity:)``):
/// a stream is one request, its head of version 2.0.
final class RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: ServerContext
    private let connection: ServerConnection
    /// The address the connection came in on, read from the channel once.
    private var localAddress: SocketAddress??
    /// The client's IP address, read from the channel once (WireMock's `clientIp`).
    private var remoteAddress: String??

    init(server: ServerContext, connection: ServerConnection) {
        self.server = server
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            if head.version.major == 2 {
                // HTTP/2 has no `Transfer-Encoding` (RFC 9113 §8.2.2): SwiftNIO's HTTP/1 view of a
                // stream adds `chunked` to a request without a length. The client never sent it, so
                // neither the stubs nor the journal see it.
                head.headers.remove(name: "transfer-encoding")
            }
            perform(connection.headReceived(head, now: context.eventLoop.now), in: context)
        case .body(let part):
            perform(connection.bodyReceived(part), in: context)
        case .end:
            switch connection.endReceived() {
            case .deliver(let head, let body):
                route(head, body: body.map { Data($0.readableBytesView) }, in: context)
            case .drop:
                break
            }
        }
    }

    private func perform(_ action: ServerConnection.StateMachine.RequestPartAction, in context: ChannelHandlerContext) {
        switch action {
        case .rejectOversizedBody(let head, let limit):
            delivery(of: head, in: context).rejectOversizedBody(limit: limit)
        case .none, .drop:
            // The machine keeps the part until the request ends, or drops it: nothing to do.
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case is HTTPParserError:
            // The pipeline's error handler has just written a 400; let the client read it.
            connection.closeAfterBadRequest(in: context)
        case is ByteToMessageDecoderError where connection.isClosing:
            // More bytes after a malformed request: read only to be dropped.
            break
        case let error as NIOSSLError:
            // Most often a client that does not trust the CA: say which file to trust.
            if case .handshakeFailed = error, let authority = server.tls?.authority {
                server.configuration.logger.notice(
                    "Airlock: a TLS handshake failed (\(error)). If the client rejected the certificate, have it trust the Airlock CA at \(authority.certificateFile.path)."
                )
            }
            context.close(promise: nil)
        default:
            context.close(promise: nil)
        }
    }

    private func delivery(of head: HTTPRequestHead, in context: ChannelHandlerContext) -> ExchangeDelivery {
        ExchangeDelivery(server: server, connection: connection, context: context, head: head)
    }

    // MARK: Routing

    private func route(_ head: HTTPRequestHead, body: Data?, in context: ChannelHandlerContext) {
        let delivery = delivery(of: head, in: context)
        switch RequestRoute(head) {
        case .tunnel where head.version.major == 2:
            // A tunnel is a connection's, and an HTTP/2 stream is not one (RFC 9113 §8.5's
            // CONNECT over a stream is not served).
            let message = "Airlock MockServer: CONNECT is served over HTTP/1.1 only; have the client speak HTTP/1.1 to the proxy.\n"
            delivery.respond(status: 501, headers: [.contentType: "text/plain"], body: Data(message.utf8))
        case .tunnel(let tunnel):
            open(tunnel, for: head, in: context)
        case .admin:
            let admin = AdminAPI(context: server, localPort: context.channel.localAddress?.port ?? 0, isSecure: isSecure(context))
            if let page = InspectorRoute(head) {
                return inspect(page, admin: admin, head: head, delivery: delivery)
            }
            let answer = admin.handle(head, body: body)
            delivery.respond(status: answer.status, headers: answer.headers, body: answer.body)
        case .mock:
            guard var incoming = IncomingRequest(
                head: head,
                body: body,
                proxy: ReverseProxyTarget(upstream: server.configuration.upstream, for: head, isTunnel: connection.isTunnel),
                isTunnel: connection.isTunnel,
                isSecure: isSecure(context),
                localAddress: connectionAddress(context)
            ) else {
                let message = IncomingRequest.unreadableTargetMessage(head)
                return delivery.respond(status: 400, headers: [.contentType: "text/plain"], body: Data(message.utf8), closing: true)
            }
            incoming.clientAddress = clientAddress(context)
            delivery.deliver(server.registry.resolve(incoming, for: server.transport), for: incoming)
        }
    }

    /// The traffic page: its files, or its live feed, after the admin API's checks.
    private func inspect(_ page: InspectorRoute, admin: AdminAPI, head: HTTPRequestHead, delivery: ExchangeDelivery) {
        if let refusal = admin.check(head, requiringToken: page.needsToken) {
            return delivery.respond(status: refusal.status, headers: refusal.headers, body: refusal.body)
        }
        switch page {
        case .file(let file):
            delivery.respond(status: 200, headers: InspectorRoute.fields(contentType: file.contentType), body: Data(file.bytes))
        case .redirect:
            var fields = InspectorRoute.protectiveFields
            fields[.location] = InspectorRoute.path
            delivery.respond(status: 308, headers: fields, body: Data())
        case .feed:
            InspectorFeed.open(on: delivery, registry: server.registry)
        case .state:
            delivery.respond(status: 200, headers: InspectorRoute.fields(contentType: "application/json"), body: InspectorState.json(server.registry).prettyText)
        case .exchange(let sequence):
            let journal = server.registry.journal
            guard let request = journal.entry(sequence: sequence) else {
                let message: JSONValue = ["error": .string("the journal no longer keeps exchange \(sequence) (it keeps the newest; see the journal's capacity)")]
                return delivery.respond(status: 404, headers: InspectorRoute.fields(contentType: "application/json"), body: message.prettyText)
            }
            let redaction = journal.redaction
            let detail = InspectorExchange.json(redaction.apply(to: request), original: request, registry: server.registry, redaction: redaction)
            delivery.respond(status: 200, headers: InspectorRoute.fields(contentType: "application/json"), body: (try? detail.compactData()) ?? Data())
        }
    }

    /// The address the connection came in on: it does not change while the connection lives.
    private func connectionAddress(_ context: ChannelHandlerContext) -> SocketAddress? {
        if let localAddress { return localAddress }
        let address = context.channel.localAddress
        localAddress = .some(address)
        return address
    }

    /// The client's IP address (`127.0.0.1`, `::1`): it does not change while the connection lives.
    private func clientAddress(_ context: ChannelHandlerContext) -> String? {
        if let remoteAddress { return remoteAddress }
        let address = context.channel.remoteAddress?.ipAddress
        remoteAddress = .some(address)
        return address
    }

    /// Whether this connection's requests arrive over TLS (origin-mode HTTPS, or a tunnel whose
    /// TLS the server ends).
    private func isSecure(_ context: ChannelHandlerContext) -> Bool {
        guard server.tls != nil else { return false }
        let own = context.pipeline.syncOperations
        // An HTTP/2 stream's TLS is its connection's: the stream channel's parent, on the same
        // event loop. (A connection's own parent is the listening socket, on another loop.)
        guard (try? own.handler(type: HTTP2FramePayloadToHTTP1ServerCodec.self)) != nil, let connection = context.channel.parent else {
            return (try? own.handler(type: NIOSSLServerHandler.self)) != nil
        }
        return (try? connection.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)) != nil
    }

    /// Accepts a `CONNECT` and reshapes the pipeline for the tunnel, or refuses it with `501`.
    private func open(_ tunnel: ConnectTunnel, for head: HTTPRequestHead, in context: ChannelHandlerContext) {
        if let refusal = tunnel.refusal(for: head.uri, tlsIsOn: server.tls != nil) {
            return connection.refuse(with: refusal, in: context)
        }
        connection.tunnelOpened()
        context.write(wrapOutboundOut(.head(ConnectTunnel.established(version: head.version))), promise: nil)
        connection.endResponse(keepAlive: true, in: context)
        tunnel.open(in: context, tls: server.tls, logger: server.configuration.logger)
    }
}
