import NIOHTTP1

/// Where the server sends a complete request: a `CONNECT` opens a tunnel, a target under
/// `/__admin/` goes to the ``AdminAPI``, and every other request to the mock's registry.
enum RequestRoute {
    case tunnel(ConnectTunnel)
    case admin
    case mock

    init(_ head: HTTPRequestHead) {
        if head.method == .CONNECT {
            self = .tunnel(ConnectTunnel(target: head.uri))
        } else if head.uri.utf8.starts(with: AdminAPI.prefix.utf8) {
            // Bytes compared: `hasPrefix` compares characters, which costs more on every request.
            self = .admin
        } else {
            self = .mock
        }
    }
}
