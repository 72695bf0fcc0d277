import Airgap
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `Airgap.activate()` in a plain `XCTestCase`, without registering anything: a violation fails
/// the running test, at the line of the user's call.
final class ManualActivationXCTests: XCTestCase {
    private var airgapFailures: [(description: String, file: String, line: Int)] = []

    /// Keeps Airgap's failures (expected here) and passes every other failure on.
    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if description.hasPrefix("Airgap: Blocked") {
            airgapFailures.append((description, filePath, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testManualActivationFailsTheRunningTestAtTheCall() throws {
        let listeners = try LoopbackListeners(host: "127.0.0.2")
        let (previousHosts, previousMode) = (Airgap.allowedHosts, Airgap.mode)
        Airgap.allowedHosts = ["localhost"]
        Airgap.mode = .fail
        Airgap.activate()

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(listeners.tcpPort).bigEndian)
        inet_pton(AF_INET, "127.0.0.2", &address.sin_addr)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        let callLine = #line; let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let code = errno

        Airgap.deactivate()
        Airgap.allowedHosts = previousHosts
        Airgap.mode = previousMode
        Airgap.clearViolations()

        XCTAssertEqual(result, -1)
        XCTAssertEqual(code, ECONNREFUSED)
        XCTAssertEqual(listeners.received(), [])
        XCTAssertEqual(airgapFailures.count, 1, "\(airgapFailures)")
        XCTAssertTrue(airgapFailures.first?.description.contains("tcp://127.0.0.2:\(listeners.tcpPort)") == true)
        XCTAssertTrue(airgapFailures.first?.description.contains("Test: ManualActivationXCTests.testManualActivationFailsTheRunningTestAtTheCall") == true, "\(airgapFailures)")
        XCTAssertEqual(airgapFailures.first?.file, #filePath)
        XCTAssertEqual(airgapFailures.first?.line, callLine)
    }
}
