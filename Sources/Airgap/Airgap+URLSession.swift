import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Airgap {
    /// Puts ``AirgapURLProtocol`` first in `configuration.protocolClasses`, so sessions made
    /// from it are guarded at the URLSession layer (full method, URL and `Content-Type`).
    ///
    /// On Linux, `URLSession(configuration: .default)` and `.ephemeral` sessions never consult
    /// classes registered with `URLProtocol.registerClass`; the socket layer still catches their
    /// connections, but protecting the configuration gives better reports and answers with
    /// ``errorCode`` after ``responseDelay``. The guard declines every request while inactive,
    /// so protecting a configuration up front is harmless.
    ///
    /// ```swift
    /// let session = URLSession(configuration: Airgap.protect(.ephemeral))
    /// ```
    /// - Parameter configuration: The configuration to change (it is a class; it is modified).
    /// - Returns: The same configuration, for chaining.
    @discardableResult
    public static func protect(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        var classes = configuration.protocolClasses ?? []
        classes.removeAll { $0 == AirgapURLProtocol.self }
        classes.insert(AirgapURLProtocol.self, at: 0)
        configuration.protocolClasses = classes
        return configuration
    }
}
