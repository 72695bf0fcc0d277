import CAirgap
import Foundation

#if canImport(XCTest)
import XCTest
#endif

extension Airgap {
    /// The values `AIRGAP_MODE` accepts, as printed when it holds anything else.
    static let acceptedModeValues = "fail (or 1, true, on, yes, strict, block, error), warn (or warning, report), off (or 0, false, no, none, disabled, empty)"

    /// Sets ``mode``, ``reportPath``, ``allowedHosts`` and ``errorCode`` from the environment.
    ///
    /// | Variable | Example | Effect (absent: default) |
    /// |---|---|---|
    /// | `AIRGAP_MODE` | `warn` | `warn`, `warning`, `report` → ``Mode/warn``; anything else → ``Mode/fail`` |
    /// | `AIRGAP_REPORT_PATH` | `/tmp/airgap.json` | ``reportPath`` (absent: `nil`) |
    /// | `AIRGAP_ALLOWED_HOSTS` | `localhost,127.0.0.1,*.mock.local` | ``allowedHosts`` (absent: empty) |
    /// | `AIRGAP_ERROR_CODE` | `-1009` | ``errorCode`` (absent: -1009) |
    ///
    /// Values are trimmed and compared case-insensitively. ``responseDelay``,
    /// ``violationHandler`` and ``violationReporter`` keep their values. ``AirgapObserver``,
    /// ``AirgapTestCase`` and whole-run mode call this for you.
    public static func configureFromEnvironment() {
        let environment = ProcessInfo.processInfo.environment
        mode = airgap_parse_mode(environment["AIRGAP_MODE"] ?? "") == Int32(AIRGAP_MODE_WARN.rawValue) ? .warn : .fail
        if let path = environment["AIRGAP_REPORT_PATH"]?.trimmingCharacters(in: .whitespaces), !path.isEmpty {
            reportPath = path
        } else {
            reportPath = nil
        }
        if let hosts = environment["AIRGAP_ALLOWED_HOSTS"], !hosts.isEmpty {
            allowedHosts = Set(hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        } else {
            allowedHosts = []
        }
        if let code = environment["AIRGAP_ERROR_CODE"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            errorCode = code
        } else {
            errorCode = URLError.Code.notConnectedToInternet.rawValue
        }
    }

    /// Whether the guard was activated for the whole run by `AIRGAP_MODE` at load time.
    public static var isWholeRun: Bool {
        state.withLock { $0.isWholeRun }
    }

    /// Called by the C load-time constructor in every process that links Airgap: registers the
    /// (inactive) guard protocol before any session exists, so that `URLSession.shared` has it
    /// whenever it is first used, and starts following the running XCTest test, so that a manual
    /// ``activate()`` in a plain `XCTestCase` fails that test.
    static func libraryLoaded() {
        registerURLProtocol()
        #if canImport(XCTest)
        XCTestObservationCenter.shared.addTestObserver(TestNameTracker())
        #endif
    }

    /// Whole-run mode: called by the C load-time constructor when `AIRGAP_MODE` is set to
    /// anything but an "off" value, before `main` and before any test.
    static func startWholeRun() {
        if airgap_startup_mode() == 3 {
            let value = ProcessInfo.processInfo.environment["AIRGAP_MODE"] ?? ""
            printToStandardError("Airgap: AIRGAP_MODE=\"\(value)\" is not a recognised value, so the guard runs in fail mode. Accepted: \(acceptedModeValues).")
        }
        configureFromEnvironment()
        state.withLock { $0.isWholeRun = true }
        activate()
    }

    /// Whole-run mode: registered with `atexit`; writes the report and prints the summary. In
    /// ``Mode/fail`` any violation makes the process exit with status 1.
    static func finishWholeRun() {
        ViolationPipeline.settle()
        airgap_set_enforcing(0)
        writeReport()
        guard let summary = violationSummary() else { return }
        printToStandardError("\(summary)")
        if mode == .fail {
            printToStandardError("Airgap: failing the run because AIRGAP_MODE is fail and the tests reached for the network (see the violations above\(reportPath.map { " and the report at \($0)" } ?? "")).")
            fflush(nil)
            ChildProcesses.removeLog()
            _exit(1)
        }
    }
}

@_cdecl("airgap_library_loaded")
func airgapLibraryLoaded() {
    Airgap.libraryLoaded()
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
/// Follows the running XCTest test (registered when Airgap loads), for attribution and failures.
final class TestNameTracker: NSObject, XCTestObservation {
    func testCaseWillStart(_ testCase: XCTestCase) {
        // Violations of this process are delivered before the blocked call returns; a child's
        // are read from its log: read this test's before its run stops (XCTest refuses failures
        // after that).
        testCase.addTeardownBlock { ViolationPipeline.settle() }
        let reference = XCTestCaseReference(testCase)
        Airgap.state.withLock { state in
            state.currentXCTestName = testCase.name
            state.currentXCTestCase = reference
        }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        Airgap.state.withLock { state in
            state.currentXCTestName = nil
            state.currentXCTestCase = nil
        }
    }
}
#endif
