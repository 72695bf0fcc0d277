import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stubs registered while real URLSession requests are being matched on the routes' snapshot,
/// without the mock's lock: each request gets its own stub's answer, never another's.
struct RouteSnapshotSessionTests {
    @Test func registeringWhileSessionsFetchAnswersEachRequestFromItsOwnStub() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/0", host: "a.test") { MockResponse.plaintext("0", lifetime: .eternal) }
        try await withThrowingTaskGroup(of: [String].self) { group in
            group.addTask {
                for n in 1...200 {
                    mock.addResponses(forPath: "/\(n)", host: "a.test") { MockResponse.plaintext("\(n)", lifetime: .eternal) }
                    await Task.yield()
                }
                return []
            }
            for _ in 0..<4 {
                group.addTask {
                    var wrong: [String] = []
                    for _ in 0..<25 {
                        let answer = try await mock.fetch("https://a.test/0")
                        if answer.text != "0" { wrong.append(answer.text) }
                    }
                    return wrong
                }
            }
            for try await wrong in group {
                #expect(wrong.isEmpty)
            }
        }
        for n in [1, 100, 200] {
            #expect(try await mock.fetch("https://a.test/\(n)").text == "\(n)")
        }
        #expect(mock.requests.map(\.path).filter { $0 == "/0" }.count == 100)
    }
}
