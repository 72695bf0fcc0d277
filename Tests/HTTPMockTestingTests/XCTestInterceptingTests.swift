import AirlockBase
import Foundation
import HTTPMock
import HTTPTestSupport
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// XCTest: each test runs inside its own mock's scope, set up in `invokeTest()` — the code under
/// test calls `URLSession.shared` and is given nothing.
final class XCTestInterceptingTests: XCTestCase {
    /// A fresh mock per test: XCTest makes a new instance of the class for each test method.
    let mock = HTTPMock()

    override func invokeTest() {
        do {
            try mock.intercepting { super.invokeTest() }
        } catch {
            XCTFail("\(error)")
        }
    }

    override func setUp() {
        super.setUp()
        mock.addResponses(forPath: "/greeting", host: "api.example.com") {
            MockResponse.plaintext("hello from \(name)")
        }
    }

    func testAnAsyncTestIsAnsweredByItsMock() async throws {
        XCTAssertTrue(HTTPMock.current === mock)
        let text = try await GreetingClient().greeting()
        XCTAssertEqual(text, "hello from \(name)")
        XCTAssertEqual(mock.requests.count, 1)
    }

    func testASynchronousTestIsAnsweredByItsMock() throws {
        XCTAssertTrue(HTTPMock.current === mock)
        let done = expectation(description: "answered")
        let received = Locked<String?>(nil)
        URLSession.shared.dataTask(with: URL(string: "https://api.example.com/greeting")!) { data, _, _ in
            received.withLock { $0 = data.map { String(decoding: $0, as: UTF8.self) } }
            done.fulfill()
        }.resume()
        wait(for: [done], timeout: 60)
        XCTAssertEqual(received.withLock { $0 }, "hello from \(name)")
    }

    /// Around one block of a test body, without `invokeTest()`.
    func testAroundABlock() async throws {
        let other = HTTPMock()
        other.addResponses(forPath: "/greeting", host: "api.example.com") { MockResponse.plaintext("from the block's mock") }
        let text = try await other.intercepting { try await GreetingClient().greeting() }
        XCTAssertEqual(text, "from the block's mock")
        // After the block, the test's own scope answers again.
        let after = try await GreetingClient().greeting()
        XCTAssertEqual(after, "hello from \(name)")
    }
}
