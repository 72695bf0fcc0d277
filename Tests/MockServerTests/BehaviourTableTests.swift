import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPMockTesting
import MockServer
import NIOCore
import NIOHTTP1
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One table of behaviours, each run through both transports — a real `URLSession` answered
/// in-process, and a real socket (AsyncHTTPClient through `MockServer` as its proxy) — from the
/// same mock, so that a drift between the two fails a test (the hummingbird `.router`/`.live`
/// idea).
struct BehaviourTableTests {
    /// How a test reaches the mock.
    enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case urlSession
        case socket

        var testDescription: String { rawValue }
    }

    /// What a client saw: a response, or a failure (an error, a reset or closed connection).
    enum Seen: Sendable, CustomStringConvertible {
        case response(status: Int, body: String)
        case failure(String)

        var description: String {
            switch self {
            case .response(let status, let body): "\(status) \(body.prefix(80).debugDescription)"
            case .failure(let text): "failure \(text.prefix(120).debugDescription)"
            }
        }
    }

    /// What a row expects of one request.
    enum Expect: Sendable {
        case body(Int, String)
        case containing(Int, String)
        /// Fails: an error through URLSession, a broken connection or a 5xx naming the problem on the socket.
        case failure(containing: String?)

        func accepts(_ seen: Seen) -> Bool {
            switch (self, seen) {
            case (.body(let status, let body), .response(let seenStatus, let seenBody)):
                return status == seenStatus && body == seenBody
            case (.containing(let status, let fragment), .response(let seenStatus, let seenBody)):
                return status == seenStatus && seenBody.contains(fragment)
            case (.failure(let fragment), .failure(let text)):
                return fragment.map { text.contains($0) } ?? true
            case (.failure(let fragment?), .response(let status, let body)):
                // A socket cannot carry an error: the server answers 500 with the message.
                return status >= 500 && body.contains(fragment)
            default:
                return false
            }
        }
    }

    /// A request of a row.
    struct Call: Sendable {
        var method = "GET"
        var path: String
        var body: String?
        var expect: Expect
    }

    /// A behaviour: stubs, then calls with what each must see, then checks on the mock.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let setup: @Sendable (HTTPMock) -> Void
        let calls: [Call]
        var check: @Sendable (HTTPMock) -> Void = { _ in }

        var testDescription: String { name }
    }

    static let host = "api.example.com"

    static let rows: [Row] = [
        Row(
            name: "queued responses are served in order, then 404",
            setup: { $0.addResponses(forPath: "/users", host: host) { MockResponse.plaintext("first"); MockResponse.plaintext("second") } },
            calls: [
                Call(path: "/users", expect: .body(200, "first")),
                Call(path: "/users", expect: .body(200, "second")),
                Call(path: "/users", expect: .containing(404, "Airlock: no stub for GET http://api.example.com/users")),
            ]
        ),
        Row(
            name: "lifetimes: multiple(2) then the next response; eternal forever",
            setup: {
                $0.addResponses(forPath: "/x", host: host) {
                    MockResponse.plaintext("twice", lifetime: .multiple(2))
                    MockResponse.plaintext("forever", lifetime: .eternal)
                }
            },
            calls: [
                Call(path: "/x", expect: .body(200, "twice")),
                Call(path: "/x", expect: .body(200, "twice")),
                Call(path: "/x", expect: .body(200, "forever")),
                Call(path: "/x", expect: .body(200, "forever")),
            ]
        ),
        Row(
            name: "a delayed response arrives, no sooner than its delay",
            setup: { $0.addResponses(forPath: "/slow", host: host) { MockResponse.plaintext("late", delivery: .delayed(0.3)) } },
            calls: [Call(path: "/slow", expect: .body(200, "late"))],
            check: { mock in
                #expect((mock.requests.first?.response?.duration ?? 0) >= 0.3)
            }
        ),
        Row(
            name: "a dribbled body arrives whole",
            setup: { $0.addResponses(forPath: "/drip", host: host) { MockResponse.plaintext("abcdefghij").dribbled(inChunks: 5, over: 0.2) } },
            calls: [Call(path: "/drip", expect: .body(200, "abcdefghij"))]
        ),
        Row(
            name: "a connection-reset fault fails the request",
            setup: { $0.addResponses(forPath: "/flaky", host: host) { MockResponse.fault(.connectionReset); MockResponse.plaintext("ok") } },
            calls: [Call(path: "/flaky", expect: .failure(containing: nil)), Call(path: "/flaky", expect: .body(200, "ok"))],
            check: { mock in
                #expect(mock.requests.first?.response?.outcome == .fault(.connectionReset))
            }
        ),
        Row(
            name: "an empty-response fault fails the request",
            setup: { $0.addResponses(forPath: "/empty", host: host) { MockResponse.fault(.emptyResponse) } },
            calls: [Call(path: "/empty", expect: .failure(containing: nil))]
        ),
        Row(
            name: "an error response fails the request (a reset on a socket)",
            setup: { $0.addResponses(forPath: "/error", host: host) { MockResponse.error(URLError(.timedOut)) } },
            calls: [Call(path: "/error", expect: .failure(containing: nil))]
        ),
        Row(
            name: "the .mock policy answers unmatched requests",
            setup: { $0.unmockedPolicy = .mock(.plaintext("down for maintenance", status: .other(503))) },
            calls: [
                Call(path: "/anything", expect: .body(503, "down for maintenance")),
                Call(path: "/else", expect: .body(503, "down for maintenance")),
            ],
            check: { mock in
                #expect(mock.unmatchedRequests.count == 2)
            }
        ),
        Row(
            name: "a cassette that only replays fails a request it has no entry for, whatever the policy",
            setup: { mock in
                mock.unmockedPolicy = .mock(.plaintext("a plausible answer"))
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-absent-\(UUID().uuidString).har")
                do {
                    mock.insert(try Cassette(contentsOf: file, mode: .none, environment: [:]))
                } catch {
                    Issue.record("\(error)")
                }
            },
            calls: [Call(path: "/users", expect: .failure(containing: "mode \"none\" does not record. To record it:"))],
            check: { mock in
                #expect(mock.cassette?.misses.map(\.request.url) == ["http://\(host)/users"])
                #expect(mock.unmatchedRequests.count == 1)
            }
        ),
        Row(
            name: "a redirect is followed to the next stub and both hops are journaled",
            setup: {
                $0.addResponses(forPath: "/old", host: host) { MockResponse.redirect(to: "/new") }
                $0.addResponses(forPath: "/new", host: host) { MockResponse.plaintext("moved here") }
            },
            calls: [Call(path: "/old", expect: .body(200, "moved here"))],
            check: { mock in
                #expect(mock.requests.map(\.path) == ["/old", "/new"])
                #expect(mock.requests.first?.response?.status == 302)
            }
        ),
        Row(
            name: "the journal keeps the body and verification counts it",
            setup: { $0.addResponses(forPath: "/users", host: host, requiring: .post) { MockResponse.empty(status: .created) } },
            calls: [
                Call(method: "POST", path: "/users", body: #"{"name":"Alice"}"#, expect: .body(201, "")),
                Call(method: "GET", path: "/users", expect: .containing(404, "no stub for GET")),
            ],
            check: { mock in
                #expect(mock.requests.first?.bodyText == #"{"name":"Alice"}"#)
                #expect(mock.requests.first?.response?.status == 201)
                #expect(mock.verify(.post && .path("/users") && .json(#"{"name": "Alice"}"#), .exactly(1)))
                #expect(mock.unusedStubs.isEmpty)
            }
        ),
        Row(
            name: "query constraints match only requests that carry them",
            setup: { $0.addResponses(forPath: "/search", host: host, queryItems: ["q": "swift"]) { MockResponse.plaintext("found", lifetime: .eternal) } },
            calls: [
                Call(path: "/search?q=swift", expect: .body(200, "found")),
                Call(path: "/search?q=rust", expect: .containing(404, "query q=rust vs swift")),
            ]
        ),
        Row(
            name: "a missing response file fails naming the file",
            setup: { $0.addResponses(forPath: "/file", host: host) { MockResponse.file(url: URL(fileURLWithPath: "/nonexistent/airlock-fixture.json")) } },
            calls: [Call(path: "/file", expect: .failure(containing: "/nonexistent/airlock-fixture.json"))],
            check: { mock in
                guard case .failure(.fileMissing(let path, _, _))? = mock.requests.first?.response?.outcome else {
                    Issue.record("the journal should record the missing file: \(String(describing: mock.requests.first?.response?.outcome))")
                    return
                }
                #expect(path == "/nonexistent/airlock-fixture.json")
            }
        ),
    ]

    @Test(arguments: rows, Transport.allCases)
    func behavesTheSameThroughEveryTransport(_ row: Row, _ transport: Transport) async throws {
        let mock = HTTPMock()
        row.setup(mock)
        switch transport {
        case .urlSession:
            for call in row.calls {
                let seen = await Self.fetchInProcess(call, from: mock)
                #expect(call.expect.accepts(seen), "\(call.method) \(call.path) saw \(seen)")
            }
        case .socket:
            try await withServer(mock) { server in
                try await withClient(proxyPort: server.port) { client in
                    for call in row.calls {
                        let seen = await Self.fetchOverSocket(call, with: client)
                        #expect(call.expect.accepts(seen), "\(call.method) \(call.path) saw \(seen)")
                    }
                }
            }
        }
        row.check(mock)
    }

    private static func fetchInProcess(_ call: Call, from mock: HTTPMock) async -> Seen {
        var request = URLRequest(url: URL(string: "http://\(host)\(call.path)")!)
        request.httpMethod = call.method
        request.httpBody = call.body.map { Data($0.utf8) }
        do {
            let (data, response) = try await mock.urlSession.data(for: request)
            return .response(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: String(decoding: data, as: UTF8.self))
        } catch {
            return .failure(error.localizedDescription)
        }
    }

    private static func fetchOverSocket(_ call: Call, with client: HTTPClient) async -> Seen {
        do {
            let response = try await send(client, "http://\(host)\(call.path)", method: HTTPMethod(rawValue: call.method), body: call.body)
            return .response(status: response.status, body: response.text)
        } catch {
            return .failure("\(error)")
        }
    }
}
