import AirlockCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request timeout, as URLSession's own HTTP loading applies it — a custom protocol gets none
/// from the session, so a mocked delay longer than the timeout would otherwise still answer.
///
/// Measured on Linux (swift-corelibs-foundation, Swift 6.3.1), against a loopback server:
/// - the timeout is an *idle* timeout: the request fails with `URLError(.timedOut)` when nothing
///   arrives for that long — before the response head, or between two pieces of the body (a body
///   trickling in every 0.5 s under a 1 s timeout completes after 3 s);
/// - it is the request's `timeoutInterval` when the code set one (even to a larger value than the
///   session's), else the session configuration's `timeoutIntervalForRequest`;
/// - inside a `URLProtocol`, `request.timeoutInterval` is the request's own value (60 when never
///   set: the configuration's is not merged in), and the session is reachable through the task.
extension LoadingURLProtocol {
    /// The seconds this load may go without receiving anything; `nil` for no limit (a timeout
    /// that is not a positive finite number).
    ///
    /// A protocol cannot see whether the request's `timeoutInterval` was set, so a value other
    /// than the default (60) counts as set; at 60, the session's `timeoutIntervalForRequest`
    /// applies (they differ only when the code set exactly 60 on a session configured otherwise).
    package var effectiveTimeout: TimeInterval? {
        var timeout = request.timeoutInterval
        if timeout == Self.defaultTimeout, let configured = sessionConfiguration?.timeoutIntervalForRequest {
            timeout = configured
        }
        return timeout.isFinite && timeout > 0 ? timeout : nil
    }

    private static var defaultTimeout: TimeInterval { 60 }

    /// The configuration of the session that made the task (only read when a response waits:
    /// instant answers never get here).
    private var sessionConfiguration: URLSessionConfiguration? {
        owningSession?.configuration
    }

    /// The session that made the task. swift-corelibs-foundation keeps it in the task's stored
    /// `session` and offers no API for it, so it is read through reflection; `nil` on Apple
    /// platforms.
    package var owningSession: URLSession? {
        #if canImport(FoundationNetworking)
        guard let task else { return nil }
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == "session" }) {
                return Self.session(in: child.value)
            }
            mirror = current.superclassMirror
        }
        #endif
        return nil
    }

    private static func session(in value: Any) -> URLSession? {
        if let session = value as? URLSession { return session }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional, let wrapped = mirror.children.first?.value else { return nil }
        return session(in: wrapped)
    }
}
