import AirlockBase
import HTTPTestSupport
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
        // the instant request wait behind the slow one. The slow response is due long after the
        // test ends, so the fast one completes only if the pending delay holds nothing up (if it
        // did, the fast request would fail at its hang guard).
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "a.test") { MockResponse.plaintext("slow", delivery: .delayed(600)) }
        mock.addResponses(forPath: "/fast", host: "a.test") { MockResponse.plaintext("fast") }
        let order = OrderLog()
        let slow = Task {
            let text = try await mock.fetch("https://a.test/slow", timeout: 3600).text
            order.append(text)
        }
        defer { slow.cancel() }
        // The slow request has reached the mock: its delivery is pending from here on.
        try await waitUntil("the slow request reaching the mock") { mock.requests.count == 1 }
        let fast = try await mock.fetch("https://a.test/fast").text
        order.append(fast)
        #expect(order.entries == ["fast"])
        // The slow request only ends when it is cancelled, and never delivers its response.
        slow.cancel()
        let error = await urlError { try await slow.value }
        #expect(error?.code == .cancelled)
        #expect(order.entries == ["fast"])
    }

    @Test func cancellingATaskCancelsItsPendingDelivery() async throws {
        let mock = HTTPMock()
        // Due long after the test ends: the cancellation lands while the delivery is pending, by
        // construction, however slow the machine.
        mock.addResponses(forPath: "/slow", host: "a.test") {
            MockResponse.plaintext("too late", delivery: .delayed(600))
        }
        let recorder = CallbackRecorder()
        let session = mock.makeURLSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        // The request's timeout is further off still, so only the cancellation can end it.
        var request = URLRequest(url: URL(string: "https://a.test/slow")!)
        request.timeoutInterval = 3600
        let task = session.dataTask(with: request)
        task.resume()
        // Cancel once the request has reached the mock, so its delivery is pending.
        try await waitUntil("the request reaching the mock") { mock.requests.count == 1 }
        task.cancel()
        // The completion arrives only because of the cancellation: the delivery is 600 s away.
        try await waitUntil("the cancelled task completing") { !recorder.calls(of: task).isEmpty }
        #expect(recorder.calls(of: task) == ["complete -999"])
    }

    @Test func anAnswerReadyOnlyAfterTheCancellationNeverReachesTheClient() async throws {
        // The mock reads a streamed body before it can match the request. The test holds that
        // body back until the task has been cancelled, so the mock's answer is ready only after
        // the cancellation: the order a timer-based test can only hope for.
        let mock = HTTPMock()
        mock.addResponses(forPath: "/gated", host: "a.test") { MockResponse.plaintext("too late") }
        mock.addResponses(forPath: "/marker", host: "a.test") { MockResponse.plaintext("marker") }
        let recorder = CallbackRecorder()
        let session = mock.makeURLSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        let body = GatedBodyStream(Data("held back".utf8))
        defer { body.release() }
        var request = URLRequest(url: URL(string: "https://a.test/gated")!)
        request.httpMethod = "POST"
        request.httpBodyStream = body
        let gated = session.dataTask(with: request)
        gated.resume()
        try await waitUntil("the mock starting to read the body") { body.isBeingRead }
        gated.cancel()
        try await waitUntil("the cancelled task completing") { !recorder.calls(of: gated).isEmpty }
        // Now let the mock read the body, match the request and answer it.
        body.release()
        try await waitUntil("the mock reading the released body") { body.isDrained }
        // A later request on the same session: once its answer is in, a late answer to the
        // cancelled task would have been reported before it.
        let marker = session.dataTask(with: URL(string: "https://a.test/marker")!)
        marker.resume()
        try await waitUntil("the marker request completing") { recorder.calls(of: marker).contains("complete") }
        #expect(recorder.calls(of: marker) == ["response", "data", "complete"])
        #expect(recorder.calls(of: gated) == ["complete -999"])
    }

    @Test func swiftTaskCancellationCancelsTheRequest() async throws {
        let mock = HTTPMock()
        // Due long after the test ends: only the cancellation can end this request.
        mock.addResponses(forPath: "/slow", host: "a.test") { MockResponse.plaintext("late", delivery: .delayed(600)) }
        let request = Task { try await mock.fetch("https://a.test/slow", timeout: 3600) }
        try await waitUntil("the request reaching the mock") { mock.requests.count == 1 }
        request.cancel()
        let error = await urlError { _ = try await request.value }
        #expect(error?.code == .cancelled)
    }
}

/// Records what each task reports, to prove nothing arrives after cancellation.
final class CallbackRecorder: NSObject, URLSessionDataDelegate, Sendable {
    private let log = Locked<[Int: [String]]>([:])

    /// What `task` reported, in order.
    func calls(of task: URLSessionTask) -> [String] {
        log.withLock { $0[task.taskIdentifier] ?? [] }
    }

    private func append(_ call: String, for task: URLSessionTask) {
        log.withLock { $0[task.taskIdentifier, default: []].append(call) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        append("response", for: dataTask)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        append("data", for: dataTask)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        append(error.map { "complete \(($0 as NSError).code)" } ?? "complete", for: task)
    }
}

/// A request body the test holds back: the first `read` blocks until ``release()``, then
/// returns the whole body. ``isBeingRead`` says when a reader is waiting at the gate,
/// ``isDrained`` when it has the body.
final class GatedBodyStream: InputStream {
    // @unchecked Sendable: the mutable state is only touched under `state`'s lock, and
    // DispatchSemaphore is thread-safe.
    private struct State {
        var status: Stream.Status = .notOpen
        var isBeingRead = false
        var isDrained = false
    }

    private let body: Data
    private let state = Locked(State())
    private let gate = DispatchSemaphore(value: 0)
    private let released = Locked(false)

    init(_ body: Data) {
        self.body = body
        super.init(data: Data())
    }

    /// Whether a reader has reached the gate (or passed it).
    var isBeingRead: Bool { state.withLock { $0.isBeingRead } }

    /// Whether a reader has been handed the whole body.
    var isDrained: Bool { state.withLock { $0.isDrained } }

    /// Opens the gate; later calls do nothing.
    func release() {
        let first = released.withLock { wasReleased in
            defer { wasReleased = true }
            return !wasReleased
        }
        if first { gate.signal() }
    }

    override func open() { state.withLock { $0.status = .open } }
    override func close() { state.withLock { $0.status = .closed } }
    override var streamStatus: Stream.Status { state.withLock { $0.status } }
    override var hasBytesAvailable: Bool { state.withLock { !$0.isDrained } }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        let drained = state.withLock { state in
            state.isBeingRead = true
            return state.isDrained
        }
        guard !drained else { return 0 }
        gate.wait()
        let count = min(length, body.count)
        body.copyBytes(to: buffer, count: count)
        state.withLock { $0.isDrained = true }
        return count
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
