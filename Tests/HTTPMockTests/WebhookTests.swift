@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPMock
import HTTPTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPMock` sends a stub's webhooks through its `passthroughSession` (a session it does not
/// intercept) once the client has the response, to a real server on loopback.
struct WebhookTests {
    @Test func aURLSessionMockSendsTheWebhookAfterTheResponseAndRecordsItsOutcome() async throws {
        try await LoopbackServer.with { receiver in
            let mock = HTTPMock()
            mock.addResponses(forPath: "/jobs", host: "api.example.com") {
                MockResponse.empty(status: .accepted)
                    .webhook(Webhook(method: "PUT", url: "http://127.0.0.1:\(receiver.port)/done", headers: ["X-Job": "7"], body: "finished", delay: .fixed(seconds: 0.2)))
            }
            let (_, response) = try await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/jobs")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 202)
            try await waitUntil("the webhook's outcome is in the journal") { mock.requests.first?.webhooks.isEmpty == false }
            let entry = try #require(mock.requests.first)
            let webhook = try #require(entry.webhooks.first)
            #expect(webhook.outcome == .answered(status: 200) && webhook.method == "PUT")
            #expect(webhook.date.timeIntervalSince(entry.date) >= 0.2)
            #expect(receiver.requestCount == 1)
        }
    }

    /// A stub that proxies sends its webhooks once the proxied answer has reached the client.
    @Test func aProxyingStubSendsItsWebhookAfterTheProxiedAnswer() async throws {
        try await LoopbackServer.with { receiver in
            try await LoopbackServer.with { upstream in
                let mock = HTTPMock()
                let mapping = #"""
                    {"request": {"urlPath": "/proxied"}, "response": {"proxyBaseUrl": "http://127.0.0.1:\#(upstream.port)"},
                     "postServeActions": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1:\#(receiver.port)/after"}}]}
                    """#
                mock.registerStubs(try WireMockMappings(data: Data(mapping.utf8), source: "proxy.json", rootDirectory: FileManager.default.temporaryDirectory))
                let (data, _) = try await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/proxied")!)
                #expect(String(decoding: data, as: UTF8.self) == "real GET /proxied")
                try await waitUntil("the webhook's outcome is in the journal") { mock.requests.first?.webhooks.isEmpty == false }
                #expect(mock.requests.first?.webhooks.first?.outcome == .answered(status: 200))
                #expect(receiver.requestCount == 1 && upstream.requestCount == 1)
            }
        }
    }

    @Test func aFarOffWebhookHasNotBeenSentWhenTheResponseArrives() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/later", host: "api.example.com") {
            MockResponse.plaintext("now").webhook(Webhook(url: "http://127.0.0.1:\(RefusingPort.forTheWholeRun)/later", delay: .fixed(seconds: 3_600)))
        }
        let (data, _) = try await mock.urlSession.boundedData(from: URL(string: "https://api.example.com/later")!)
        #expect(String(decoding: data, as: UTF8.self) == "now")
        // Sent, it would fail at once (nothing listens) and the journal would say so.
        #expect(mock.requests.first?.webhooks.isEmpty == true)
    }

    /// A webhook still waiting when its mock is released is not sent (a test's webhook must not
    /// reach a later test), and its entry says so.
    @Test func aWebhookWaitingWhenItsMockIsReleasedIsNotSent() async throws {
        try await LoopbackServer.with { receiver in
            var mock: HTTPMock? = HTTPMock()
            mock?.addResponses(forPath: "/released", host: "api.example.com") {
                MockResponse.plaintext("now").webhook(Webhook(url: "http://127.0.0.1:\(receiver.port)/late", delay: .fixed(seconds: 3_600)))
            }
            let journal = try #require(mock?.journal)
            let session = try #require(mock?.urlSession)
            let (data, _) = try await session.boundedData(from: URL(string: "https://api.example.com/released")!)
            #expect(String(decoding: data, as: UTF8.self) == "now")
            #expect(journal.all.first?.webhooks.isEmpty == true)
            mock = nil
            try await waitUntil("the webhook's outcome is in the journal") { journal.all.first?.webhooks.isEmpty == false }
            let webhook = try #require(journal.all.first?.webhooks.first)
            #expect(webhook.outcome == .failed("not sent: the mock was released before its delay had passed"))
            #expect(receiver.requestCount == 0)
        }
    }

    @Test func theDefaultPolicyAllowsLoopbackOnlyAndTheAllowListWidensIt() {
        let mock = HTTPMock()
        #expect(mock.webhookPolicy == .loopbackOnly)
        mock.webhookPolicy = WebhookPolicy(allowedHosts: ["hooks.example.com", "*.internal.example"])
        #expect(mock.webhookPolicy.allowedHosts == ["hooks.example.com", "*.internal.example"])
    }
}
