import AirlockBase
import Foundation

#if canImport(XCTest)
import XCTest
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything Airgap knows, as one value behind ``Airgap/state``.
///
/// Airgap is a process-wide guard: `URLProtocol` registration and the socket hooks are global,
/// so this state is global too. It is only ever read or written inside `Airgap.state.withLock`.
struct GuardState: Sendable {
    var mode: Airgap.Mode = .fail
    var reportPath: String?
    var violations: [Violation] = []
    var allowedHosts: Set<String> = []
    var hostRules = HostRules([])
    /// `nil` means the built-in handler (see `DefaultReporting`).
    var violationHandler: (@Sendable (String) -> Void)?
    var violationReporter: (@Sendable (Violation) -> Void)?
    var errorCode: Int = URLError.Code.notConnectedToInternet.rawValue
    var responseDelay: TimeInterval = 0
    var passthroughProtocols: [URLProtocol.Type] = []
    var isActive = false
    var isAllowed = false
    var inXCTestContext = false
    /// Set while an XCTest test runs (by an observer registered when Airgap loads, and by
    /// `AirgapObserver` / `AirgapTestCase`).
    var currentXCTestName: String?
    /// The running XCTest test case, to record failures on it at the user's frame.
    var currentXCTestCase: XCTestCaseReference?
    /// The `.airgapped` / `Airgap.scoped` scopes open now, in the order they began. The socket
    /// hooks enforce while there is one.
    var openScopes: [GuardScope] = []
    /// Whether the load-time constructor activated the guard (`AIRGAP_MODE`).
    var isWholeRun = false
}

/// Collects the violations of one `.airgapped` / `Airgap.scoped` scope as they happen, so that
/// the scope can record them as issues on the test's own task when it ends.
final class ScopeSink: Sendable {
    private let collected = Locked<[Violation]>([])

    func append(_ violation: Violation) {
        collected.withLock { $0.append(violation) }
    }

    var violations: [Violation] {
        collected.withLock { $0 }
    }

    func removeAll() {
        collected.withLock { $0.removeAll() }
    }
}

/// The running XCTest test case, held weakly.
final class XCTestCaseReference: @unchecked Sendable {
    // @unchecked Sendable: `testCase` is set once in init and only read afterwards; XCTest
    // accepts failures recorded on a test case from any thread.
    #if canImport(XCTest)
    weak var testCase: XCTestCase?

    init(_ testCase: XCTestCase) {
        self.testCase = testCase
    }
    #endif
}
