import AirlockBase
import AirlockCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Sends a request on to its real host — the `.passthrough` policy and recording — over SwiftNIO's
/// own HTTP/1.1 client pipeline: one connection per request, TLS with the system's trust roots for
/// `https` (the host's certificate and name verified), and the answer collected as it arrived
/// (status, every field in order, the body's bytes in any content coding the server applied).
///
/// A mock server forwards a few requests, one at a time, to hosts that differ: a pool, HTTP/2 and
/// redirects would buy nothing, and a full HTTP client would cost every build of the server.
final class Forwarder: Sendable {
    /// What the real host answered.
    struct Response: Sendable {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: ByteBuffer
    }

    /// Why forwarding failed; the description is what the client's `502` says.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let group: any EventLoopGroup
    /// Made on first use (reading the system's trust roots takes a moment), then shared.
    private let clientTLS = Locked<NIOSSLContext?>(nil)

    init(group: any EventLoopGroup) {
        self.group = group
    }

    /// Sends `method` `url` with `headers` (the connection's own fields already removed) and
    /// `body`, and collects the answer, failing when its body is over `limit` bytes or when no
    /// complete answer came within `timeout`.
    func execute(
        method: HTTPMethod,
        url: String,
        headers: [(name: String, value: String)],
        body: Data?,
        limit: Int,
        timeout: TimeAmount
    ) -> EventLoopFuture<Response> {
        let eventLoop = group.next()
        guard let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty
        else {
            return eventLoop.makeFailedFuture(Failure(description: "\(url) is not an http or https URL"))
        }
        let isSecure = scheme == "https"
        let port = components.port ?? (isSecure ? 443 : 80)
        let tls: NIOSSLContext?
        do {
            tls = isSecure ? try clientContext() : nil
        } catch {
            return eventLoop.makeFailedFuture(Failure(description: "TLS could not be set up: \(error)"))
        }

        var head = HTTPRequestHead(version: .http1_1, method: method, uri: Self.target(components))
        let hostField = host.contains(":") ? "[\(host)]" : host
        let defaultPort = isSecure ? 443 : 80
        head.headers.add(name: "Host", value: port == defaultPort ? hostField : "\(hostField):\(port)")
        for field in headers where field.name.lowercased() != "content-length" {
            head.headers.add(name: field.name, value: field.value)
        }
        if let body {
            head.headers.add(name: "Content-Length", value: String(body.count))
        } else if headers.contains(where: { $0.name.lowercased() == "content-length" }) {
            head.headers.add(name: "Content-Length", value: "0")
        }
        head.headers.add(name: "Connection", value: "close")
        let requestHead = head

        let promise = eventLoop.makePromise(of: Response.self)
        let serverName = Self.isIPAddress(host) ? nil : host
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise, limit: limit))
                }
            }
        let unbracketed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        bootstrap.connect(host: unbracketed, port: port).whenComplete { result in
            switch result {
            case .failure(let error):
                promise.fail(Failure(description: "could not connect to \(hostField):\(port): \(error)"))
            case .success(let channel):
                let deadline = channel.eventLoop.scheduleTask(in: timeout) {
                    promise.fail(Failure(description: "no complete answer from \(hostField):\(port) within \(timeout.nanoseconds / 1_000_000_000) s"))
                    channel.close(promise: nil)
                }
                promise.futureResult.whenComplete { _ in
                    deadline.cancel()
                    channel.close(promise: nil)
                }
                channel.write(HTTPClientRequestPart.head(requestHead), promise: nil)
                if let body, !body.isEmpty {
                    channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
                }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in
                    promise.fail(Failure(description: "could not send the request to \(hostField):\(port): \(error)"))
                }
            }
        }
        return promise.futureResult
    }

    private func clientContext() throws -> NIOSSLContext {
        try clientTLS.withLock { context in
            if let context { return context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["http/1.1"]
            let made = try NIOSSLContext(configuration: configuration)
            context = made
            return made
        }
    }

    /// The request target: the path and query as the URL spells them (percent-encoding kept).
    static func target(_ components: URLComponents) -> String {
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery {
            target += "?" + query
        }
        return target
    }

    private static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }
}

/// Collects one response (head, body up to a limit, end) into a promise.
private final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<Forwarder.Response>
    private let limit: Int
    private var head: HTTPResponseHead?
    private var body: ByteBuffer?

    init(promise: EventLoopPromise<Forwarder.Response>, limit: Int) {
        self.promise = promise
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = context.channel.allocator.buffer(capacity: 0)
        case .body(var part):
            guard var collected = body else { return }
            guard collected.readableBytes + part.readableBytes <= limit else {
                body = nil
                promise.fail(Forwarder.Failure(description: "the response body is over the limit of \(limit) bytes"))
                context.close(promise: nil)
                return
            }
            collected.writeBuffer(&part)
            body = collected
        case .end:
            guard let head, let body else { return }
            promise.succeed(Forwarder.Response(status: head.status, headers: head.headers, body: body))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(Forwarder.Failure(description: "\(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(Forwarder.Failure(description: "the connection closed before the response was complete"))
        context.fireChannelInactive()
    }
}
