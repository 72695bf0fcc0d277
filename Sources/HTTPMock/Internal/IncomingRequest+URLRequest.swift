import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension IncomingRequest {
    /// The parts of a `URLRequest` the core matches on. The query is parsed only if needed.
    init?(_ request: URLRequest) {
        guard let url = request.url, let host = url.host(percentEncoded: false), !host.isEmpty else { return nil }
        self.init(
            method: request.httpMethod ?? "GET",
            url: url.absoluteString,
            host: host,
            path: url.path(percentEncoded: false),
            query: url.query(percentEncoded: true)
        )
        headerFields = .dictionary(request.allHTTPHeaderFields ?? [:])
    }
}
