// Apple platforms only, and UNBUILT AND UNVERIFIED: nothing here has been compiled or run. This
// project builds and tests on Linux only (CI has no Apple machine); on Linux this file is empty.
// It writes down the mechanism the swift-airgap README documents for Apple platforms, where
// there is no socket layer and the URLSession layer must reach every session by itself.
#if canImport(Darwin) && canImport(ObjectiveC)
import AirlockBase
import Foundation
import ObjectiveC

/// What puts ``AirgapURLProtocol`` into every `URLSession` on Apple platforms, installed once by
/// ``Airgap/activate()``:
///
/// - the class getters `URLSessionConfiguration.default` and `.ephemeral` return configurations
///   that list the guard first (``Airgap/protect(_:)``);
/// - `URLSession(configuration:delegate:delegateQueue:)` protects the configuration it is given,
///   so sessions made after activation from any configuration (`.background`, one obtained before
///   activation) are guarded;
/// - `URLSessionTask.resume()` captures the call stack where the user's code starts the request
///   (the guard protocol runs on a loading thread, far from it), and blocks WebSocket tasks,
///   which never reach a `URLProtocol`.
///
/// The guard protocol declines every request while the guard is inactive, so the replaced
/// methods are harmless after ``Airgap/deactivate()``. Sessions made before the first
/// activation from a configuration that was not protected are not guarded.
///
/// > Warning: Unbuilt and unverified: no Apple platform builds this project.
enum DarwinInjection {
    /// Installs the replacements (once).
    static func install() {
        _ = installation
    }

    private static let installation: Void = {
        replaceConfigurationGetter(#selector(getter: URLSessionConfiguration.default))
        replaceConfigurationGetter(#selector(getter: URLSessionConfiguration.ephemeral))
        replaceSessionFactory()
        replaceResume()
    }()

    /// Stacks captured at `resume()` of a request the guard will block, by URL, taken by
    /// ``AirgapURLProtocol/startLoading()``.
    private static let resumeStacks = Locked<[String: CapturedStack]>([:])
    /// Stacks kept at most (a request the guard never sees leaves its stack behind).
    private static let resumeStackLimit = 256

    /// The stack captured when the task for `url` was resumed, if any; removes it.
    static func takeResumeStack(for url: URL?) -> CapturedStack? {
        guard let key = url?.absoluteString else { return nil }
        return resumeStacks.withLock { $0.removeValue(forKey: key) }
    }

    private static func replaceConfigurationGetter(_ selector: Selector) {
        guard let method = class_getClassMethod(URLSessionConfiguration.self, selector) else { return }
        typealias Getter = @convention(c) (AnyClass, Selector) -> URLSessionConfiguration
        let original = unsafeBitCast(method_getImplementation(method), to: Getter.self)
        let replacement: @convention(block) (AnyClass) -> URLSessionConfiguration = { type in
            Airgap.protect(original(type, selector))
        }
        method_setImplementation(method, imp_implementationWithBlock(replacement))
    }

    private static func replaceSessionFactory() {
        let selector = NSSelectorFromString("sessionWithConfiguration:delegate:delegateQueue:")
        guard let method = class_getClassMethod(URLSession.self, selector) else { return }
        typealias Factory = @convention(c) (AnyClass, Selector, URLSessionConfiguration, URLSessionDelegate?, OperationQueue?) -> URLSession
        let original = unsafeBitCast(method_getImplementation(method), to: Factory.self)
        let replacement: @convention(block) (AnyClass, URLSessionConfiguration, URLSessionDelegate?, OperationQueue?) -> URLSession = {
            type, configuration, delegate, queue in
            original(type, selector, Airgap.protect(configuration), delegate, queue)
        }
        method_setImplementation(method, imp_implementationWithBlock(replacement))
    }

    private static func replaceResume() {
        let selector = #selector(URLSessionTask.resume)
        guard let method = class_getInstanceMethod(URLSessionTask.self, selector) else { return }
        typealias Resume = @convention(c) (URLSessionTask, Selector) -> Void
        let original = unsafeBitCast(method_getImplementation(method), to: Resume.self)
        let replacement: @convention(block) (URLSessionTask) -> Void = { task in
            if blocksWebSocket(task) { return }
            if let request = task.currentRequest ?? task.originalRequest, let key = request.url?.absoluteString,
               AirgapURLProtocol.canInit(with: request) {
                let stack = CallStack.capture()
                resumeStacks.withLock { stacks in
                    if stacks.count >= resumeStackLimit { stacks.removeAll() }
                    stacks[key] = stack
                }
            }
            original(task, selector)
        }
        method_setImplementation(method, imp_implementationWithBlock(replacement))
    }

    /// Reports and cancels a WebSocket task the guard would block (no `URLProtocol` sees them).
    private static func blocksWebSocket(_ task: URLSessionTask) -> Bool {
        let request = task.currentRequest ?? task.originalRequest
        let scheme = request?.url?.scheme?.lowercased()
        guard task is URLSessionWebSocketTask || scheme == "ws" || scheme == "wss" else { return false }
        let (blocking, rules) = Airgap.state.withLock { ($0.isActive && !$0.isAllowed, $0.hostRules) }
        guard blocking else { return false }
        if let host = request?.url?.host, rules.allowsURLHost(host) { return false }
        let violation = Violation(
            testName: Airgap.attributedTestName(),
            httpMethod: request?.httpMethod ?? "GET",
            url: request?.url?.absoluteString ?? "<no URL>",
            stack: ViolationStack(captured: CallStack.capture()),
            contentType: request?.value(forHTTPHeaderField: "Content-Type"),
            host: request?.url?.host,
            port: request?.url?.port,
            kind: .request
        )
        Airgap.record(violation)
        task.cancel()
        return true
    }
}
#endif
