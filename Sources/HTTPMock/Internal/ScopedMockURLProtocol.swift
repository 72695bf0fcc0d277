import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The protocol `intercepting` puts first in `URLSession.shared`'s configuration: it accepts a
/// request only while the task that resumes it is inside an open scope, and the scope's mock
/// answers it as the mock's own protocol answers the mock's own session.
///
/// The scope is read where URLSession chooses the protocol class (`canInit(with:)`, on the thread
/// that called `resume()`, inside the caller's task) and again where the instance is made. On
/// Linux the instance is made on that same thread, or — when the session has a URL cache — in the
/// cache's answer, which ``ScopeCarryingURLCache`` runs inside the scope it was asked from. The
/// instance keeps the mock, so `startLoading()`, which runs on the session's queue where no test's
/// task-local values are set, needs nothing from the context.
final class ScopedMockURLProtocol: MockURLProtocol {
    /// The mock of the scope the request started in; `nil` when the scope could not be carried.
    private let scopedMock: HTTPMock?

    override class func canInit(with request: URLRequest) -> Bool {
        guard super.canInit(with: request) else { return false }
        return InterceptionScope.innermostOpen != nil
    }

    required init(request: URLRequest, cachedResponse: CachedURLResponse?, client: (any URLProtocolClient)?) {
        // The scope closed between the class's choice and now (the cache's answer came after the
        // scope's body returned): the request still started inside it.
        scopedMock = (InterceptionScope.innermostOpen ?? InterceptionScope.current)?.mock
        super.init(request: request, cachedResponse: cachedResponse, client: client)
    }

    #if !canImport(FoundationNetworking) && canImport(ObjectiveC)
    // Apple platforms (unbuilt here): the loading system may ask on a thread of its own, so the
    // scope is the one `resume()` attached to the task (see DarwinInterception).
    override class func canInit(with task: URLSessionTask) -> Bool {
        guard let request = task.currentRequest, super.canInit(with: request) else { return false }
        return (DarwinInterception.scope(of: task)?.firstOpen ?? InterceptionScope.innermostOpen) != nil
    }

    override var owningMock: HTTPMock? {
        if let scopedMock { return scopedMock }
        guard let task, let scope = DarwinInterception.scope(of: task) else { return nil }
        return (scope.firstOpen ?? scope).mock
    }
    #else
    override var owningMock: HTTPMock? { scopedMock }
    #endif

    override var missingMockMessage: String {
        let target = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "<no URL>")"
        return "HTTPMock: \(target) started inside an `intercepting` scope (or an `.httpMock` test), but the scope "
            + "did not reach the request, so it fails rather than go to the network. This happens when "
            + "URLSession.shared's configuration (its protocol classes or URL cache) was changed after the "
            + "scope began; leave them as they are, or give the code under test the mock's urlSession."
    }
}
