import Foundation
import NIOHTTP1

/// The upstream a reverse proxy (`airlock record --target`, ``MockServer/Configuration/upstream``)
/// stands in front of: an origin-form request (`GET /users`) is taken as addressed to it, its
/// target under the upstream's path and its `Host` the upstream's. Absolute-form targets and the
/// requests in a tunnel keep the host they name.
struct ReverseProxyTarget {
    let upstream: URL

    /// The upstream `head` is addressed to, when there is one and the request is origin-form
    /// outside a tunnel; `nil` otherwise.
    init?(upstream: URL?, for head: HTTPRequestHead, isTunnel: Bool) {
        guard let upstream, !isTunnel, head.uri.hasPrefix("/") else { return nil }
        self.upstream = upstream
    }

    /// `host[:port]` of the upstream, as a `Host` header names it.
    var authority: String {
        let host = upstream.host ?? "localhost"
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return upstream.port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// The upstream's scheme.
    var scheme: String? { upstream.scheme }

    /// An origin-form target under the upstream's path (`https://host/v1/` and `/users` → `/v1/users`).
    func target(_ uri: String) -> String {
        var path = upstream.path
        while path.hasSuffix("/") { path.removeLast() }
        return path + uri
    }
}
