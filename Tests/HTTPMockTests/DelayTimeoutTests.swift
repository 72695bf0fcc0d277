import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A mocked delay or a stalled dribble that reaches the request's timeout fails the request with
/// `URLError(.timedOut)`, as URLSession fails a real server that sends nothing for that long.
/// Delays are 600 s and timeouts 1 s, so only the timeout can end a request: no race to lose.
struct DelayTimeoutTests {
    private func request(_ address: String, timeout: TimeInterval? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: address)!)
        if let timeout { request.timeoutInterval = timeout }
        return request
    }

    @Test func aDelayPastTheRequestsTimeoutFailsAtTheTimeout() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "a.test") { MockResponse.plaintext("too late", delivery: .delayed(600)) }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await urlError { _ = try await mock.urlSession.boundedData(for: request("https://a.test/slow", timeout: 1)) }
        #expect(error?.code == .timedOut)
        #expect(error?.localizedDescription.hasPrefix("HTTPMock: GET https://a.test/slow timed out after 1 s: its mocked response is delayed 600 s") == true, "\(error?.localizedDescription ?? "")")
        #expect(clock.now - start >= .milliseconds(950), "it fails at the timeout, not before")
        // The journal says what the client saw.
        let answer = try #require(mock.requests.first?.response)
        #expect(answer.status == nil)
        #expect(answer.error == error?.localizedDescription)
    }

    @Test func theSessionsTimeoutAppliesWhenTheRequestSetsNone() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "a.test") { MockResponse.plaintext("too late", delivery: .delayed(600)) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let session = mock.makeURLSession(configuration: configuration)
        // Not invalidateAndCancel(): cancelling a task that has just completed through
        // data(for:) can resume its continuation a second time (swift-corelibs-foundation).
        defer { session.finishTasksAndInvalidate() }
        let error = await urlError { _ = try await session.boundedData(for: request("https://a.test/slow")) }
        #expect(error?.code == .timedOut)
    }

    /// As swift-corelibs-foundation decides for real HTTP: a timeout the request sets wins over
    /// the session's, even a longer one. The delay lies between the two.
    @Test func theRequestsOwnTimeoutWinsOverTheSessions() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slowish", host: "a.test") { MockResponse.plaintext("in time", delivery: .delayed(1.2)) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let session = mock.makeURLSession(configuration: configuration)
        // Not invalidateAndCancel(): cancelling a task that has just completed through
        // data(for:) can resume its continuation a second time (swift-corelibs-foundation).
        defer { session.finishTasksAndInvalidate() }
        let (data, _) = try await session.boundedData(for: request("https://a.test/slowish", timeout: 30))
        #expect(String(decoding: data, as: UTF8.self) == "in time")
    }

    @Test func aDelayedErrorPastTheTimeoutTimesOutToo() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/broken", host: "a.test") { MockResponse.error(URLError(.notConnectedToInternet), delivery: .delayed(600)) }
        let error = await urlError { _ = try await mock.urlSession.boundedData(for: request("https://a.test/broken", timeout: 1)) }
        #expect(error?.code == .timedOut)
    }

    /// The head arrives at once; the body's two pieces are 600 s apart, so the body stalls past
    /// the timeout: the request fails after its response head.
    @Test func aDribbleThatStallsPastTheTimeoutFailsAfterTheHead() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/drip", host: "a.test") { MockResponse.plaintext("abcdef").dribbled(inChunks: 2, over: 600) }
        let recorder = CallbackRecorder()
        let session = mock.makeURLSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request("https://a.test/drip", timeout: 1))
        task.resume()
        try await waitUntil("the dribbled request ending") { recorder.calls(of: task).last?.hasPrefix("complete") == true }
        #expect(recorder.calls(of: task) == ["response", "complete -1001"])
        guard case .failure(.timedOut(_, after: 1, waiting: .dribble(600)))? = mock.requests.first?.response?.outcome else {
            Issue.record("the journal should record the timeout: \(String(describing: mock.requests.first?.response?.outcome))")
            return
        }
    }

    /// Pieces 0.6 s apart under a 1 s timeout: the body keeps arriving, so the request completes
    /// even though the whole spread (1.2 s) is longer than the timeout — as it does from a real
    /// server on Linux.
    @Test func aDribbleWhosePiecesComeSoonerThanTheTimeoutCompletes() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/drip", host: "a.test") { MockResponse.plaintext("abcdef").dribbled(inChunks: 3, over: 1.2) }
        let (data, _) = try await mock.urlSession.boundedData(for: request("https://a.test/drip", timeout: 1))
        #expect(String(decoding: data, as: UTF8.self) == "abcdef")
    }
}
