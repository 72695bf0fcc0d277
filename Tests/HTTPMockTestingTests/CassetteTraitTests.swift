import AirlockBase
import HTTPTestSupport
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
        #expect(path.hasSuffix("Tests/HTTPMockTestingTests/__Cassettes__/CassetteTraitTests/replaysThroughTheTrait.har"))
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

    /// The cassette does not exist and `none` never records: the request fails, and when the
    /// test ends the trait records an issue for it — even though the test swallowed the error.
    /// (The outer trait expects exactly that issue; without it the test fails.)
    @Test(.expectingReplayMisses(["GET https://api.example.com/never-recorded"]), .cassette("never-recorded", mode: .none))
    func aReplayMissIsRecordedAsAnIssueWhenTheTestEnds() async throws {
        let cassette = try Cassette.current()
        let mock = HTTPMock(cassette: cassette)
        _ = try? await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/never-recorded")!)
        #expect(cassette.misses.count == 1)
        #expect(!FileManager.default.fileExists(atPath: cassette.url.path))
    }

    /// A cassette recorded in 2020 with a maximum age of 30 days, on CI: the trait fails the test
    /// before its body runs, saying how old the cassette is and how to refresh it — no live call.
    /// (The outer trait sets `CI` for this test alone and expects exactly that failure.)
    @Test(.expectingExpiry, .cassette("expired", maxAge: .days(30)))
    func anExpiredCassetteFailsTheTestOnCI() async throws {
        Issue.record("the test body ran with an expired cassette")
    }

    /// Reads `https://api.example.com/events` of `mock` through a data delegate: each piece with
    /// the seconds after the request.
    private func streamedPieces(_ mock: HTTPMock) async throws -> [(text: String, at: TimeInterval)] {
        let delegate = StreamedPieces()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = mock.urlSession.configuration.protocolClasses
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let sent = Date()
        session.dataTask(with: URL(string: "https://api.example.com/events")!).resume()
        for await error in delegate.ended { #expect(error == nil) }
        return delegate.pieces.withLock { $0.map { (String(decoding: $0.data, as: UTF8.self), $0.at.timeIntervalSince(sent)) } }
    }

    @Test(.cassette("streamed-events")) func aRecordedStreamReplaysPartByPartAtItsRecordedPace() async throws {
        #expect(try Cassette.current().pace == .asRecorded)
        let pieces = try await streamedPieces(try HTTPMock(cassette: .current()))
        #expect(pieces.map(\.text) == ["id: 1\ndata: one\n\n", "id: 2\ndata: two\n\n"])
        // The second part was recorded 400 ms after the first: never sooner.
        if pieces.count == 2 { #expect(pieces[1].at >= 0.4) }
    }

    @Test(.cassette("streamed-events", pace: .instant)) func theTraitChoosesThePaceOfATest() async throws {
        #expect(try Cassette.current().pace == .instant)
        let pieces = try await streamedPieces(try HTTPMock(cassette: .current()))
        #expect(pieces.map(\.text) == ["id: 1\ndata: one\n\n", "id: 2\ndata: two\n\n"], "at once, each part still a piece of its own")
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

/// Runs a test inside `withKnownIssue`, outside every trait listed after it, and checks that the
/// issues recorded are exactly one replay miss per request given (`"GET https://…"`), each naming
/// the request, the nearest entries and how to record it.
struct ExpectingReplayMisses: TestTrait, TestScoping {
    let requests: [String]

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let seen = Locked<[String]>([])
        try await withKnownIssue {
            try await function()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined(separator: "\n")
            guard text.hasPrefix("Airlock replay miss: ") else { return false }
            seen.withLock { $0.append(text) }
            return true
        }
        let reports = seen.withLock { $0 }
        #expect(reports.count == requests.count, "\(reports)")
        for (report, request) in zip(reports, requests) {
            #expect(report.contains("has no recorded response for \(request), so the request failed."), "\(report)")
            #expect(report.contains("Airlock: no stub for \(request)"), "\(report)")
            #expect(report.contains("To record it: AIRLOCK_RECORD=newEpisodes swift test --filter "), "\(report)")
        }
    }
}

extension Trait where Self == ExpectingReplayMisses {
    static func expectingReplayMisses(_ requests: [String]) -> Self { ExpectingReplayMisses(requests: requests) }
}

/// Runs a test (and the traits listed after it) as on CI, and expects the `.cassette` trait to
/// fail it because the cassette is older than its maximum age.
struct ExpectingExpiry: TestTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let error = await #expect(throws: CassetteError.self) {
            try await Cassette.$scopedEnvironment.withValue(["CI": "true"]) { try await function() }
        }
        #expect(error?.code == .expired)
        let message = error?.description ?? ""
        #expect(message.contains("expired.har: is "), "\(message)")
        #expect(message.contains("days old (its oldest entry was recorded 2020-01-01T00:00:00.000Z), older than its maximum age of 30d"), "\(message)")
        #expect(message.contains("run the test without CI, or `airlock cassette verify "), "\(message)")
    }
}

extension Trait where Self == ExpectingExpiry {
    static var expectingExpiry: Self { ExpectingExpiry() }
}

final class CassetteXCTestTests: XCTestCase {
    private var failures: [String] = []

    /// Keeps the replay-miss failures (expected here) and passes every other failure on.
    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        // XCTFail's description is "failed - <message>".
        if description.hasPrefix("failed - Airlock replay miss: ") {
            failures.append("\(URL(fileURLWithPath: filePath).lastPathComponent):\(lineNumber) \(description)")
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    private var missLine = 0

    /// A request the cassette cannot answer fails, and `cassette()`'s teardown block fails the
    /// test at the line of the `cassette()` call; ``tearDown()`` (which runs after teardown
    /// blocks) checks that it did.
    func testAReplayMissFailsTheTestWhenItEnds() async throws {
        missLine = #line; let tape = try cassette("never-recorded-xctest", mode: .none)
        let mock = HTTPMock(cassette: tape)
        _ = try? await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/never-recorded")!)
        XCTAssertEqual(tape.misses.count, 1)
        XCTAssertEqual(failures, [], "nothing is reported before the test ends")
    }

    override func tearDown() {
        if name.contains("testAReplayMissFailsTheTestWhenItEnds") {
            XCTAssertEqual(failures.count, 1, "\(failures)")
            XCTAssertTrue(failures.first?.hasPrefix("CassetteTraitTests.swift:\(missLine) failed - Airlock replay miss: ") == true, "\(failures)")
            XCTAssertTrue(failures.first?.contains("GET https://api.example.com/never-recorded") == true, "\(failures)")
        }
        super.tearDown()
    }

    /// The XCTest helper with a maximum age, on CI (`CI` set for this test alone): opening the
    /// cassette recorded in 2020 throws, saying how old it is and how to refresh it.
    func testAnExpiredCassetteThrowsOnCI() throws {
        try Cassette.$scopedEnvironment.withValue(["CI": "true"]) {
            XCTAssertThrowsError(try cassette("expired", maxAge: .days(30))) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("expired.har: is "), message)
                XCTAssertTrue(message.contains("older than its maximum age of 30d"), message)
            }
        }
    }

    func testReplaysThroughXCTest() async throws {
        let mock = HTTPMock(cassette: try cassette())
        XCTAssertTrue(mock.cassette?.url.path.hasSuffix("__Cassettes__/CassetteTraitTests/testReplaysThroughXCTest.har") == true)
        let (data, _) = try await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/xctest")!)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "hello, XCTest")
    }
}

/// A data delegate that keeps each piece with when it came, and tells when the task ends.
private final class StreamedPieces: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `pieces` sits behind a Locked; the stream and its continuation are Sendable.
    let pieces = Locked<[(data: Data, at: Date)]>([])
    private let finished: AsyncStream<(any Error)?>.Continuation
    let ended: AsyncStream<(any Error)?>

    override init() {
        (ended, finished) = AsyncStream.makeStream()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pieces.withLock { $0.append((data, Date())) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finished.yield(error)
        finished.finish()
    }
}

/// `@Test(.cassette)` replays through `URLSession.shared`, with nothing injected.
struct CassetteThroughTheSharedSessionTests {
    @Test(.cassette("replaysThroughTheTrait")) func replaysWithNothingInjected() async throws {
        let client = GreetingClient()
        #expect(try await client.greeting() == "hello from the cassette")
        #expect(try await client.greeting() == "hello again")
        let mock = try #require(HTTPMock.current)
        #expect(mock.cassette?.url.lastPathComponent == "replaysThroughTheTrait.har")
        #expect(mock.requests.count == 2)
    }

    /// The cases run at once, each with its own cassette (the same file, read by each) and mock.
    @Test(.cassette("shared-signup"), arguments: 1...8) func parallelTestsEachReplayTheirOwnCassette(_ run: Int) async throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/users")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"Alice"}"#.utf8)
        let (data, response) = try await URLSession.shared.boundedData(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201, "run \(run)")
        #expect(String(decoding: data, as: UTF8.self) == #"{"id":7}"#)
        #expect(HTTPMock.current?.requests.count == 1)
    }

    /// A request the cassette cannot answer is a replay miss of this test, recorded as its issue.
    @Test(.expectingReplayMisses(["GET https://api.example.com/never-recorded"]), .cassette("never-recorded-shared", mode: .none))
    func aReplayMissThroughTheSharedSessionIsTheTestsIssue() async throws {
        _ = try? await URLSession.shared.boundedData(from: URL(string: "https://api.example.com/never-recorded")!)
        #expect(try Cassette.current().misses.count == 1)
    }

    /// Recording through `URLSession.shared`: the exchange reaches the file, and replays with the
    /// server stopped — the trait does exactly this with the test's own file.
    @Test func recordsThroughTheSharedSessionThenReplaysWithTheServerStopped() async throws {
        let folder = TemporaryFolder("airlock-shared-cassette")
        // Kept to the end: Swift may release a local after its last use, which would remove the
        // folder before the cassette is written into it (and leave the file behind).
        defer { withExtendedLifetime(folder) {} }
        let file = folder.url.appendingPathComponent("greeting.har")
        let server = try await LoopbackServer.start()
        let client = GreetingClient(base: "http://127.0.0.1:\(server.port)")
        let recording = try Cassette(contentsOf: file, mode: .once, environment: [:])
        let recorded = try await HTTPMock(cassette: recording).intercepting { try await client.greeting() }
        try recording.save()
        try await server.stop()
        #expect(recorded == "real GET /greeting")
        #expect(server.requestCount == 1)

        let replaying = try Cassette(contentsOf: file, mode: .none, environment: [:])
        let replayed = try await HTTPMock(cassette: replaying).intercepting { try await client.greeting() }
        #expect(replayed == "real GET /greeting")
        #expect(replaying.misses.isEmpty)
    }
}
