import Foundation
import HTTPMock
import HTTPMockTesting
import Testing
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `.cassette` trait and the XCTest helper, replaying cassettes committed beside this file
/// in `__Cassettes__/CassetteTraitTests/` (the default place). They replay in any environment:
/// the files exist, so `.once` does not record, and `CI` only forces `.none`.
struct CassetteTraitTests {
    @Test(.cassette) func replaysThroughTheTrait() async throws {
        let mock = try HTTPMock(cassette: .current())
        let path = try #require(mock.cassette?.url.path)
        #expect(path.hasSuffix("Tests/HTTPMockTests/__Cassettes__/CassetteTraitTests/replaysThroughTheTrait.har"))
        #expect(try await mock.texts("https://api.example.com/greeting", count: 2) == ["hello from the cassette", "hello again"])
        #expect(mock.unusedStubs.isEmpty)
    }

    /// `POST /users` with a JSON body, through the mock's session; returns status and body.
    private func signUp(_ mock: HTTPMock, body: String) async throws -> (status: Int?, text: String) {
        var request = URLRequest(url: URL(string: "https://api.example.com/users")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (data, response) = try await mock.urlSession.boundedData(for: request)
        return ((response as? HTTPURLResponse)?.statusCode, String(decoding: data, as: UTF8.self))
    }

    @Test(.cassette("shared-signup")) func aNamedCassette() async throws {
        let answer = try await signUp(try HTTPMock(cassette: .current()), body: #"{ "name" : "Alice" }"#)
        #expect(answer.status == 201)
        #expect(answer.text == #"{"id":7}"#)
    }

    /// The cases run at once (Swift Testing runs them in parallel), each with its own cassette and mock.
    @Test(.cassette("shared-signup"), arguments: 1...4) func parallelTestsEachHaveTheirOwnCassette(_ run: Int) async throws {
        let answer = try await signUp(try HTTPMock(cassette: .current()), body: #"{"name":"Alice"}"#)
        #expect(answer.status == 201, "run \(run)")
    }

    @Test func withoutTheTraitThereIsNoCurrentCassette() {
        do {
            _ = try Cassette.current()
            Issue.record("a cassette without the trait")
        } catch {
            #expect(error.description.contains("@Test(.cassette)"))
        }
    }

    @Test func defaultPlaceAndName() {
        let url = Cassette.defaultURL(forTest: "listsUsers()", in: "/p/Tests/AppTests/UsersTests.swift")
        #expect(url.path == "/p/Tests/AppTests/__Cassettes__/UsersTests/listsUsers.har")
        #expect(Cassette.defaultURL(forTest: "-[UsersTests testList]", in: "/p/T.swift").lastPathComponent == "testList.har")
        #expect(Cassette.defaultURL(forTest: "UsersTests.testList", in: "/p/T.swift").lastPathComponent == "testList.har")
    }
}

final class CassetteXCTestTests: XCTestCase {
    func testReplaysThroughXCTest() async throws {
        let mock = HTTPMock(cassette: try cassette())
        XCTAssertTrue(mock.cassette?.url.path.hasSuffix("__Cassettes__/CassetteTraitTests/testReplaysThroughXCTest.har") == true)
        let (data, _) = try await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/xctest")!)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "hello, XCTest")
    }
}
