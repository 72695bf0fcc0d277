import HTTPTestSupport
import HTTPMock
import HTTPMockTesting
import XCTest

/// The verification API works from XCTest too (failures go to XCTFail there).
final class XCTestVerificationTests: XCTestCase {
    func testVerifyPassesUnderXCTest() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/ping", host: "a.test") { MockResponse.plaintext("pong") }
        let fetched = try await mock.fetch("https://a.test/ping")
        XCTAssertEqual(fetched.text, "pong")
        XCTAssertTrue(mock.verify(.get && .path("/ping"), .once))
        XCTAssertTrue(mock.verifyAllStubsUsed())
        XCTAssertTrue(mock.verifyNoUnmatchedRequests())
    }
}
