import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stubs and requests a careless test or a fuzzer would write: each is refused with a named error
/// or answered, through a real `URLSession`; none crashes the process or leaves a request hanging.
struct HostileInputTests {
    // MARK: Durations

    @Test(arguments: [
        (MockResponse.plaintext("x", delivery: .delayed(1e10)), "the delay 10000000000.0 is longer than the limit of 86400 seconds"),
        (MockResponse.plaintext("x", delivery: .delayed(.infinity)), "the delay inf is not a finite"),
        (MockResponse.plaintext("x", delivery: .delayed(.nan)), "the delay nan is not a finite"),
        (MockResponse.plaintext("xy").dribbled(inChunks: 2, over: 1e10), "the dribble's duration 10000000000.0 is longer than the limit"),
        (MockResponse.plaintext("xy").dribbled(inChunks: 2, over: -.infinity), "the dribble's duration -inf is not a finite"),
        (MockResponse.plaintext("xy").dribbled(inChunks: 0, over: 1), "the dribble's 0 chunks are not between 1 and 100000"),
        (MockResponse.plaintext("xy").dribbled(inChunks: Int.max, over: 1), "chunks are not between 1 and 100000"),
    ])
    func aDurationBeyondTheLimitIsRejectedAndTheRequestIsAnswered(response: MockResponse, problem: String) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "a.test", responses: [response])
        let errors = mock.registrationErrors
        #expect(errors.count == 1)
        #expect(errors.first?.problem.contains(problem) == true, "\(errors)")
        #expect(errors.first?.description.contains(#"host "a.test", path "/slow""#) == true)
        // Before the limit, a delay of 1e10 s was accepted and the request never completed.
        let fetched = try await mock.fetch("https://a.test/slow")
        #expect(fetched.status == 404)
        #expect(fetched.text.contains(problem), "the 404 should say why the stub is missing: \(fetched.text)")
    }

    @Test func theLongestAllowedDelayIsAcceptedAndCancellingTheRequestEndsIt() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/day", host: "a.test") {
            MockResponse.plaintext("tomorrow", delivery: .delayed(ResponseLimits.maximumSeconds))
        }
        #expect(mock.registrationErrors.isEmpty)
        let task = Task { try await mock.urlSession.data(from: URL(string: "https://a.test/day")!) }
        try await waitUntil("the request reaches the mock") { mock.requests.count == 1 }
        task.cancel()
        await #expect(throws: (any Error).self) { _ = try await task.value }
    }

    @Test func aStubFileWithAHugeDelayOrDribbleNamesTheField() throws {
        for (response, location, problem) in [
            (#"{ "body": "x", "delay": 1e10 }"#, "stubs[0].responses[0].delay", "longer than the limit of 86400 seconds"),
            (#"{ "body": "x", "dribble": { "chunks": 2, "seconds": 1e300 } }"#, "stubs[0].responses[0].dribble", "the dribble's duration"),
            (#"{ "body": "x", "dribble": { "chunks": -3, "seconds": 1 } }"#, "stubs[0].responses[0].dribble", "-3 chunks"),
        ] {
            let json = #"{ "stubs": [ { "path": "/x", "responses": [ \#(response) ] } ] }"#
            let error = #expect(throws: StubFileError.self) {
                try StubFile(data: Data(json.utf8), source: "hostile.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
            }
            #expect(error?.description.contains("hostile.json") == true)
            #expect(error?.description.contains(location) == true, "\(error.map { "\($0)" } ?? "-")")
            #expect(error?.description.contains(problem) == true, "\(error.map { "\($0)" } ?? "-")")
        }
    }

    // MARK: Header injection

    @Test(arguments: [
        (["X-A": "b\r\nSet-Cookie: evil=1"], "the value of header \"X-A\" contains a carriage return (\\r)"),
        (["X-A": "b\nSet-Cookie: evil=1"], "contains a line feed (\\n)"),
        (["X-A": "b\u{0}c"], "contains a NUL byte"),
        (["Bad Name": "v"], "the header name \"Bad Name\" contains a space"),
        (["X:Y": "v"], "contains \":\""),
        (["": "v"], "a header name is empty"),
    ])
    func aHeaderThatWouldBreakTheResponseIsRejected(headers: [String: String], problem: String) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/h", host: "a.test") { MockResponse.plaintext("x", headers: headers) }
        #expect(mock.registrationErrors.first?.problem.contains(problem) == true, "\(mock.registrationErrors)")
        #expect(mock.registrationErrors.first?.fix.contains("without CR, LF, NUL") == true)
        let fetched = try await mock.fetch("https://a.test/h")
        #expect(fetched.status == 404)
        #expect(fetched.header("Set-Cookie") == nil)
    }

    @Test func aHeaderFromTheDSLIsCheckedToo() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Headers(["X-Trace": "1\r\nX-Injected: yes"], cascade: true)
                Path("/dsl") { MockResponse.plaintext("x") }
            }
        }
        #expect(mock.registrationErrors.first?.problem.contains("\"X-Trace\" contains a carriage return") == true, "\(mock.registrationErrors)")
        #expect(try await mock.fetch("https://a.test/dsl").status == 404)
    }

    @Test func aHARFileWhoseResponseHeaderWouldInjectAnotherIsRejected() async throws {
        // A HAR file is a stub source like any other: a hand-edited or hostile one is checked too.
        let har = #"{"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [{"#
            + #""startedDateTime": "2026-11-22T12:00:00.000Z", "time": 1, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}, "#
            + #""request": {"method": "GET", "url": "https://a.test/har", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [], "#
            + #""queryString": [], "headersSize": -1, "bodySize": 0}, "#
            + #""response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "#
            + #""headers": [{"name": "X-A", "value": "b\r\nSet-Cookie: evil=1"}], "#
            + #""content": {"size": 2, "mimeType": "text/plain", "text": "hi"}, "redirectURL": "", "headersSize": -1, "bodySize": 2}}]}}"#
        // Refused when read, naming the file and the field: no entry of it can be served.
        let error = #expect(throws: StubFileError.self) { try HTTPArchive(data: Data(har.utf8), source: "hostile.har") }
        #expect(error?.description.contains("hostile.har, log.entries[0].response.headers[0]") == true, "\(String(describing: error))")
        #expect(error?.description.contains(#"the value of header "X-A" contains a carriage return"#) == true)
    }

    @Test func aComputedResponseWithAnInjectedHeaderFailsNamingTheStub() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/echo", host: "a.test") {
            MockResponse.computed(lifetime: .eternal) { request in
                // Echoing a decoded query value into a header is how injection reaches a response.
                let value = request.queryItems.first { $0.name == "v" }?.value ?? ""
                return MockResponse.plaintext("echo", headers: ["X-Echo": value])
            }
        }
        #expect(mock.registrationErrors.isEmpty)
        #expect(try await mock.fetch("https://a.test/echo?v=plain").header("X-Echo") == "plain")

        // A response that cannot be served fails the request, as an unreadable file does; a
        // socket answers 500 with the same message.
        let error = await urlError { _ = try await mock.fetch("https://a.test/echo?v=a%0D%0ASet-Cookie:%20evil=1") }
        #expect(error?.code == .cannotParseResponse)
        let message = error?.localizedDescription ?? ""
        #expect(message.contains(#"the response for host "a.test", path "/echo" cannot be served"#), "\(message)")
        #expect(message.contains(#"the value of header "X-Echo" contains a carriage return"#), "\(message)")
    }

    @Test func aComputedResponseWithAHugeDelayFailsInsteadOfHanging() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/late", host: "a.test") {
            MockResponse.computed { _ in MockResponse.plaintext("never", delivery: .delayed(1e12)) }
        }
        let error = await urlError { _ = try await mock.fetch("https://a.test/late") }
        #expect(error?.code == .cannotParseResponse)
        #expect(error?.localizedDescription.contains("the delay 1000000000000.0 is longer than the limit of 86400 seconds") == true, "\(error.map { "\($0)" } ?? "-")")
    }

    @Test func theUnmockedPolicysResponseIsCheckedWhenServed() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .mock(MockResponse.plaintext("fallback", headers: ["X-A": "1\r\n2"]))
        let error = await urlError { _ = try await mock.fetch("https://a.test/anything") }
        #expect(error?.localizedDescription.contains("the unmocked policy's response cannot be served") == true)
        #expect(error?.localizedDescription.contains(#"header "X-A" contains a carriage return"#) == true)
    }

    // MARK: Matching and registration cost

    @Test func manyDoubleStarsAgainstALongPathAreAnsweredAndOthersAreServedMeanwhile() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/**/a/**/a/**/a/z", host: "a.test") { MockResponse.plaintext("deep", lifetime: .eternal) }
        mock.addResponses(forPath: "/ping", host: "a.test") { MockResponse.plaintext("pong", lifetime: .eternal) }
        // 2,000 `a` segments: trying every split of them between the three `**` took minutes.
        let long = String(repeating: "/a", count: 2_000)
        async let miss = mock.fetch("https://a.test\(long)")
        async let hit = mock.fetch("https://a.test\(long)/z")
        async let ping = mock.fetch("https://a.test/ping")
        #expect(try await miss.status == 404)
        #expect(try await hit.text == "deep")
        #expect(try await ping.text == "pong")
    }

    @Test func registeringManyStubsOnOnePathCostsTheSameForEach() throws {
        // The cost per stub must not grow with the stubs already there: thirty times the stubs take
        // about thirty times as long (quadratic registration takes 900 times). The ratio, not a
        // duration, is checked, with room for a loaded machine's noise (a factor of five) on top
        // of the best of three runs.
        func seconds(registering count: Int) -> Double {
            (0..<3).map { _ in
                let mock = HTTPMock()
                let responses = (0..<count).map { MockResponse.plaintext("\($0)") }
                let queries = (0..<count).map { ["page": "\($0)"] }
                let clock = ContinuousClock()
                let elapsed = clock.measure {
                    // Half on one queue, half each on a query of its own: both used to rescan.
                    for (index, response) in responses.enumerated() {
                        if index % 2 == 0 {
                            mock.addResponses(forPath: "/same", host: "a.test", responses: [response])
                        } else {
                            mock.addResponses(forPath: "/same", host: "a.test", queryItems: queries[index], responses: [response])
                        }
                    }
                }
                #expect(mock.registrationErrors.isEmpty)
                return Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)
            }.min()!
        }
        let small = seconds(registering: 1_000)
        let large = seconds(registering: 30_000)
        #expect(large / small < 150, "registering 30× the stubs took \(large / small)× as long (\(small) s, \(large) s)")
    }
}
