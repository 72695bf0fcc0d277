import AirlockBase
import Foundation

#if canImport(Testing)
import Testing
#endif

/// How a violation travels from where it happened to ``Airgap/violations``, the reporter, the
/// handler and the scope: all of it on the thread that made the blocked call, before that call
/// returns to its caller.
///
/// A hook captures only what is cheap (the address, the test's name, the stack's return
/// addresses) and reports at once; the stack is symbolicated when someone first reads it
/// (``Violation/callStack``, a report, the issue a scope records when it ends). Child processes
/// are the exception: they write to a log that the parent reads when anyone reads violations
/// (``settle()``).
enum ViolationPipeline {
    /// Where a violation is reported, decided where it happened.
    enum Delivery: Sendable {
        /// To these `.airgapped` / `Airgap.scoped` scopes (one: the scope of the task that made
        /// the call; several: every open scope, for a call on a thread no test owns), each of
        /// which records its issues when it ends, on its test's own task.
        case scopes([GuardScope])
        /// Through the handler (`nil`: the built-in one) in `mode`; `xctest` is the XCTest test
        /// that ran then.
        case handler((@Sendable (String) -> Void)?, mode: Airgap.Mode, inXCTest: Bool, xctest: XCTestCaseReference?)
    }

    /// Records the violations child processes (and `fork()`ed copies of this process) reported
    /// since the last call. Violations of this process need no settling: they are delivered
    /// before the blocked call returns.
    static func settle() {
        ChildProcesses.drain()
    }

    /// The process-wide handler, as set now.
    static func handlerDelivery() -> Delivery {
        let (handler, mode, inXCTest, xctest) = Airgap.state.withLock { state in
            (state.violationHandler, state.mode, state.inXCTestContext, state.currentXCTestCase)
        }
        return .handler(handler, mode: mode, inXCTest: inXCTest, xctest: xctest)
    }

    /// Where a violation no test's task made (a child process's) is reported: every open scope
    /// that no other open scope encloses, else the handler.
    static func unownedDelivery() -> Delivery {
        let open = Airgap.state.withLock { $0.openScopes }
        let leaves = open.filter { scope in !open.contains { $0.parent === scope } }
        return leaves.isEmpty ? handlerDelivery() : .scopes(leaves)
    }
}
