import AirlockCore
import Foundation

/// Builds recorded requests directly, for matcher tests that need no session.
package enum RecordedRequestFactory {
    package static func make(method: String, url: String, headers: [(String, String)] = [], body: String? = nil) -> RecordedRequest {
        let components = URLComponents(string: url)!
        var incoming = IncomingRequest(
            method: method,
            url: url,
            host: components.host ?? "",
            path: components.path,
            query: components.percentEncodedQuery
        )
        incoming.headers = headers.map { (name: $0.0, value: $0.1) }
        incoming.body = body.map { Data($0.utf8) }
        return RecordedRequest(sequence: 1, request: incoming, date: Date(timeIntervalSince1970: 0))
    }
}
