import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import XCTest

// MockingCodeYouDontControl.md: XCTest, each test inside its own mock's scope. Run, not only
// compiled: a real XCTest case of this target.
final class ProfileTests: XCTestCase {
    let mock = HTTPMock()

    override func invokeTest() {
        do {
            try mock.intercepting { super.invokeTest() }
        } catch {
            XCTFail("\(error)")
        }
    }

    func testShowsTheName() async throws {
        mock.addResponses(forPath: "/me", host: "api.example.com") { MockResponse.plaintext("Alice") }
        let (data, _) = try await URLSession.shared.data(from: URL(string: "https://api.example.com/me")!)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "Alice")
    }
}
