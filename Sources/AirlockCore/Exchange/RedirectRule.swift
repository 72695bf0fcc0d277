import AirlockBase
import Foundation
import HTTPTypes

/// The request a 3xx response leads to, as a browser or URLSession makes it.
package struct RedirectRule: Sendable, Equatable {
    /// How many redirects a chain may have before the request fails, as browsers allow.
    package static let maximumHops = 20

    /// The absolute URL of the next request.
    package let location: String
    /// The next request's method.
    package let method: String
    /// Whether the next request drops the body and its `Content-Type` and `Content-Length`.
    package let dropsBody: Bool

    /// The redirect a response asks for, if its status is 301, 302, 303, 307 or 308 and it has
    /// a `Location`: 303 always becomes GET (HEAD stays HEAD); 301 and 302 turn POST into GET, as
    /// clients do; 307 and 308 keep method and body.
    package init?(status: Int, headers: HTTPFields, requestURL: String, requestMethod: String) {
        switch status {
        case 301, 302, 303, 307, 308: break
        default: return nil
        }
        guard let location = headers[.location],
            let base = URL(string: requestURL),
            let target = URL(string: location, relativeTo: base)?.absoluteURL
        else { return nil }
        self.location = target.absoluteString
        let becomesGet = status == 303 && requestMethod != "HEAD" || (status == 301 || status == 302) && requestMethod == "POST"
        method = becomesGet ? "GET" : requestMethod
        dropsBody = becomesGet
    }
}
