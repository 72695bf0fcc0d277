import Foundation
import HTTPMock
import HTTPMockTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The Swift samples of HTTPMock's articles and of the README, verbatim (CodeBlockTests checks that
// every sample appears in these files). They are compiled by `swift build --build-tests`, not run.

// GettingStarted.md: the same, imperatively or with the DSL.
func equivalentRegistrations() {
    HTTPMock.shared.addResponses(
        forPath: "/user",
        host: "api.example.com",
        responses: [.encodable(User(id: 1, name: "Alice")), .empty(status: .notFound)]
    )

    HTTPMock.shared.registerResponses {
        Host("api.example.com") {
            Path("/user") {
                MockResponse.encodable(User(id: 1, name: "Alice"))
                MockResponse.empty(status: .notFound)
            }
        }
    }
}

// GettingStarted.md: the shared mock.
func resettingTheSharedMock() {
    HTTPMock.shared.clearQueues()                        // remove all queued responses and registrations
    HTTPMock.shared.clearQueue(forHost: "domain.com")    // remove everything registered for one host
}

// GettingStarted.md: a session with a delegate.
func sessionWithADelegate(mock: HTTPMock, myDelegate: any URLSessionDelegate) {
    let session = mock.makeURLSession(configuration: .default, delegate: myDelegate)
    _ = session
}

// HTTPMock.md.
func landingPage() async throws {
    let mock = HTTPMock()
    mock.addResponses(forPath: "/user", host: "api.example.com") {
        MockResponse.encodable(User(id: 1, name: "Alice"))
    }
    let (data, _) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/user")!)
    _ = data
}

// Responses.md: factories.
@MockResponseBuilder
func factories(value: User, bytes: Data, urlToFile: URL) -> [MockResponse] {
    MockResponse.encodable(value, status: .ok, headers: [:])          // JSON, application/json
    MockResponse.dictionary(["error": "nope"], status: .badRequest)   // JSON, application/json
    MockResponse.plaintext("hello", status: .ok)                      // text/plain
    MockResponse.empty(status: .noContent)                            // no body, no Content-Type
    MockResponse.file(named: "user", extension: "json", in: Bundle.module)
    MockResponse.file(url: urlToFile)
    MockResponse(data: bytes, contentType: "application/octet-stream")
}

// Responses.md: lifetimes.
@MockResponseBuilder
func lifetimes() -> [MockResponse] {
    MockResponse.plaintext("served once", lifetime: .single)          // the default
    MockResponse.plaintext("served three times", lifetime: .multiple(3))
    MockResponse.plaintext("served forever", lifetime: .eternal)
}

// Responses.md: delivery.
@MockResponseBuilder
func deliveries() -> [MockResponse] {
    MockResponse.plaintext("immediate response", delivery: .instant)  // the default
    MockResponse.plaintext("delayed response", delivery: .delayed(2.0))
}

// Responses.md: a delay that reaches the request's timeout.
func delayPastTheTimeout(mock: HTTPMock) async throws {
    var request = URLRequest(url: URL(string: "https://api.example.com/slow")!)
    request.timeoutInterval = 2
    // Stubbed with MockResponse.plaintext("late", delivery: .delayed(3)): throws URLError(.timedOut) after 2 s.
    _ = try await mock.urlSession.data(for: request)
}

// Responses.md: headers, with optional cascade.
func cascadingHeaders(profile: Profile, audit: Audit) {
    HTTPMock.shared.registerResponses {
        Host("api.example.com") {
            Headers(["X-Env": "Test"], cascade: true)   // cascades to all child paths

            Path("/profile") {
                MockResponse.encodable(profile)         // inherits X-Env: Test
            }

            Path("/admin") {
                Headers(["X-Env": "AdminOnly"], cascade: false)
                MockResponse.empty(status: .unauthorized)   // X-Env: AdminOnly applies only here

                Path("/audit") {
                    MockResponse.encodable(audit)       // X-Env: Test — does NOT inherit AdminOnly
                }
            }
        }
    }
}

// Responses.md: errors and redirects.
@MockResponseBuilder
func errorsAndRedirects() -> [MockResponse] {
    MockResponse.error(URLError(.timedOut))                     // the request fails with this error
    MockResponse.error(URLError(.notConnectedToInternet), delivery: .delayed(0.5))
    MockResponse.error(MyServiceError.maintenance)              // any Error
    MockResponse.redirect(to: "/new")                           // 302 + Location; the session follows it
    MockResponse.redirect(to: "https://b.example.com/x", status: .other(303))
}

// Responses.md: unmocked policies.
func unmockedPolicies(mock: HTTPMock) {
    mock.unmockedPolicy = .notFound      // default: 404, text/plain, names the request and how to stub it
    mock.unmockedPolicy = .mock(.plaintext("Service temporarily unavailable", status: .other(503)))
    mock.unmockedPolicy = .passthrough   // send it to the network through mock.passthroughSession
    mock.unmockedPolicy = .fatalError    // stop the process, naming the request
}

// Responses.md: a passthrough session of your own.
func ownPassthroughSession() {
    let config = URLSessionConfiguration.default
    config.timeoutIntervalForRequest = 10
    let mock = HTTPMock(passthroughSession: URLSession(configuration: config))
    mock.unmockedPolicy = .passthrough
}

// Responses.md: a webhook.
func sendingAWebhook(mock: HTTPMock) {
    mock.addResponses(forPath: "/payments", host: "api.example.com") {
        MockResponse.empty(status: .accepted)
            .webhook(Webhook(
                method: "POST",
                url: "http://127.0.0.1:9090/payments/settled",
                headers: ["Content-Type": "application/json"],
                body: #"{"state":"settled"}"#,
                delay: .uniform(lower: 0.1, upper: 0.5)
            ))
    }
}

// Responses.md: the webhook policy.
func allowingWebhookHosts(mock: HTTPMock) {
    mock.webhookPolicy = WebhookPolicy(allowedHosts: ["hooks.internal.example"])
}

// ComputedResponsesAndScenarios.md: computed responses.
func computedResponses(mock: HTTPMock) {
    mock.addResponses(forPath: "/users/*", host: "api.example.com") {
        MockResponse.computed(lifetime: .eternal) { request in
            .dictionary(["id": Int(request.pathSegments[1]) ?? 0, "trace": request.header("X-Request-Id") ?? ""])
        }
    }
    mock.addResponses(forPath: "/orders", host: "api.example.com", requiring: .post) {
        MockResponse.computed { request in
            let order = try request.decodeJSON(Order.self)       // throws → the request fails, naming the stub
            return .encodable(Receipt(items: order.items.count), status: .created)
        }
    }
    mock.unmockedPolicy = .mock(.computed { request in .plaintext("no stub for \(request.path)", status: .notFound) })
}

// ComputedResponsesAndScenarios.md: scenarios.
func scenarios(mock: HTTPMock) {
    mock.registerResponses {
        Host("shop.example.com") {
            Path("/cart", requiring: .get, scenario: ScenarioStep("cart", when: ScenarioStep.started)) {
                MockResponse.plaintext(#"{"items":[]}"#, lifetime: .eternal)
            }
            Path("/cart", requiring: .post, scenario: ScenarioStep("cart", when: ScenarioStep.started, then: "item added")) {
                MockResponse.empty(status: .created, lifetime: .eternal)
            }
            Path("/cart", requiring: .get, scenario: ScenarioStep("cart", when: "item added")) {
                MockResponse.plaintext(#"{"items":["book"]}"#, lifetime: .eternal)
            }
        }
    }
    #expect(mock.scenarioState("cart") == "Started")
    mock.setScenario("cart", to: "item added") // set up a test in the middle of a flow
    mock.resetScenarios()                      // clearQueues() resets them too
}

// Matching.md: query parameters.
@HostBuilder
func queryParameters() -> [HostElement] {
    // Exact: only these parameters are accepted.
    Path("/search", query: ["q": "swift", "page": "1"], matching: .exact) {
        MockResponse.plaintext("ok-exact")
    }

    // Contains: these must be present; others are ignored.
    Path("/search", query: ["q": "swift"], matching: .contains) {
        MockResponse.plaintext("ok-contains")
    }

    // Repeated keys are lists, never collapsed: this matches ?id=1&id=2 (in either order),
    // and not ?id=2 alone.
    Path("/items", query: ["id": ["1", "2"]]) {
        MockResponse.plaintext("two items")
    }
}

// Matching.md: which stub wins.
@HostBuilder
func specificThenFallback() -> [HostElement] {
    Path("/users/1") { MockResponse.plaintext("specific") }                      // first request
    Path("/users/*") { MockResponse.plaintext("fallback", lifetime: .eternal) }  // every later one
}

// Matching.md: request matchers.
func requestMatchers(matcherA: RequestMatcher, matcherB: RequestMatcher) {
    let matchers: [RequestMatcher] = [
        .method("PATCH"), .get, .post, .put, .patch, .delete, .head,
        .host("*.example.com"), .path("/users/*"),             // the stub wildcard rules
        .query(["page": "2"]), .query(["id": ["1", "2"]], matching: .exact),
        .header("Authorization"), .header("Accept", "application/json"),
        .body(Data([0x01, 0x02])), .body("exact text"), .bodyContains("needle"),
        .json(#"{"name": "Alice"}"#),                          // equal ignoring key order and white space
        .json(NewUser(name: "Alice")), .json(["name": "Alice"]),
        .decodable(NewUser.self) { $0.age >= 18 },             // decodes, then your predicate
        .form(["user": "alice"]),                              // application/x-www-form-urlencoded fields
        RequestMatcher("has a trace id") { $0.header("X-Trace-Id") != nil },  // your own validator
        matcherA && matcherB, matcherA || matcherB, !matcherA,
    ]
    _ = matchers
}

// Matching.md: stubs that require a matcher.
func stubsWithRequirements(mock: HTTPMock) {
    mock.addResponses(forPath: "/users", host: "api.example.com", requiring: .post && .json(#"{"name":"Alice"}"#)) {
        MockResponse.empty(status: .created)
    }
    mock.registerResponses {
        Host("api.example.com") {
            Path("/users") { MockResponse.plaintext("list", lifetime: .eternal) }
            Path("/users", requiring: .post) { MockResponse.empty(status: .created) }
        }
    }
}

// RequestJournal.md: the journal.
func readingTheJournal(mock: HTTPMock) throws {
    let request = try #require(mock.requests.last)
    #expect(request.method == "POST")
    #expect(request.url == "https://api.example.com/users")
    #expect(request.header("Content-Type") == "application/json")
    #expect(request.body == Data(#"{"name":"Alice"}"#.utf8))    // the complete body
    #expect(request.bodyText == #"{"name":"Alice"}"#)           // … as UTF-8
    #expect(request.stub == #"host "api.example.com", path "/users""#)  // the stub that answered, or nil
    #expect(request.response?.status == 201)  // status, headers, body and duration of what was delivered
    #expect(mock.requests(matching: .post && .path("/users")).count == 1)
    #expect(mock.unmatchedRequests.isEmpty)
    mock.clearRequests()
}

// RequestJournal.md: journal capacity.
func journalCapacity(mock: HTTPMock) {
    mock.journalCapacity = .off                                  // count only
    mock.journalCapacity = JournalCapacity(entries: 1_000, bytes: 8 << 20, bodyBytes: 64 << 10)
}

// RequestJournal.md: redaction.
func redaction(mock: HTTPMock) {
    mock.redaction.jsonFields.insert("pin")
    mock.redaction.responseFields.insert("session_key")   // a response field that is a credential
    mock.redaction.queryItemNames.remove("code")           // an API whose `code` is no secret
    mock.redaction.queryItemNames.insert("session")
    mock.redaction.headerNames.insert("x-tenant-secret")
    mock.redaction = .none     // show everything
}

// RequestJournal.md: HAR export.
func harExport(mock: HTTPMock) throws {
    try mock.exportHAR().write(to: URL(fileURLWithPath: "failing-test.har"))
}

// Recording.md: matching options.
func cassetteMatching() {
    let matching = Cassette.Matching(
        ignoredQueryItems: ["cacheBuster"],
        ignoredJSONKeys: ["timestamp", "nonce"],   // at any depth
        headers: ["X-Tenant"]                      // must match too
    )
    let loose = Cassette.Matching(custom: { recorded in .method(recorded.method) })  // your own RequestMatcher
    _ = (matching, loose)
}

// HTTPMockTesting.md.
func verificationLandingPage(mock: HTTPMock) {
    mock.verify(.post && .path("/users"), .exactly(1))
    mock.verifyAllStubsUsed()
    mock.verifyNoUnmatchedRequests()
}


// Recording.md: what a recording keeps and hides. Run, not only compiled: the sample's
// expectations are the output the article states.
struct RecordingArticleSample {
    @Test func recordsTheServiceAsItAnsweredLessTheSecrets() async throws {
        // A stand-in for the real service, reached through the recorder's passthrough session.
        let service = HTTPMock()
        service.addResponses(forPath: "/me", host: "api.example.com") {
            MockResponse.plaintext(
                #"{"name": "Alice",  "access_token": "tok_live_123", "updated_date": "2026-11-24", "code": 7}"#,
                headers: ["Content-Type": "application/json", "Set-Cookie": "sid=abc123; Path=/; HttpOnly"]
            )
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("me-\(UUID()).har")
        defer { try? FileManager.default.removeItem(at: file) }
        // `environment: [:]`: this sample records even where CI is set.
        let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
        let recorder = HTTPMock(cassette: cassette, passthroughSession: service.urlSession)
        var request = URLRequest(url: URL(string: "https://api.example.com/me?key=date")!)
        request.setValue("Bearer tok_live_123", forHTTPHeaderField: "Authorization")
        _ = try await recorder.urlSession.data(for: request)
        try cassette.save()

        let entry = try #require(cassette.entries.first)
        let recorded = try #require(entry.response)
        // The body as the service sent it — spacing, key order, `code` — less the credential.
        #expect(String(decoding: recorded.body, as: UTF8.self)
            == #"{"name": "Alice",  "access_token": "[REDACTED]", "updated_date": "2026-11-24", "code": 7}"#)
        #expect(recorded.headers["Set-Cookie"] == "sid=[REDACTED]; Path=/; HttpOnly")
        #expect(entry.url == "https://api.example.com/me?key=%5BREDACTED%5D")
        #expect(entry.header("Authorization") == "[REDACTED]")
    }

    func namedPlaceholderSample() -> Redaction {
        var redaction = Redaction.standard
        redaction.filter(ProcessInfo.processInfo.environment["ACCOUNT_ID"] ?? "", as: "<ACCOUNT_ID>")
        return redaction
    }

    func beforeRecordSample(url: URL) throws {
        let cassette = try Cassette(contentsOf: url, mode: .once) { exchange in
            exchange.path == "/health" ? nil : exchange
        }
        _ = cassette
    }
}

// AirlockStubFiles.md and AirlockCassettes.md: the formats' landing pages.
func stubFileLandingPage(mock: HTTPMock) throws {
    try mock.registerStubs(StubFile(contentsOf: URL(fileURLWithPath: "Fixtures/stubs.json")))
}

func cassetteLandingPage() throws {
    let cassette = try Cassette(contentsOf: URL(fileURLWithPath: "Fixtures/users.har"))
    let mock = HTTPMock(cassette: cassette)
    _ = mock
}

// Recording.md and Streaming.md: a recorded stream replayed at once. StreamingDocumentationTests
// runs it on Tests/Fixtures/Streams/chat.har.
func recordedStreamReplayedAtOnce(fixtures: URL) throws -> HTTPMock {
    let replay = try Cassette(contentsOf: fixtures.appendingPathComponent("chat.har"), mode: .none, pace: .instant)
    let mock = HTTPMock(cassette: replay)
    return mock
}

// Recording.md, "Expiry".
@Suite(.disabled("a documentation sample: compiled, not run"))
struct CassetteExpirySample {
    @Test(.cassette(maxAge: .days(30))) func listsUsers() async throws {
        let mock = try HTTPMock(cassette: .current())
        _ = mock
    }
}

// MockingCodeYouDontControl.md: any mock, around a block.
func interceptingABlock() async throws -> Data {
    let mock = HTTPMock()
    mock.addResponses(forPath: "/greeting", host: "api.example.com") { MockResponse.plaintext("hello") }
    let (data, _) = try await mock.intercepting {
        try await URLSession.shared.data(from: URL(string: "https://api.example.com/greeting")!)
    }
    return data
}
