#if canImport(XCTest)
import Foundation
import XCTest

/// Guards a whole XCTest run: activates Airgap when the test bundle starts, re-arms it before
/// each test, and writes the report when the bundle finishes.
///
/// On Apple platforms it is used as the bundle's `NSPrincipalClass`. swift-corelibs-xctest on
/// Linux has no principal class, so register it yourself before the tests start:
///
/// ```swift
/// AirgapObserver.register()
/// ```
///
/// or, recommended on Linux, run the tests with `AIRGAP_MODE=fail` (whole-run mode), which needs
/// no code at all.
///
/// In ``Airgap/Mode/fail`` violations call `XCTFail` for the running test. In
/// ``Airgap/Mode/warn`` each prints one warning line (there is no `XCTExpectFailure` on Linux).
/// Violations accumulate for the whole bundle; the allow flag is reset before each test.
open class AirgapObserver: NSObject, XCTestObservation {
    /// Creates an observer. Register it with ``register()`` or
    /// `XCTestObservationCenter.shared.addTestObserver(_:)`.
    override public init() {
        super.init()
    }

    /// Registers a new observer with `XCTestObservationCenter.shared` and activates the guard
    /// at once (in case the bundle has already started).
    /// - Returns: The registered observer.
    @discardableResult
    public static func register() -> AirgapObserver {
        let observer = AirgapObserver()
        XCTestObservationCenter.shared.addTestObserver(observer)
        observer.start()
        return observer
    }

    /// Configures from the environment and activates the guard.
    open func testBundleWillStart(_ testBundle: Bundle) {
        start()
    }

    /// Writes the report, prints the summary and deactivates the guard.
    open func testBundleDidFinish(_ testBundle: Bundle) {
        Airgap.writeReport()
        if let summary = Airgap.violationSummary() {
            print(summary)
        }
        Airgap.deactivate()
    }

    /// Re-arms the guard (resetting `allowNetworkAccess()`) and attributes violations to the test.
    open func testCaseWillStart(_ testCase: XCTestCase) {
        Airgap.state.withLock { $0.currentXCTestName = testCase.name }
        if Airgap.isActive {
            Airgap.activate()
        }
    }

    /// Stops attributing violations to the finished test.
    open func testCaseDidFinish(_ testCase: XCTestCase) {
        Airgap.state.withLock { $0.currentXCTestName = nil }
    }

    private func start() {
        Airgap.configureFromEnvironment()
        Airgap.inXCTestContext = true
        Airgap.activate()
    }
}
#endif
