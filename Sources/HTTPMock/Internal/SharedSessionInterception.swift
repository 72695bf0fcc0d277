import AirlockBase
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Puts ``ScopedMockURLProtocol`` in front of `URLSession.shared`, once per process, so that the
/// requests a test's task tree makes through it reach the test's scope.
///
/// swift-corelibs-foundation (Linux) asks `session.configuration.protocolClasses` each time a
/// task is resumed, and `URLSession.configuration` hands out the session's own configuration
/// object, not a copy; the shared session keeps one made when it was first used. So the class is
/// put first in that object's list — which works whether or not the shared session was used before
/// (registering with `URLProtocol.registerClass` reaches it only before its first use) — and the
/// configuration's URL cache is wrapped in a ``ScopeCarryingURLCache``, which keeps the caching as
/// it was and carries the scope across the one hop between the protocol's choice and its instance.
///
/// Everything else goes on as before: a request outside every open scope is declined by
/// `canInit(with:)` and the next class (Airgap's guard, the built-in HTTP protocol) takes it.
enum SharedSessionInterception {
    /// Installs the interception if it is not yet installed.
    /// - Throws: ``InterceptionError`` when this Foundation does not let the shared session be
    ///   reached (its configuration is a copy): requests would otherwise go to the network.
    static func install() throws {
        if let failure = installation { throw failure }
    }

    private static let installation: InterceptionError? = {
        #if canImport(FoundationNetworking)
        let configuration = URLSession.shared.configuration
        let classes = configuration.protocolClasses ?? []
        let cache = configuration.urlCache
        // The previous values stay referenced for the life of the process: a thread that read the
        // list or the cache an instant before the swap still holds valid objects.
        Superseded.keep(classes, cache)
        configuration.protocolClasses = [ScopedMockURLProtocol.self] + classes.filter { $0 != ScopedMockURLProtocol.self }
        if let cache, !(cache is ScopeCarryingURLCache) {
            configuration.urlCache = ScopeCarryingURLCache(wrapping: cache)
        }
        guard URLSession.shared.configuration.protocolClasses?.first == ScopedMockURLProtocol.self else {
            return InterceptionError(
                "HTTPMock cannot reach URLSession.shared with this Foundation: the shared session's configuration could not "
                    + "be changed. Give the code under test the mock's urlSession instead (HTTPMock.urlSession)."
            )
        }
        return nil
        #else
        return DarwinInterception.install()
        #endif
    }()

    /// What the shared session used before the interception, kept alive.
    private enum Superseded {
        // nonisolated(unsafe): written once, inside the `installation` initializer (which Swift runs
        // exactly once, under its own lock), and never read.
        nonisolated(unsafe) private static var values: [Any] = []

        static func keep(_ classes: [AnyClass], _ cache: URLCache?) {
            values = [classes as Any, cache as Any]
        }
    }
}

/// Why a scope cannot reach `URLSession.shared`.
public struct InterceptionError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and what to do instead.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

#if canImport(FoundationNetworking)
/// The shared session's URL cache, wrapped: every call goes to the cache it wraps, so caching is
/// what it was; and the one call URLSession makes between choosing a task's protocol class and
/// making its instance — `getCachedResponse(for:completionHandler:)`, asked on the thread that
/// resumed the task — answers inside the intercepting scope of the task that asked.
final class ScopeCarryingURLCache: URLCache, @unchecked Sendable {
    // @unchecked Sendable: `wrapped` is set once in init; URLCache is thread-safe.
    let wrapped: URLCache

    init(wrapping cache: URLCache) {
        wrapped = cache
        // No storage of its own: a disk path that cannot be created leaves it without a directory
        // (the default path would create the shared cache's folder; a temporary one would litter).
        super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: "/dev/null/airlock-scope-carrying-cache")
    }

    override func getCachedResponse(for dataTask: URLSessionDataTask, completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
        let scope = InterceptionScope.current
        wrapped.getCachedResponse(for: dataTask) { response in
            InterceptionScope.$current.withValue(scope) { completionHandler(response) }
        }
    }

    override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask) {
        wrapped.storeCachedResponse(cachedResponse, for: dataTask)
    }

    override func removeCachedResponse(for dataTask: URLSessionDataTask) {
        wrapped.removeCachedResponse(for: dataTask)
    }

    override func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
        wrapped.cachedResponse(for: request)
    }

    override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {
        wrapped.storeCachedResponse(cachedResponse, for: request)
    }

    override func removeCachedResponse(for request: URLRequest) {
        wrapped.removeCachedResponse(for: request)
    }

    override func removeAllCachedResponses() {
        wrapped.removeAllCachedResponses()
    }

    override func removeCachedResponses(since date: Date) {
        wrapped.removeCachedResponses(since: date)
    }

    override var memoryCapacity: Int {
        get { wrapped.memoryCapacity }
        set { wrapped.memoryCapacity = newValue }
    }

    override var diskCapacity: Int {
        get { wrapped.diskCapacity }
        set { wrapped.diskCapacity = newValue }
    }

    override var currentMemoryUsage: Int { wrapped.currentMemoryUsage }

    override var currentDiskUsage: Int { wrapped.currentDiskUsage }
}
#endif
