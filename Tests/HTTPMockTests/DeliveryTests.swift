import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct DeliveryTests {
    @Test func delayedResponsesArriveAfterTheirDelay() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "a.test") {
            MockResponse.plaintext("delayed response", delivery: .delayed(0.4))
        }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await mock.fetch("https://a.test/slow").text == "delayed response")
        #expect(clock.now - start >= .milliseconds(380))
    }

    @Test func aDelayedResponseDoesNotHoldUpOtherRequests() async throws {
        // On Linux all sessions share one URLProtocol queue: a delay that slept on it would make
        // the instant request wait behind the slow one.
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "a.test") { MockResponse.plaintext("slow", delivery: .delayed(1.5)) }
        mock.addResponses(forPath: "/fast", host: "a.test") { MockResponse.plaintext("fast") }
        let order = OrderLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let text = try await mock.fetch("https://a.test/slow").text
                order.append(text)
            }
            try await Task.sleep(for: .milliseconds(100))
            group.addTask {
                let text = try await mock.fetch("https://a.test/fast").text
                order.append(text)
            }
            try await group.waitForAll()
        }
        #expect(order.entries == ["fast", "slow"])
    }

    @Test func cancellingATaskCancelsItsPendingDelivery() async throws {
        let mock = HTTPMock()
        // A long delay, so that the cancellation lands first even when other tests keep the
        // URL loading queue busy.
        mock.addResponses(forPath: "/slow", host: "a.test") {
            MockResponse.plaintext("too late", delivery: .delayed(2))
        }
        let recorder = CallbackRecorder()
        let session = mock.makeURLSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "https://a.test/slow")!)
        task.resume()
        // Cancel once the request has reached the mock, so its delivery is pending.
        try await waitUntil { mock.requests.count == 1 }
        task.cancel()
        try await waitUntil { !recorder.calls.isEmpty }
        // Wait past the delay: a delivery that was not cancelled would now report a response
        // and data after the completion.
        try await Task.sleep(for: .milliseconds(2_300))
        #expect(recorder.calls == ["complete -999"])
    }

    @Test func swiftTaskCancellationCancelsTheRequest() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "a.test") { MockResponse.plaintext("late", delivery: .delayed(5)) }
        let clock = ContinuousClock()
        let start = clock.now
        let request = Task { try await mock.fetch("https://a.test/slow") }
        try await Task.sleep(for: .milliseconds(100))
        request.cancel()
        let error = await urlError { _ = try await request.value }
        #expect(error?.code == .cancelled)
        #expect(clock.now - start < .seconds(4))
    }
}

/// Records what a task reports, to prove nothing arrives after cancellation.
final class CallbackRecorder: NSObject, URLSessionDataDelegate, Sendable {
    private let log = Locked<[String]>([])

    var calls: [String] { log.withLock { $0 } }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        log.withLock { $0.append("response") }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        log.withLock { $0.append("data") }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        log.withLock { $0.append(error.map { "complete \(($0 as NSError).code)" } ?? "complete") }
    }
}

/// Lines appended from concurrent tasks, in arrival order.
final class OrderLog: Sendable {
    private let lines = Locked<[String]>([])

    var entries: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }
}

/// Polls `condition` every 10 ms, for at most 10 s.
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<1_000 where !condition() {
        try await Task.sleep(for: .milliseconds(10))
    }
    try #require(condition())
}
