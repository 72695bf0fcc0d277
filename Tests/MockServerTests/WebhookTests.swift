import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPTestSupport
import MockServer
import NIOHTTP1
import Testing

/// Webhooks (WireMock's `postServeActions` / `serveEventListeners`, stub files' `webhooks`, and
/// `MockResponse.webhook(_:)`) sent by a real server to a real receiving server on loopback.
///
/// The receiver is a second mock server whose unmocked policy answers everything: its journal
/// is what it received. No test asserts how long anything took at most — only the fixed delay as
/// a lower bound, and that a far-off webhook has not arrived when the response has.
struct WebhookTests {
    /// A receiver answering every request with `status`, its journal recording them.
    private func receiver(status: MockResponse.Status = .ok) -> HTTPMock {
        let receiver = HTTPMock()
        receiver.unmockedPolicy = .mock(.plaintext("received", status: status))
        return receiver
    }

    private func mappings(_ json: String) throws -> WireMockMappings {
        try WireMockMappings(data: Data(json.utf8), source: "webhook mapping", rootDirectory: FileManager.default.temporaryDirectory)
    }

    /// The journal entry of the first request `mock` got, once its webhooks have all ended.
    private func entryWithWebhooks(_ mock: HTTPMock, count: Int = 1) async throws -> RecordedRequest {
        try await waitUntil("the webhook's outcome is in the journal") { (mock.requests.first?.webhooks.count ?? 0) >= count }
        return try #require(mock.requests.first)
    }

    @Test func aWireMockWebhookIsSentAfterTheResponseTemplatedFromTheRequestAfterItsDelay() async throws {
        let receiver = receiver()
        try await withServer(receiver) { receiving in
            let mock = HTTPMock()
            mock.registerStubs(try mappings(#"""
                {"request": {"urlPath": "/orders", "method": "POST"},
                 "response": {"status": 202, "body": "accepted"},
                 "postServeActions": [{"name": "webhook", "parameters": {
                    "method": "{{originalRequest.headers.X-Callback-Method}}",
                    "url": "\#(receiving.baseURL.absoluteString)/callback/{{originalRequest.query.id}}",
                    "headers": {"Content-Type": "application/json", "X-Trace": ["{{originalRequest.headers.X-Trace}}", "second"]},
                    "body": "{\"tx\": \"{{jsonPath originalRequest.body '$.transactionId'}}\", \"was\": \"{{originalRequest.method}} {{originalRequest.path}}\"}",
                    "delay": {"type": "fixed", "milliseconds": 300}}}]}
                """#))
            try await withServer(mock) { server in
                try await withClient { client in
                    let answer = try await send(
                        client, "\(server.baseURL.absoluteString)/orders?id=42", method: .POST,
                        headers: [("X-Callback-Method", "PUT"), ("X-Trace", "t-1")], body: #"{"transactionId": "abc-123"}"#
                    )
                    #expect(answer.status == 202 && answer.text == "accepted")
                }
                let entry = try await entryWithWebhooks(mock)
                let webhook = try #require(entry.webhooks.first)
                #expect(webhook.outcome == .answered(status: 200) && webhook.succeeded)
                #expect(webhook.method == "PUT" && webhook.url == "\(receiving.baseURL.absoluteString)/callback/42")
                #expect(webhook.delay == 0.3)
                let received = try #require(receiver.requests.first)
                #expect(received.method == "PUT" && received.path == "/callback/42")
                #expect(received.headers.filter { $0.name == "X-Trace" }.map(\.value) == ["t-1", "second"])
                #expect(received.header("Content-Type") == "application/json")
                #expect(received.bodyText == #"{"tx": "abc-123", "was": "POST /orders"}"#)
                // The delay as a lower bound only: sent no sooner than 300 ms after the request.
                #expect(received.date.timeIntervalSince(entry.date) >= 0.3)
                #expect(webhook.date.timeIntervalSince(entry.date) >= 0.3)
            }
        }
    }

    @Test func aFarOffWebhookNeverDelaysTheResponse() async throws {
        let mock = HTTPMock()
        // WireMock 3's form; an hour: far beyond the response, on a loaded machine too (the
        // server cancels it when it stops). Sent, it would fail at once (nothing listens) and the
        // journal would say so.
        mock.registerStubs(try mappings(#"""
            {"request": {"url": "/slow-hook"}, "response": {"status": 200, "body": "at once"},
             "serveEventListeners": [{"name": "webhook", "parameters": {
                "method": "POST", "url": "http://127.0.0.1:\#(RefusingPort.forTheWholeRun)/late", "delay": {"type": "fixed", "milliseconds": 3600000}}}]}
            """#))
        try await withServer(mock) { server in
            try await withClient { client in
                let answer = try await send(client, "\(server.baseURL.absoluteString)/slow-hook")
                #expect(answer.status == 200 && answer.text == "at once")
            }
            #expect(mock.requests.first?.response?.status == 200)
            #expect(mock.requests.first?.webhooks.isEmpty == true)
        }
    }

    @Test func aServerThatShutsDownSendsNoWebhookStillWaitingAndSaysSo() async throws {
        let receiver = receiver()
        try await withServer(receiver) { receiving in
            let mock = HTTPMock()
            mock.addResponses(forPath: "/bye", host: "**") {
                MockResponse.plaintext("bye").webhook(Webhook(url: "\(receiving.baseURL.absoluteString)/never", delay: .fixed(seconds: 3_600)))
            }
            try await withServer(mock) { server in
                try await withClient { client in
                    let answer = try await send(client, "\(server.baseURL.absoluteString)/bye")
                    #expect(answer.text == "bye")
                }
            }
            // withServer has shut the server down, cancelling the webhook.
            let entry = try await entryWithWebhooks(mock)
            #expect(entry.webhooks.first?.outcome == .failed("not sent: the server stopped before its delay had passed"))
            #expect(receiver.requests.isEmpty)
        }
    }

    @Test func aReceiverThatIsDownOrAnswersAnErrorIsRecordedAndTheExchangeIsUntouched() async throws {
        let refusing = try RefusingPort()
        let failing = receiver(status: .internalServerError)
        try await withServer(failing) { receiving in
            let mock = HTTPMock()
            mock.addResponses(forPath: "/pay", host: "**") {
                MockResponse.plaintext("paid")
                    .webhook(Webhook(url: "http://127.0.0.1:\(refusing.port)/down", body: "one"))
                    .webhook(Webhook(method: "PATCH", url: "\(receiving.baseURL.absoluteString)/error", body: "two"))
            }
            try await withServer(mock) { server in
                try await withClient { client in
                    let answer = try await send(client, "\(server.baseURL.absoluteString)/pay")
                    #expect(answer.status == 200 && answer.text == "paid")
                }
                let entry = try await entryWithWebhooks(mock, count: 2)
                #expect(entry.response?.status == 200)
                let down = try #require(entry.webhooks.first { $0.url.hasSuffix("/down") })
                guard case .failed(let reason) = down.outcome else {
                    Issue.record("a receiver that is down is a failure: \(down.outcome)")
                    return
                }
                #expect(reason.contains("connect"), "\(reason)")
                #expect(!down.succeeded)
                let error = try #require(entry.webhooks.first { $0.url.hasSuffix("/error") })
                #expect(error.outcome == .answered(status: 500) && !error.succeeded && error.method == "PATCH")
                #expect(failing.requests.first?.bodyText == "two")
            }
        }
    }

    /// As WireMock does, a stub's webhooks go whatever it answers with: after a proxied answer
    /// has been relayed (and after a proxy that could not reach its target), and after a fault.
    @Test func aProxiedAnswerOrAFaultSendsTheStubsWebhooksToo() async throws {
        let receiver = receiver()
        let upstream = HTTPMock()
        upstream.unmockedPolicy = .mock(.plaintext("from upstream", status: .created))
        let refusing = try RefusingPort()
        try await withServer(receiver) { receiving in
            try await withServer(upstream) { real in
                let hook = #"[{"name": "webhook", "parameters": {"url": "\#(receiving.baseURL.absoluteString)/after{{originalRequest.path}}"}}]"#
                let mock = HTTPMock()
                mock.registerStubs(try mappings(#"""
                    {"mappings": [
                      {"request": {"urlPath": "/proxied"}, "response": {"proxyBaseUrl": "\#(real.baseURL.absoluteString)"}, "postServeActions": \#(hook)},
                      {"request": {"urlPath": "/unreachable"}, "response": {"proxyBaseUrl": "http://127.0.0.1:\#(refusing.port)"}, "postServeActions": \#(hook)},
                      {"request": {"urlPath": "/fault"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"}, "postServeActions": \#(hook)}
                    ]}
                    """#))
                try await withServer(mock) { server in
                    try await withClient { client in
                        let proxied = try await send(client, "\(server.baseURL.absoluteString)/proxied")
                        #expect(proxied.status == 201 && proxied.text == "from upstream")
                        let unreachable = try await send(client, "\(server.baseURL.absoluteString)/unreachable")
                        #expect(unreachable.status == 502)
                        await #expect(throws: (any Error).self) { try await send(client, "\(server.baseURL.absoluteString)/fault") }
                    }
                    try await waitUntil("three webhooks are in the journal") { mock.requests.count == 3 && mock.requests.allSatisfy { $0.webhooks.count == 1 } }
                    for entry in mock.requests {
                        #expect(entry.webhooks.first?.outcome == .answered(status: 200), "\(entry.path): \(entry.webhooks)")
                    }
                    #expect(Set(receiver.requests.map(\.path)) == ["/after/proxied", "/after/unreachable", "/after/fault"])
                    #expect(upstream.requests.map(\.path) == ["/proxied"])
                }
            }
        }
    }

    @Test func theAdminAPIRegistersAWebhookAndTheJournalListsItsOutcome() async throws {
        let receiver = receiver()
        try await withServer(receiver) { receiving in
            let mock = HTTPMock()
            try await withServer(mock) { server in
                try await withClient { client in
                    let base = server.baseURL.absoluteString
                    let created = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: [("Content-Type", "application/json")], body: #"""
                        {"request": {"url": "/admin-hook"}, "response": {"status": 200},
                         "postServeActions": [{"name": "webhook", "parameters": {"url": "\#(receiving.baseURL.absoluteString)/from-admin",
                            "headers": {"Authorization": "Bearer hook-secret"},
                            "base64Body": "aGVsbG8=", "delay": {"type": "uniform", "lower": 1, "upper": 5}}}]}
                        """#)
                    #expect(created.status == 201, "\(created.text)")
                    // The token the webhook sends is not shown in the mappings the admin API lists.
                    let listedMappings = try await send(client, "\(base)/__admin/mappings")
                    #expect(listedMappings.text.contains("Authorization") && !listedMappings.text.contains("hook-secret"), "\(listedMappings.text)")
                    #expect(try await send(client, "\(base)/admin-hook").status == 200)
                    _ = try await entryWithWebhooks(mock)
                    #expect(receiver.requests.first?.bodyText == "hello" && receiver.requests.first?.method == "POST")
                    #expect(receiver.requests.first?.header("Authorization") == "Bearer hook-secret")
                    let journal = try await send(client, "\(base)/__admin/requests")
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(journal.text.utf8)) as? [String: Any])
                    let event = try #require((object["requests"] as? [[String: Any]])?.first)
                    let subEvents = try #require(event["subEvents"] as? [[String: Any]])
                    #expect(subEvents.map { $0["type"] as? String } == ["WEBHOOK_REQUEST", "WEBHOOK_RESPONSE"])
                    #expect((subEvents.last?["data"] as? [String: Any])?["status"] as? Int == 200)
                    let listed = try #require((event["webhooks"] as? [[String: Any]])?.first)
                    #expect(listed["status"] as? Int == 200 && listed["method"] as? String == "POST")
                }
            }
        }
    }

    @Test func aStubFileWebhookIsSent() async throws {
        let receiver = receiver()
        try await withServer(receiver) { receiving in
            let file = try StubFile(data: Data(#"""
                {"stubs": [{"path": "/signup", "method": "POST", "responses": [{"status": 201, "json": {"ok": true},
                  "webhooks": [{"url": "\#(receiving.baseURL.absoluteString)/welcome", "headers": {"X-User": "{{jsonPath request.body '$.name'}}"},
                                "body": "welcome {{request.path}}", "delay": 0.1}]}]}]}
                """#.utf8), source: "hooks.json", baseDirectory: URL(fileURLWithPath: "/"))
            let mock = HTTPMock()
            #expect(mock.registerStubs(file).isEmpty)
            try await withServer(mock) { server in
                try await withClient { client in
                    let signup = try await send(client, "\(server.baseURL.absoluteString)/signup", method: .POST, body: #"{"name": "Ada"}"#)
                    #expect(signup.status == 201)
                }
                let entry = try await entryWithWebhooks(mock)
                #expect(entry.webhooks.first?.outcome == .answered(status: 200))
                let received = try #require(receiver.requests.first)
                #expect(received.method == "POST" && received.path == "/welcome")
                #expect(received.header("X-User") == "Ada" && received.bodyText == "welcome /signup")
                #expect(received.date.timeIntervalSince(entry.date) >= 0.1)
            }
        }
    }

    @Test func theTrafficPageShowsEachWebhookRedacted() async throws {
        let receiver = receiver()
        try await withServer(receiver) { receiving in
            let mock = HTTPMock()
            mock.addResponses(forPath: "/page", host: "**") {
                MockResponse.plaintext("ok").webhook(Webhook(url: "\(receiving.baseURL.absoluteString)/hook?token=secret-value"))
            }
            try await withServer(mock) { server in
                try await withClient { client in
                    #expect(try await send(client, "\(server.baseURL.absoluteString)/page").status == 200)
                    let entry = try await entryWithWebhooks(mock)
                    let detail = try await send(client, server.inspectorURL.absoluteString + "exchanges/\(entry.sequence)")
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(detail.text.utf8)) as? [String: Any], "\(detail.text)")
                    let shown = try #require((object["webhooks"] as? [[String: Any]])?.first)
                    #expect(shown["outcome"] as? String == "200")
                    let url = try #require(shown["url"] as? String)
                    // A credential in the query is hidden, as everywhere.
                    #expect(!url.contains("secret-value"), "\(url)")
                }
            }
        }
    }
}

/// `airlock serve --webhook-allow`, through the built executable: a webhook to a host that is not
/// loopback is refused without a connection, and goes once the flag allows its host. (`0.0.0.0`
/// is not a loopback address, yet Linux connects to it locally: the refusal is the policy's,
/// and the allowed webhook still reaches the loopback receiver, with no name server involved.)
struct WebhookCLITests {
    @Test func aNonLoopbackTargetIsRefusedUnlessWebhookAllowNamesIt() async throws {
        let receiver = HTTPMock()
        receiver.unmockedPolicy = .mock(.plaintext("received"))
        try await withServer(receiver) { receiving in
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-webhook-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            try Data(#"""
                {"request": {"url": "/hook"}, "response": {"status": 200, "body": "served"},
                 "postServeActions": [{"name": "webhook", "parameters": {"method": "POST", "url": "http://0.0.0.0:\#(receiving.port)/from-cli", "body": "hi"}}]}
                """#.utf8).write(to: root.appendingPathComponent("mappings/hook.json"))

            let refusing = try LaunchedAirlock(["serve", "--wiremock", root.path, "--port", "0", "--quiet"])
            defer { refusing.stopIfRunning() }
            let refusingBase = try await refusing.banner().base
            try await withClient { client in
                #expect(try await send(client, "\(refusingBase)/hook").text == "served")
                let listed = try await webhooks(client, refusingBase)
                let refused = try #require(listed.first?["refused"] as? String, "\(listed)")
                #expect(refused.contains("--webhook-allow 0.0.0.0"), "\(refused)")
            }
            #expect(receiver.requests.isEmpty)
            refusing.stopIfRunning()

            let allowing = try LaunchedAirlock(["serve", "--wiremock", root.path, "--port", "0", "--quiet", "--webhook-allow", "0.0.0.0"])
            defer { allowing.stopIfRunning() }
            let allowingBase = try await allowing.banner().base
            try await withClient { client in
                #expect(try await send(client, "\(allowingBase)/hook").text == "served")
                let listed = try await webhooks(client, allowingBase)
                #expect(listed.first?["status"] as? Int == 200, "\(listed)")
            }
            #expect(receiver.requests.map(\.path) == ["/from-cli"])
            #expect(receiver.requests.first?.bodyText == "hi")
        }
    }

    /// The webhooks of the newest request in the server's journal, once there are some.
    private func webhooks(_ client: HTTPClient, _ base: String) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline {
            let journal = try await send(client, "\(base)/__admin/requests")
            let object = try JSONSerialization.jsonObject(with: Data(journal.text.utf8)) as? [String: Any]
            if let listed = ((object?["requests"] as? [[String: Any]])?.first?["webhooks"] as? [[String: Any]]), !listed.isEmpty {
                return listed
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no webhook in the journal")
        return []
    }
}
