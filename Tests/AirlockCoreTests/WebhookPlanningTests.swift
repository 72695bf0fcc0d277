@testable import AirlockStubFiles
@testable import AirlockWireMock
import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// What the core decides about a stub's webhooks, on the machine itself: rendered once for the
/// request, attached to the response's last write only, refused by the policy before anything is
/// sent; and how WireMock's delay objects and a mapping's webhook fields are read.
struct WebhookPlanningTests {
    typealias Machine = ExchangeStateMachine<URLSessionTransport>

    private func exchange(_ response: MockResponse, policy: WebhookPolicy = .loopbackOnly, url: String = "https://a.test/x?id=9") -> (Machine, MockRegistry) {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.webhookPolicy = policy
        #expect(registry.register([Registration(host: "a.test", path: "/x", responses: [response])]).isEmpty)
        let request = IncomingRequest(method: "POST", absoluteURL: url)!
        return (registry.resolve(request, for: .urlSession), registry)
    }

    @Test func theWebhooksGoWithTheLastWriteOnly() {
        let response = MockResponse.plaintext("abcdef").dribbled(inChunks: 3, over: 0.3)
            .webhook(Webhook(url: "http://127.0.0.1:1/hook", body: "x"))
        var (machine, _) = exchange(response)
        var action = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        var writes: [Machine.Write] = []
        while true {
            if case .write(let write)? = action.delivery { writes.append(write) }
            guard case .timer = action.next else { break }
            action = machine.timerFired()
        }
        #expect(writes.count == 3)
        #expect(writes.dropLast().allSatisfy { $0.webhooks.isEmpty })
        #expect(writes.last?.ends == true && writes.last?.webhooks.map(\.url) == ["http://127.0.0.1:1/hook"])
    }

    /// WireMock sends a stub's webhooks whatever it answers with: after a fault, and after a
    /// proxied answer (the transport sends them once the answer has been relayed).
    @Test func aFaultAndAProxiedAnswerCarryTheWebhooksToo() throws {
        let hook = Webhook(url: "http://127.0.0.1:1/hook")
        var (fault, _) = exchange(MockResponse.fault(.connectionReset).webhook(hook))
        guard case .fault(.connectionReset, let sentAfterFault)? = fault.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("no fault")
            return
        }
        #expect(sentAfterFault.map(\.url) == ["http://127.0.0.1:1/hook"])
        let proxying = try mapping(
            #"{"request": {"url": "/x"}, "response": {"proxyBaseUrl": "http://127.0.0.1:2"}, "postServeActions": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1:1/{{originalRequest.query.id}}"}}]}"#
        ).registration.responses[0]
        var (forward, _) = exchange(proxying, url: "https://a.test/x?id=9")
        guard case .forward(false, let target?, _, let sentAfterProxy, _)? = forward.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("not forwarded")
            return
        }
        #expect(target.url == "http://127.0.0.1:2/x?id=9")
        #expect(sentAfterProxy.map(\.url) == ["http://127.0.0.1:1/9"])
    }

    @Test func aRefusedWebhookIsRecordedAtOnceAndNeverReachesTheTransport() {
        let response = MockResponse.plaintext("ok").webhook(Webhook(url: "https://hooks.example.com/h"))
        var (machine, registry) = exchange(response)
        let action = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        guard case .write(let write)? = action.delivery else {
            Issue.record("no write")
            return
        }
        #expect(write.webhooks.isEmpty)
        let recorded = registry.journal.all.first?.webhooks ?? []
        #expect(recorded.count == 1)
        if case .refused(let reason)? = recorded.first?.outcome {
            #expect(reason.hasPrefix("hooks.example.com is not a loopback host"))
        } else {
            Issue.record("not refused: \(recorded)")
        }
    }

    @Test func aWebhookThatRendersIntoSomethingUnsendableIsRecordedAsFailedAndNotSent() throws {
        let hook = try #require(try webhook(#"{"method": "{{originalRequest.query.m}}", "url": "http://127.0.0.1:1/h", "headers": {"X-Echo": "{{originalRequest.query.h}}"}}"#))
        for (query, expected) in [("m=G%20T&h=x", "is not an HTTP method"), ("m=POST&h=a%0Ab", "its header X-Echo cannot be sent")] {
            var (machine, registry) = exchange(MockResponse.plaintext("ok").with(webhooks: [hook]), url: "https://a.test/x?\(query)")
            guard case .write(let write)? = machine.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
                Issue.record("no write")
                continue
            }
            #expect(write.webhooks.isEmpty)
            guard case .failed(let problem)? = registry.journal.all.first?.webhooks.first?.outcome else {
                Issue.record("not failed: \(registry.journal.all.first?.webhooks ?? [])")
                continue
            }
            #expect(problem.contains(expected), "\(problem)")
        }
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/x", true), ("http://127.255.0.1/x", true), ("http://localhost/x", true), ("http://[::1]:9/x", true),
        ("http://[::ffff:127.0.0.1]/x", true), ("http://evil.localhost/x", false), ("http://127.1/x", false), ("http://10.0.0.1/x", false),
        ("http://hooks.example.com/x", false), ("http://api.hooks.example.com/x", false), ("ftp://127.0.0.1/x", false), ("/relative", false),
        ("http://0.0.0.0:80/x", false),
    ])
    func theDefaultPolicyAllowsLoopbackHostsOnly(url: String, allowed: Bool) {
        #expect((WebhookPolicy.loopbackOnly.refusal(of: url) == nil) == allowed)
    }

    @Test func theAllowListAddsHostsAndPatterns() {
        let policy = WebhookPolicy(allowedHosts: ["hooks.example.com", "*.internal.test"])
        #expect(policy.refusal(of: "https://HOOKS.example.com/x") == nil)
        #expect(policy.refusal(of: "https://a.internal.test/x") == nil)
        #expect(policy.refusal(of: "https://internal.test/x") != nil)
        #expect(policy.refusal(of: "https://example.com/x") != nil)
    }

    @Test func delaysAreDrawnWithinTheirBounds() {
        for _ in 0..<200 {
            #expect(WebhookDelay.fixed(seconds: 0.5).sample() == 0.5)
            #expect((0.5...1).contains(WebhookDelay.uniform(lower: 0.5, upper: 1).sample()))
            #expect((0...0.2).contains(WebhookDelay.lognormal(median: 0.08, sigma: 0.4, maximum: 0.2).sample()))
        }
        #expect(WebhookDelay.fixed(seconds: -1).sample() == 0)
        #expect(WebhookDelay.uniform(lower: 2, upper: 1).sample() == 2)
    }

    private func mapping(_ json: String) throws(StubFileError) -> StubMapping {
        try StubMapping(JSONNode.parse(Data(json.utf8), source: "m.json", expected: "a mapping"), files: .relative(to: URL(fileURLWithPath: "/")))
    }

    private func webhook(_ parameters: String) throws(StubFileError) -> Webhook? {
        try mapping(#"{"request": {"url": "/x"}, "response": {"status": 200}, "postServeActions": [{"name": "webhook", "parameters": \#(parameters)}]}"#)
            .registration.responses.first?.webhooks.first
    }

    @Test(arguments: [
        (#"{"type": "fixed", "milliseconds": 1000}"#, WebhookDelay.fixed(seconds: 1)),
        (#"{"type": "uniform", "lower": 500, "upper": 1000}"#, WebhookDelay.uniform(lower: 0.5, upper: 1)),
        (#"{"type": "lognormal", "median": 80, "sigma": 0.4}"#, WebhookDelay.lognormal(median: 0.08, sigma: 0.4)),
        (#"{"type": "lognormal", "median": 80, "sigma": 0.4, "maxValue": 200}"#, WebhookDelay.lognormal(median: 0.08, sigma: 0.4, maximum: 0.2)),
    ])
    func wireMockDelaysAreRead(json: String, expected: WebhookDelay) throws {
        #expect(try webhook(#"{"url": "http://127.0.0.1/h", "delay": \#(json)}"#)?.delay == expected)
    }

    @Test(arguments: [
        (#"{"method": "POST"}"#, "postServeActions[0].parameters.url", "is missing"),
        (#"{"url": "not a url"}"#, "url", "absolute http or https URL"),
        (#"{"url": "http://127.0.0.1/h", "extraThing": 1}"#, "extraThing", "one of"),
        (#"{"url": "http://127.0.0.1/h", "body": "a", "base64Body": "YQ=="}"#, "base64Body", "either \"body\""),
        (#"{"url": "http://127.0.0.1/h", "delay": {"type": "gaussian"}}"#, "delay", "\"uniform\", \"lognormal\" or \"fixed\""),
        (#"{"url": "http://127.0.0.1/h", "body": "{{request.body}}"}"#, "body", "originalRequest.method"),
        (#"{"url": "http://127.0.0.1/h", "headers": {"Bad Name": "x"}}"#, "headers", "Header names"),
    ])
    func unusableParametersAreRefusedByTheirPath(parameters: String, location: String, expected: String) {
        do {
            _ = try webhook(parameters)
            Issue.record("\(parameters) was accepted")
        } catch {
            #expect(error.description.contains(location) && error.description.contains(expected), "\(error)")
        }
    }

    @Test func anActionOtherThanAWebhookIsRefusedByName() {
        do {
            _ = try mapping(#"{"request": {"url": "/x"}, "response": {}, "serveEventListeners": [{"name": "my-extension", "parameters": {}}]}"#)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .unsupported && error.description.contains("\"my-extension\""), "\(error)")
            #expect(error.location == "serveEventListeners[0]", "\(String(describing: error.location))")
        }
    }

    @Test func aTemplatedWebhookIsRenderedFromTheTriggeringRequest() throws {
        let hook = try #require(try webhook(#"{"method": "{{originalRequest.query.m}}", "url": "http://127.0.0.1/h/{{originalRequest.path.[0]}}", "body": "{{jsonPath originalRequest.body '$.a'}}"}"#))
        var incoming = IncomingRequest(method: "POST", absoluteURL: "http://x.test/items/1?m=put")!
        incoming.body = Data(#"{"a": "<b>"}"#.utf8)
        let rendered = hook.rendered(for: RecordedRequest(sequence: 1, request: incoming, date: Date()))
        #expect(rendered.method == "PUT" && rendered.url == "http://127.0.0.1/h/items")
        // As WireMock's Handlebars writes {{…}}: HTML-escaped.
        #expect(rendered.body.map { String(decoding: $0, as: UTF8.self) } == "&lt;b&gt;")
    }
}
