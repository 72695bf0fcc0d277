import AirlockBase
import Testing

/// Keeps this target's tests whose violations happen on threads no test owns apart from its
/// other guarded tests.
///
/// Scopes run in parallel, and a blocked call made on a thread no test owns (a libcurl thread of
/// a `URLSession(configuration:)` session, a SwiftNIO event loop, a child process) is recorded by
/// every open scope (see HowAirgapWorks). A test that makes such calls on purpose takes the gate
/// `.exclusive`ly, so no other guarded test of this target has a scope open meanwhile; the tests
/// that prove scopes run in parallel (their violations are all on their own tasks) take it
/// `.shared`, together. Listed before `.airgapped`, so the gate is taken before the scope opens.
struct ScopeGate: TestTrait, SuiteTrait, TestScoping {
    enum Access: Sendable {
        case shared
        case exclusive
    }

    let access: Access

    var isRecursive: Bool { true }

    /// `.shared`: once around the whole suite, so that all of its tests and cases hold the gate
    /// together (taken per case, an exclusive waiter queued between two cases would keep them
    /// apart). `.exclusive`: around each test case.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        switch access {
        case .shared: test.isSuite ? self : nil
        case .exclusive: test.isSuite || testCase == nil ? nil : self
        }
    }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        await ScopeGateLock.shared.acquire(access)
        defer { ScopeGateLock.shared.release(access) }
        try await function()
    }
}

extension Trait where Self == ScopeGate {
    /// Runs with no other gated test (its violations happen on threads no test owns).
    static var aloneAmongGuardedTests: Self { Self(access: .exclusive) }

    /// Runs beside other `.shared` tests (its violations all happen on its own task).
    static var besideOtherGuardedTests: Self { Self(access: .shared) }
}

/// A first-come, first-served readers-writer lock that suspends instead of blocking.
final class ScopeGateLock: Sendable {
    static let shared = ScopeGateLock()

    private struct Waiter {
        let access: ScopeGate.Access
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var readers = 0
        var writing = false
        var waiters: [Waiter] = []
    }

    private let state = Locked(State())

    func acquire(_ access: ScopeGate.Access) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.waiters.isEmpty, Self.canEnter(access, state) {
                    Self.enter(access, &state)
                    return true
                }
                state.waiters.append(Waiter(access: access, continuation: continuation))
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release(_ access: ScopeGate.Access) {
        let admitted = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            switch access {
            case .shared: state.readers -= 1
            case .exclusive: state.writing = false
            }
            var admitted: [CheckedContinuation<Void, Never>] = []
            while let next = state.waiters.first, Self.canEnter(next.access, state) {
                state.waiters.removeFirst()
                Self.enter(next.access, &state)
                admitted.append(next.continuation)
            }
            return admitted
        }
        admitted.forEach { $0.resume() }
    }

    private static func canEnter(_ access: ScopeGate.Access, _ state: State) -> Bool {
        switch access {
        case .shared: !state.writing
        case .exclusive: !state.writing && state.readers == 0
        }
    }

    private static func enter(_ access: ScopeGate.Access, _ state: inout State) {
        switch access {
        case .shared: state.readers += 1
        case .exclusive: state.writing = true
        }
    }
}
