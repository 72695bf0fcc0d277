/// Where a module that guards the network (Airgap) hears of a request Airlock refused to send on
/// its own — a webhook to a host its policy does not allow — so that it reports it as the
/// violation it is, although no socket was opened.
///
/// A process-wide hook, as the guard it feeds is process-wide: Airgap installs it when it is
/// activated; without it a refusal is only in the mock's journal.
package enum RefusedRequests {
    private static let observer = Locked<(@Sendable (_ method: String, _ url: String) -> Void)?>(nil)

    /// Sets what is told of each refused request (`nil`: nothing).
    package static func observe(_ handler: (@Sendable (_ method: String, _ url: String) -> Void)?) {
        observer.withLock { $0 = handler }
    }

    /// Tells the observer, if any, that `method` `url` was refused.
    package static func report(method: String, url: String) {
        observer.withLock { $0 }?(method, url)
    }
}
