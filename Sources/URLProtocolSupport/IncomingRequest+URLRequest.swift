import AirlockCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension IncomingRequest {
    /// The parts of a `URLRequest` the core matches on, read in one pass over the URL's string.
    /// The query is parsed only if needed.
    package init?(_ request: URLRequest) {
        guard let url = request.url, var parsed = IncomingRequest(method: request.httpMethod ?? "GET", absoluteURL: url.absoluteString) else {
            return nil
        }
        // Set on the one value before it becomes `self`, so that its storage is not copied.
        parsed.headerFields = .dictionary(request.allHTTPHeaderFields ?? [:])
        self = parsed
    }
}
