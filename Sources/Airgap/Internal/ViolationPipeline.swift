import AirlockBase
import Foundation

#if canImport(Testing)
import Testing
#endif

/// Violations on their way from where they happened to ``Airgap/violations``, the scope and the
/// handlers.
///
/// A hook only captures what it knows (the address, the test, raw return addresses) and hands it
/// here; the blocked call then fails at once. The ``SymbolicationWorker`` symbolicates each
/// stack (once per distinct stack) and delivers the violations in the order they happened.
/// Everything that reads violations (``Airgap/violations``, ``Airgap/writeReport()``, the end of
/// a scope, ``Airgap/deactivate()``, the end of an XCTest test) first waits for the ones still on
/// their way (``settle()``).
enum ViolationPipeline {
    /// One violation waiting for its call stack.
    struct Entry: Sendable {
        /// The violation, with an empty call stack when `stack` is to be symbolicated.
        let violation: Violation
        let stack: CapturedStack?
        let delivery: Delivery
    }

    /// Where a violation is reported, decided where it happened.
    enum Delivery: Sendable {
        /// To the `.airgapped` / `Airgap.scoped` scope that ran then, which reports it when it ends.
        case scope(ScopeSink)
        /// Through the handler (`nil`: the built-in one) in `mode`; `xctest` is the XCTest test
        /// that ran then.
        case handler((@Sendable (String) -> Void)?, mode: Airgap.Mode, inXCTest: Bool, xctest: XCTestCaseReference?)
        /// Already reported where it happened (a Swift Testing test records issues on its own task).
        case reported
    }

    private struct State {
        var entries: [Entry] = []
        var isScheduled = false
    }

    private static let state = Locked(State())

    /// Hands a violation over; returns at once.
    static func enqueue(_ entry: Entry) {
        let schedule = state.withLock { state -> Bool in
            state.entries.append(entry)
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        if schedule {
            SymbolicationWorker.shared.submit { deliverPending() }
        }
    }

    /// Records the violations children reported, then waits until every violation handed over
    /// before this call is delivered. On the worker (a handler reading violations) it returns
    /// at once: the worker delivers the rest when the handler returns.
    static func settle() {
        ChildProcesses.drain()
        guard !SymbolicationWorker.shared.isCurrentThread else { return }
        let pending = state.withLock { !$0.entries.isEmpty || $0.isScheduled }
        guard pending else { return }
        SymbolicationWorker.shared.perform { deliverPending() }
    }

    /// Runs on the worker.
    private static func deliverPending() {
        while true {
            let batch = state.withLock { state -> [Entry] in
                let batch = state.entries
                state.entries = []
                if batch.isEmpty { state.isScheduled = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            for entry in batch {
                deliver(entry)
            }
        }
    }

    private static func deliver(_ entry: Entry) {
        var violation = entry.violation
        var location: UserFrame?
        if let stack = entry.stack {
            let symbolicated = CallStack.symbolicate(stack)
            violation = violation.with(callStack: symbolicated.frames)
            location = symbolicated.userFrame
        }
        Airgap.deliver(violation, location: location, delivery: entry.delivery)
    }

    /// Where a violation that happens now on this thread is to be reported; reports it at once
    /// when it must be reported here (a Swift Testing test running on this task, outside a scope).
    static func delivery(for violation: Violation, stack: CapturedStack?) -> Delivery {
        let (sink, handler, mode, inXCTest, xctest) = Airgap.state.withLock { state in
            (state.scopeSinks.last, state.violationHandler, state.mode, state.inXCTestContext, state.currentXCTestCase)
        }
        if let sink { return .scope(sink) }
        #if canImport(Testing)
        if Test.current != nil {
            // Swift Testing records an issue only on the test's own task: report it now, at the
            // user's frame when this stack was symbolicated before, else at the test.
            let location = stack.flatMap(CallStack.cachedSymbolication)?.userFrame
            Airgap.report(violation.message, location: location, handler: handler, mode: mode, inXCTest: inXCTest, xctest: xctest)
            return .reported
        }
        #endif
        return .handler(handler, mode: mode, inXCTest: inXCTest, xctest: xctest)
    }
}

extension Violation {
    /// This violation with `callStack` in place of its own.
    func with(callStack: [String]) -> Violation {
        Violation(
            testName: testName, httpMethod: httpMethod, url: url, callStack: callStack, timestamp: timestamp,
            contentType: contentType, host: host, port: port, kind: kind, wasBlocked: wasBlocked
        )
    }
}
