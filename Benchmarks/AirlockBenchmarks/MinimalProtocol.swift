import AirlockBase
import AirlockCore
import Foundation
import HTTPMock
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The lower bound: the least a URLProtocol can do to answer a request from memory — one
/// dictionary lookup by path, then the same client calls HTTPMock makes.
final class MinimalProtocol: URLProtocol {
    static let bodies = Locked<[String: Data]>([:])

    override class func canInit(with request: URLRequest) -> Bool { true }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let url = request.url!
        let body = Self.bodies.withLock { $0[url.path] }
        let response = HTTPURLResponse(
            url: url,
            statusCode: body == nil ? 404 : 200,
            httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "text/plain"]
        )!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body ?? Data())
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [MinimalProtocol.self]
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }
}
