import CAirgap
import Foundation

#if canImport(XCTest)
import XCTest
#endif

extension Airgap {
    /// Sets ``mode``, ``reportPath``, ``allowedHosts`` and ``errorCode`` from the environment.
    ///
    /// | Variable | Example | Effect (absent: default) |
    /// |---|---|---|
    /// | `AIRGAP_MODE` | `warn` | `warn` → ``Mode/warn``, anything else → ``Mode/fail`` |
    /// | `AIRGAP_REPORT_PATH` | `/tmp/airgap.json` | ``reportPath`` (absent: `nil`) |
    /// | `AIRGAP_ALLOWED_HOSTS` | `localhost,127.0.0.1,*.mock.local` | ``allowedHosts`` (absent: empty) |
    /// | `AIRGAP_ERROR_CODE` | `-1009` | ``errorCode`` (absent: -1009) |
    ///
    /// ``responseDelay``, ``violationHandler`` and ``violationReporter`` keep their values.
    /// ``AirgapObserver``, ``AirgapTestCase`` and whole-run mode call this for you.
    public static func configureFromEnvironment() {
        let environment = ProcessInfo.processInfo.environment
        mode = environment["AIRGAP_MODE"]?.lowercased() == "warn" ? .warn : .fail
        if let path = environment["AIRGAP_REPORT_PATH"], !path.isEmpty {
            reportPath = path
        } else {
            reportPath = nil
        }
        if let hosts = environment["AIRGAP_ALLOWED_HOSTS"], !hosts.isEmpty {
            allowedHosts = Set(hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        } else {
            allowedHosts = []
        }
        if let code = environment["AIRGAP_ERROR_CODE"].flatMap({ Int($0) }) {
            errorCode = code
        } else {
            errorCode = URLError.Code.notConnectedToInternet.rawValue
        }
    }

    /// Whether the guard was activated for the whole run by `AIRGAP_MODE` at load time.
    public static var isWholeRun: Bool {
        state.withLock { $0.isWholeRun }
    }

    /// Whole-run mode: called by the C load-time constructor when `AIRGAP_MODE` is `fail` or
    /// `warn`, before `main` and before any test.
    static func startWholeRun() {
        configureFromEnvironment()
        state.withLock { $0.isWholeRun = true }
        activate()
        #if canImport(XCTest)
        XCTestObservationCenter.shared.addTestObserver(TestNameTracker())
        #endif
    }

    /// Whole-run mode: registered with `atexit`; writes the report and prints the summary.
    static func finishWholeRun() {
        airgap_set_enforcing(0)
        writeReport()
        if let summary = violationSummary() {
            printToStandardError("\(summary)")
        }
    }
}

@_cdecl("airgap_whole_run_bootstrap")
func airgapWholeRunBootstrap() {
    Airgap.startWholeRun()
}

@_cdecl("airgap_whole_run_finish")
func airgapWholeRunFinish() {
    Airgap.finishWholeRun()
}

#if canImport(XCTest)
/// Tracks the running XCTest test in whole-run mode, for attribution and `XCTFail`.
final class TestNameTracker: NSObject, XCTestObservation {
    func testCaseWillStart(_ testCase: XCTestCase) {
        Airgap.state.withLock { $0.currentXCTestName = testCase.name }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        Airgap.state.withLock { $0.currentXCTestName = nil }
    }
}
#endif
