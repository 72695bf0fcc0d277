import AirlockBase
import Dispatch
import Foundation
import HTTPMock
import HTTPMockTesting
import HTTPTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Code under test that knows only `URLSession.shared`: nothing is injected into it.
struct GreetingClient {
    var base = "https://api.example.com"

    func greeting() async throws -> String {
        let (data, _) = try await URLSession.shared.boundedData(from: URL(string: base + "/greeting")!)
        return String(decoding: data, as: UTF8.self)
    }

    /// The same request from a completion handler, resumed on a thread of its own (a `DispatchQueue`
    /// callback, as an SDK makes), so nothing of the caller's task is there.
    func greetingFromADispatchQueue() async throws -> String {
        let url = URL(string: base + "/greeting")!
        return try await withTimeout("GET \(url) from a DispatchQueue") {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    URLSession.shared.dataTask(with: url) { data, _, error in
                        if let error { return continuation.resume(throwing: error) }
                        continuation.resume(returning: String(decoding: data ?? Data(), as: UTF8.self))
                    }.resume()
                }
            }
        }
    }
}

/// `@Test(.httpMock)`: fifty tests running at once, each queuing its own answers for the same URL
/// and calling code that only knows `URLSession.shared` (also from child tasks): each gets its own.
struct ParallelSharedSessionTests {
    @Test(.httpMock, arguments: 0..<50) func eachTestGetsItsOwnAnswers(_ number: Int) async throws {
        let mock = try #require(HTTPMock.current)
        mock.addResponses(forPath: "/greeting", host: "api.example.com") {
            MockResponse.plaintext("first of \(number)")
            MockResponse.plaintext("second of \(number)")
            MockResponse.plaintext("third of \(number)")
            MockResponse.plaintext("fourth of \(number)")
        }
        let client = GreetingClient()
        let first = try await client.greeting()
        await Task.yield()
        // Two child tasks at once (async let), then an unstructured Task started inside the test.
        async let second = client.greeting()
        async let third = client.greeting()
        let children = try await [second, third].sorted()
        let fourth = try await Task { try await client.greeting() }.value
        #expect(first == "first of \(number)")
        #expect(children == ["second of \(number)", "third of \(number)"])
        #expect(fourth == "fourth of \(number)")
        #expect(mock.requests.count == 4)
        #expect(mock.unusedStubs.isEmpty)
    }
}

/// `intercepting`: its reach, and where it ends.
@Suite struct InterceptingTests {
    @Test func answersURLSessionSharedForTheScopeOnly() async throws {
        try await LoopbackServer.with { network in
            let client = GreetingClient(base: "http://127.0.0.1:\(network.port)")
            let mock = HTTPMock()
            mock.addResponses(forPath: "/greeting", host: "127.0.0.1", responses: [.plaintext("from the mock", lifetime: .eternal)])
            #expect(HTTPMock.current == nil)
            let inside = try await mock.intercepting {
                #expect(HTTPMock.current === mock)
                return try await client.greeting()
            }
            #expect(inside == "from the mock")
            // Outside every scope the request goes where it would without Airlock: the network.
            #expect(try await client.greeting() == "real GET /greeting")
            #expect(HTTPMock.current == nil)
            #expect(mock.requests.count == 1)
            #expect(network.requestCount == 1)
        }
    }

    @Test func scopesNestAndTheInnermostAnswers() async throws {
        let outer = HTTPMock()
        let inner = HTTPMock()
        outer.addResponses(forPath: "/greeting", host: "api.example.com", responses: [.plaintext("outer", lifetime: .eternal)])
        inner.addResponses(forPath: "/greeting", host: "api.example.com", responses: [.plaintext("inner", lifetime: .eternal)])
        let client = GreetingClient()
        let answers = try await outer.intercepting {
            let before = try await client.greeting()
            let nested = try await inner.intercepting {
                #expect(HTTPMock.current === inner)
                return try await client.greeting()
            }
            #expect(HTTPMock.current === outer)
            let after = try await client.greeting()
            return [before, nested, after]
        }
        #expect(answers == ["outer", "inner", "outer"])
        #expect(outer.requests.count == 2)
        #expect(inner.requests.count == 1)
    }

    /// A `Task.detached` and a `DispatchQueue` callback leave the test's task tree: the scope's
    /// mock does not answer them (nor does any other test's); they go where they would without
    /// Airlock, here a loopback server standing in for the network.
    @Test func requestsThatLeaveTheTaskTreeAreNotAnsweredByTheScope() async throws {
        try await LoopbackServer.with { network in
            let client = GreetingClient(base: "http://127.0.0.1:\(network.port)")
            let mock = HTTPMock()
            mock.addResponses(forPath: "/greeting", host: "127.0.0.1", responses: [.plaintext("from the mock", lifetime: .eternal)])
            let (detached, dispatched, own) = try await mock.intercepting {
                let detached = try await Task.detached { try await client.greeting() }.value
                let dispatched = try await client.greetingFromADispatchQueue()
                return (detached, dispatched, try await client.greeting())
            }
            #expect(detached == "real GET /greeting")
            #expect(dispatched == "real GET /greeting")
            #expect(own == "from the mock")
            #expect(mock.requests.count == 1)
            #expect(network.requestCount == 2)
        }
    }

    /// A `Task` started inside the scope that sends its request after the scope has ended is not
    /// answered by it: leaving the scope ends its reach. The task waits for a gate the test opens
    /// once `intercepting` has returned.
    @Test func leavingTheScopeEndsItsReach() async throws {
        try await LoopbackServer.with { network in
            let client = GreetingClient(base: "http://127.0.0.1:\(network.port)")
            let mock = HTTPMock()
            mock.addResponses(forPath: "/greeting", host: "127.0.0.1", responses: [.plaintext("from the mock", lifetime: .eternal)])
            let gate = AsyncStream<Void>.makeStream()
            let late = try mock.intercepting {
                Task {
                    for await _ in gate.stream { break }
                    #expect(HTTPMock.current == nil)
                    return try await client.greeting()
                }
            }
            gate.continuation.yield()
            #expect(try await late.value == "real GET /greeting")
            #expect(mock.requests.isEmpty)
        }
    }

    /// The synchronous form, around code that resumes a task and waits for it.
    @Test func theSynchronousForm() throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/greeting", host: "api.example.com", responses: [.plaintext("sync")])
        let text = try mock.intercepting { () throws -> String in
            let done = DispatchSemaphore(value: 0)
            let received = Locked<String?>(nil)
            URLSession.shared.dataTask(with: URL(string: "https://api.example.com/greeting")!) { data, _, _ in
                received.withLock { $0 = data.map { String(decoding: $0, as: UTF8.self) } }
                done.signal()
            }.resume()
            done.wait()
            return try #require(received.withLock { $0 })
        }
        #expect(text == "sync")
    }

    /// The policy, the journal and verification work as with an injected session.
    @Test func policyAndJournalAreTheMocksOwn() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .mock(.plaintext("policy answer", status: .other(503)))
        let (data, response) = try await mock.intercepting {
            try await URLSession.shared.boundedData(from: URL(string: "https://api.example.com/unmocked")!)
        }
        #expect((response as? HTTPURLResponse)?.statusCode == 503)
        #expect(String(decoding: data, as: UTF8.self) == "policy answer")
        #expect(mock.requests.map(\.url) == ["https://api.example.com/unmocked"])
    }

    /// A client that takes the body in pieces (a data delegate) through `URLSession.shared`.
    @Test func aDataDelegateGetsTheMockedBody() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/greeting", host: "api.example.com", responses: [.plaintext("to a delegate")])
        let delegate = CollectingDelegate()
        let data = try await mock.intercepting {
            try await withTimeout("data(for:delegate:)") {
                try await URLSession.shared.data(for: URLRequest(url: URL(string: "https://api.example.com/greeting")!), delegate: delegate).0
            }
        }
        #expect(String(decoding: data, as: UTF8.self) == "to a delegate")
    }
}

/// What Airlock relies on in swift-corelibs-foundation to reach `URLSession.shared` per task. If a
/// toolchain changes it, this fails first and says which part moved.
@Suite struct SharedSessionSeamTests {
    @Test func theSharedSessionHandsOutItsOwnConfiguration() {
        #expect(
            URLSession.shared.configuration === URLSession.shared.configuration,
            "URLSession.shared.configuration is now a copy: Airlock's interception cannot reach the shared session"
        )
    }

    /// The URL cache stays the one the shared session had: a response stored through the shared
    /// session's configuration lands in `URLCache.shared`, and its capacities read through.
    @Test func theSharedSessionKeepsItsCaching() async throws {
        let mock = HTTPMock()
        try mock.intercepting {}
        let cache = try #require(URLSession.shared.configuration.urlCache)
        #expect(cache.memoryCapacity == URLCache.shared.memoryCapacity)
        #expect(cache.diskCapacity == URLCache.shared.diskCapacity)
        let request = URLRequest(url: URL(string: "https://cache.airlock.test/\(UUID().uuidString)")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=600"])!
        cache.storeCachedResponse(CachedURLResponse(response: response, data: Data("kept".utf8)), for: request)
        #expect(URLCache.shared.cachedResponse(for: request).map { String(decoding: $0.data, as: UTF8.self) } == "kept")
        URLCache.shared.removeCachedResponse(for: request)
    }
}

/// Collects a data delegate's pieces.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let pieces = Locked<[Data]>([])

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pieces.withLock { $0.append(data) }
    }
}
