#if !canImport(FoundationNetworking) && canImport(ObjectiveC)
import Foundation
import ObjectiveC

/// How scopes reach URLSession on Apple platforms, following the established practice there
/// (OHHTTPStubs, Mocker, Pulse). Unbuilt and unverified: no Apple platform builds this project.
///
/// - `URLProtocol.registerClass` puts ``ScopedMockURLProtocol`` in front of `URLSession.shared`,
///   which asks registered classes on every request.
/// - `+[NSURLSessionConfiguration defaultSessionConfiguration]` and
///   `+ephemeralSessionConfiguration` are replaced by versions that put the class first in the
///   configuration they return, so sessions the code makes for itself are reached too.
/// - `-resume` of the task classes is replaced by a version that attaches the resuming task's
///   scope to the task, because Apple's loading system may ask `canInit(with:)` on a thread of its
///   own: the protocol reads the scope from the task.
enum DarwinInterception {
    static func install() -> InterceptionError? {
        _ = installation
        return nil
    }

    /// The scope attached to `task` when it was resumed.
    static func scope(of task: URLSessionTask) -> InterceptionScope? {
        objc_getAssociatedObject(task, scopeKey) as? InterceptionScope
    }

    // nonisolated(unsafe): an address used only as a key, never read or written through.
    nonisolated(unsafe) private static let scopeKey = UnsafeRawPointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))

    private static let installation: Void = {
        URLProtocol.registerClass(ScopedMockURLProtocol.self)
        putFirstInConfigurations()
        attachScopesOnResume()
    }()

    private static func putFirstInConfigurations() {
        typealias Getter = @convention(c) (AnyClass, Selector) -> URLSessionConfiguration
        for name in ["defaultSessionConfiguration", "ephemeralSessionConfiguration"] {
            let selector = NSSelectorFromString(name)
            guard let method = class_getClassMethod(URLSessionConfiguration.self, selector) else { continue }
            let original = unsafeBitCast(method_getImplementation(method), to: Getter.self)
            let replacement: @convention(block) (AnyClass) -> URLSessionConfiguration = { receiver in
                let configuration = original(receiver, selector)
                let others = (configuration.protocolClasses ?? []).filter { $0 != ScopedMockURLProtocol.self }
                configuration.protocolClasses = [ScopedMockURLProtocol.self] + others
                return configuration
            }
            method_setImplementation(method, imp_implementationWithBlock(replacement))
        }
    }

    /// Replaces `-resume` on each class of a real task's hierarchy that implements its own.
    private static func attachScopesOnResume() {
        let probe = URLSession(configuration: .ephemeral).dataTask(with: URL(string: "https://airlock.invalid/")!)
        defer { probe.cancel() }
        let selector = NSSelectorFromString("resume")
        var candidate: AnyClass? = object_getClass(probe)
        while let taskClass = candidate, taskClass != NSObject.self {
            if implementsItself(taskClass, selector) {
                replaceResume(of: taskClass, selector)
            }
            candidate = class_getSuperclass(taskClass)
        }
    }

    private static func implementsItself(_ taskClass: AnyClass, _ selector: Selector) -> Bool {
        var count: UInt32 = 0
        guard let methods = class_copyMethodList(taskClass, &count) else { return false }
        defer { free(methods) }
        return (0..<Int(count)).contains { method_getName(methods[$0]) == selector }
    }

    private static func replaceResume(of taskClass: AnyClass, _ selector: Selector) {
        typealias Resume = @convention(c) (AnyObject, Selector) -> Void
        guard let method = class_getInstanceMethod(taskClass, selector) else { return }
        let original = unsafeBitCast(method_getImplementation(method), to: Resume.self)
        let replacement: @convention(block) (AnyObject) -> Void = { task in
            if let scope = InterceptionScope.current, objc_getAssociatedObject(task, scopeKey) == nil {
                objc_setAssociatedObject(task, scopeKey, scope, .OBJC_ASSOCIATION_RETAIN)
            }
            original(task, selector)
        }
        method_setImplementation(method, imp_implementationWithBlock(replacement))
    }
}
#endif
