import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLError {
    /// A `URLError` whose `localizedDescription` is `message`.
    package init(_ code: URLError.Code, message: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
