import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension IncomingRequest {
    /// The parts of a `URLRequest` the core matches on.
    init?(_ request: URLRequest) {
        guard let url = request.url,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let host = components.host
        else { return nil }
        self.init(
            method: request.httpMethod ?? "GET",
            url: url.absoluteString,
            host: host,
            path: components.path,
            queryItems: (components.queryItems ?? []).map { QueryItem(name: $0.name, value: $0.value) }
        )
    }
}
