import Airgap
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `AirgapTestCase` under XCTest: the guard is active around each test, `configure()` runs
/// before activation, and warn mode records violations without failing the test.
final class AirgapTestCaseTests: AirgapTestCase {
    private var previousHosts: Set<String> = []
    private var previousMode: Airgap.Mode = .fail

    override func configure() {
        previousHosts = Airgap.allowedHosts
        previousMode = Airgap.mode
        Airgap.allowedHosts = ["localhost"]
        Airgap.mode = .warn
    }

    override func tearDown() {
        super.tearDown()
        XCTAssertFalse(Airgap.isActive, "tearDown deactivates the guard")
        Airgap.allowedHosts = previousHosts
        Airgap.mode = previousMode
        Airgap.clearViolations()
    }

    func testTheGuardIsActiveAndWarnModeRecordsAViolationWithoutFailing() throws {
        XCTAssertTrue(Airgap.isActive)
        XCTAssertEqual(Airgap.mode, .warn)
        // Nothing listens on 127.0.0.2:9 and it is not allowed: the connect is reported, and in
        // warn mode it proceeds (and is refused by the kernel).
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(9).bigEndian
        inet_pton(AF_INET, "127.0.0.2", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(result, -1)
        let violations = Airgap.violations
        XCTAssertEqual(violations.count, 1)
        XCTAssertEqual(violations.first?.url, "tcp://127.0.0.2:9")
        XCTAssertEqual(violations.first?.testName.contains("testTheGuardIsActiveAndWarnModeRecordsAViolationWithoutFailing"), true)
    }
}
