import Airgap
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `AirgapTestCase` under XCTest: the guard is active around each test, `configure()` runs
/// before activation, and warn mode blocks and records violations without failing the test.
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

    func testTheGuardIsActiveAndWarnModeBlocksAndRecordsAViolationWithoutFailing() throws {
        XCTAssertTrue(Airgap.isActive)
        XCTAssertEqual(Airgap.mode, .warn)
        // A listener of this test's own on 127.0.0.2, which is not allowed: the connect is
        // reported and refused, and the listener never sees it.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.2", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        XCTAssertTrue(listening, "could not listen on 127.0.0.2: errno \(errno)")
        let port = Int(UInt16(bigEndian: address.sin_port))

        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(result, -1, "the connect should be refused in warn mode too")
        XCTAssertEqual(errno, ECONNREFUSED)
        var pending = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pending, 1, 0), 0, "the listener must have no pending connection")
        let violations = Airgap.violations
        XCTAssertEqual(violations.count, 1)
        XCTAssertEqual(violations.first?.url, "tcp://127.0.0.2:\(port)")
        XCTAssertEqual(violations.first?.testName.contains("testTheGuardIsActiveAndWarnModeBlocksAndRecordsAViolationWithoutFailing"), true)
    }
}
