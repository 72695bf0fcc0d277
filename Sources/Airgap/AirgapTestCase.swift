#if canImport(XCTest)
import Foundation
import XCTest

/// An `XCTestCase` base class whose tests run with Airgap active.
///
/// ```swift
/// final class MyTests: AirgapTestCase {
///     override func configure() {
///         Airgap.mode = .warn
///         Airgap.allowedHosts = ["localhost"]
///     }
/// }
/// ```
///
/// `setUp()` reads the environment (``Airgap/configureFromEnvironment()``), clears the
/// violations, calls ``configure()`` and activates the guard; `tearDown()` writes the report
/// (when ``Airgap/reportPath`` is set) and deactivates it.
open class AirgapTestCase: XCTestCase {
    /// Customises Airgap for this class. Runs after the environment is applied and before
    /// ``Airgap/activate()``. Does nothing by default.
    open func configure() {}

    /// Configures and activates the guard.
    override open func setUp() {
        super.setUp()
        Airgap.configureFromEnvironment()
        Airgap.inXCTestContext = true
        Airgap.clearViolations()
        configure()
        Airgap.state.withLock { $0.currentXCTestName = name }
        Airgap.activate()
    }

    /// Writes the report and deactivates the guard.
    override open func tearDown() {
        Airgap.writeReport()
        Airgap.deactivate()
        Airgap.state.withLock { $0.currentXCTestName = nil }
        super.tearDown()
    }
}
#endif
