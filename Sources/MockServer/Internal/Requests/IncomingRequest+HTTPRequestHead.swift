import AirlockCore
import Foundation
import NIOCore
import NIOHTTP1

extension IncomingRequest {
    /// The request the core matches, read from a request the server received: its URL from the
    /// target and `Host` (or from the reverse proxy's upstream), its fields and body.
    ///
    /// - Parameters:
    ///   - head: The request's head.
    ///   - body: The request's body, if it has one.
    ///   - proxy: The upstream an origin-form request is addressed to (reverse-proxy mode).
    ///   - isTunnel: Whether the request came through a `CONNECT` tunnel.
    ///   - isSecure: Whether it arrived over TLS.
    ///   - localAddress: The address the connection came in on, to tell a request to the server
    ///     itself.
    /// - Returns: `nil` when the target and `Host` make no URL (see ``unreadableTargetMessage(_:)``).
    init?(
        head: HTTPRequestHead,
        body: Data?,
        proxy: ReverseProxyTarget?,
        isTunnel: Bool,
        isSecure: Bool,
        localAddress: SocketAddress?
    ) {
        let sentHost = head.headers.first(name: "Host")
        let hostHeader = proxy?.authority ?? sentHost
        let target = proxy?.target(head.uri) ?? Self.httpForm(of: head.uri)
        let scheme = proxy?.scheme ?? (isSecure ? "https" : "http")
        self.init(method: head.method.rawValue, target: target, hostHeader: hostHeader, scheme: scheme)
        headers = head.headers.map { field in
            (name: field.name, value: proxy != nil && field.name.lowercased() == "host" ? hostHeader ?? field.value : field.value)
        }
        self.body = body
        httpVersion = Self.protocolName(head.version)
        if proxy == nil, !isTunnel, let localAddress {
            // Origin form: the `Host` names the server. Absolute form (a forward proxy's
            // request): the target's authority does — a request the server must not forward to
            // itself.
            let authority = head.uri.utf8.first == UInt8(ascii: "/") ? sentHost : (Self.serverAuthority(ofAbsolute: target) ?? "\u{0}")
            addressedToServer = {
                IncomingRequest.isAddressedToServer(hostHeader: authority, port: localAddress.port ?? 0, boundAddress: localAddress.ipAddress)
            }
        }
    }

    /// A request's protocol as HAR's `httpVersion` and WireMock's journal name it: `HTTP/2` for a
    /// request that came on an HTTP/2 stream (SwiftNIO's HTTP/2-to-HTTP/1 codec gives it version
    /// 2.0), `HTTP/1.1` or `HTTP/1.0` otherwise.
    static func protocolName(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (2, _): "HTTP/2"
        case (let major, let minor): "HTTP/\(major).\(minor)"
        }
    }

    /// A WebSocket client's absolute-form target to a proxy (`ws://host/chat`, what websocket-kit
    /// sends through an HTTP proxy) as the HTTP URL it stands for (`http://host/chat`); any other
    /// target as it is.
    static func httpForm(of target: String) -> String {
        // Origin form, nearly every request: nothing to lowercase or compare.
        if target.utf8.first == UInt8(ascii: "/") { return target }
        let lowercased = target.prefix(6).lowercased()
        if lowercased.hasPrefix("ws://") { return "http" + target.dropFirst(2) }
        if lowercased.hasPrefix("wss://") { return "https" + target.dropFirst(3) }
        return target
    }

    /// What a client is told when its request's target and `Host` make no URL.
    static func unreadableTargetMessage(_ head: HTTPRequestHead) -> String {
        "Airlock: cannot parse the request target \(head.uri) with Host \(head.headers.first(name: "Host") ?? "(none)")."
            + " Send an origin-form target (/path?query) with a Host header, or an absolute URL (proxy mode).\n"
    }
}
