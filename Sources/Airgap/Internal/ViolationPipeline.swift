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
        /// To the `.airgapped` / `Airgap.scoped` scope that ran then, which records its issues when
        /// it ends, on the test's own task.
        case scope(ScopeSink)
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

    /// Where a violation that happens now on this thread is to be reported.
    static func delivery() -> Delivery {
        let (sink, handler, mode, inXCTest, xctest) = Airgap.state.withLock { state in
            (state.scopeSinks.last, state.violationHandler, state.mode, state.inXCTestContext, state.currentXCTestCase)
        }
        if let sink { return .scope(sink) }
        return .handler(handler, mode: mode, inXCTest: inXCTest, xctest: xctest)
    }
}
