import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

/// Swift Testing runs these in parallel in one process, which is the point.
struct IsolationTests {
    @Test(arguments: 0..<8)
    func instancesNeverSeeEachOthersResponses(index: Int) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/user", host: "api.example.com") {
            MockResponse.plaintext("instance \(index)", lifetime: .multiple(20))
        }
        for _ in 0..<20 {
            #expect(try await mock.fetch("https://api.example.com/user").text == "instance \(index)")
        }
        #expect(try await mock.fetch("https://api.example.com/user").status == 404)
    }

    @Test func policiesArePerInstance() async throws {
        let first = HTTPMock()
        let second = HTTPMock()
        first.unmockedPolicy = .mock(.plaintext("first fallback"))
        #expect(try await first.fetch("https://x.test/").text == "first fallback")
        #expect(try await second.fetch("https://x.test/").status == 404)
    }

    @Test func concurrentRequestsTakeEachSingleResponseExactlyOnce() async throws {
        let mock = HTTPMock()
        let count = 1_000
        mock.addResponses(forPath: "/ticket", host: "a.test", responses: (0..<count).map { .plaintext("ticket-\($0)") })
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask { try await mock.fetch("https://a.test/ticket").text }
            }
            var bodies: [String] = []
            for try await body in group { bodies.append(body) }
            return bodies
        }
        #expect(bodies.count == count)
        #expect(Set(bodies) == Set((0..<count).map { "ticket-\($0)" }))
        #expect(try await mock.fetch("https://a.test/ticket").status == 404)
    }

    @Test func concurrentRegistrationAndRequestsAreSafe() async throws {
        let mock = HTTPMock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    mock.addResponses(forPath: "/r/\(index)", host: "a.test") { MockResponse.plaintext("\(index)") }
                    let text = try await mock.fetch("https://a.test/r/\(index)").text
                    #expect(text == "\(index)")
                }
            }
            try await group.waitForAll()
        }
    }
}
