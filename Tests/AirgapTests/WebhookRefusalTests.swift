import AirlockCore
import Airgap
import Foundation
import HTTPMock
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A webhook to a host Airlock's webhook policy does not allow is refused without a connection,
/// recorded in the journal as refused with the reason, and reported to Airgap as a blocked
/// request. The refusal is decided off the test's task (on the URLProtocol queue), where every
/// open scope records a violation, so the suite runs alone among guarded tests.
@Suite(.aloneAmongGuardedTests, .airgapped(mode: .warn, allowedHosts: Loopback.hosts))
struct WebhookRefusalTests {
    @Test func aWebhookToAHostThatIsNotLoopbackIsRefusedRecordedAndReportedToAirgap() async throws {
        let reported = ReportedViolations()
        Airgap.violationReporter = { reported.append($0) }
        let mock = HTTPMock()
        mock.addResponses(forPath: "/trigger", host: "api.example.com") {
            MockResponse.plaintext("ok").webhook(Webhook(url: "http://hooks.airgap-webhook.invalid/callback", body: "event"))
        }
        let (data, response) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/trigger")!)
        // The exchange that triggered it is untouched.
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && String(decoding: data, as: UTF8.self) == "ok")
        let webhook = try #require(mock.requests.first?.webhooks.first)
        guard case .refused(let reason) = webhook.outcome else {
            Issue.record("the webhook was not refused: \(webhook.outcome)")
            return
        }
        #expect(reason.contains("hooks.airgap-webhook.invalid is not a loopback host"), "\(reason)")
        #expect(reason.contains("--webhook-allow hooks.airgap-webhook.invalid"), "\(reason)")
        #expect(webhook.method == "POST" && webhook.url == "http://hooks.airgap-webhook.invalid/callback")
        let violations = Airgap.violations
        #expect(violations.contains { $0.kind == .request && $0.httpMethod == "POST" && $0.url == "http://hooks.airgap-webhook.invalid/callback" }, "\(violations)")
        // The reporter is told off the reporting thread (Airgap.reportRefused): wait for it.
        try await waitUntil("the violation reporter has been told") { reported.all.count >= violations.count }
        #expect(reported.all == violations)
    }
}
