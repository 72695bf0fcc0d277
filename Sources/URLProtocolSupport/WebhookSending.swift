@_spi(AirlockTransport) import AirlockCore
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends the webhooks the core decided for an exchange, once its response has been handed to the
/// client: each after its delay, through a `URLSession` the mock does not intercept (`HTTPMock`'s
/// and `AirlockTransport`'s `passthroughSession`), its outcome recorded with the exchange's
/// journal entry.
///
/// It decides nothing; a failure never touches the exchange that triggered it. Tasks are created
/// and resumed on a global queue: resuming one from the process-wide URLProtocol queue deadlocks.
package enum WebhookSending {
    /// How long a receiver may take to answer.
    package static let timeout: TimeInterval = 30

    /// Sends `webhooks`, each `delay` seconds from now, through `session`, unless `waiting` is
    /// released (or cancelled) first: then each still waiting is recorded as not sent.
    package static func send(_ webhooks: [WebhookRequest], through session: URLSession, recorder: ExchangeRecorder, redaction: Redaction, waiting: WaitingWebhooks) {
        for webhook in webhooks {
            let key = waiting.add(webhook, recorder: recorder, redaction: redaction)
            DispatchQueue.global().asyncAfter(deadline: .now() + webhook.delay) { [weak waiting] in
                guard let waiting, waiting.claim(key) else { return }
                send(webhook, through: session, recorder: recorder, redaction: redaction)
            }
        }
    }

    private static func send(_ webhook: WebhookRequest, through session: URLSession, recorder: ExchangeRecorder, redaction: Redaction) {
        let sent = Date()
        let shownURL = redaction.url(webhook.url)
        @Sendable func record(_ outcome: RecordedWebhook.Outcome) {
            recorder.record(RecordedWebhook(method: webhook.method, url: shownURL, outcome: outcome, date: sent, delay: webhook.delay, duration: Date().timeIntervalSince(sent)))
        }
        guard let url = URL(string: webhook.url) else { return record(.failed("\(shownURL) is not a valid URL")) }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = webhook.method
        for field in webhook.headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
        request.httpBody = webhook.body
        session.dataTask(with: request) { _, response, error in
            if let error {
                record(.failed(error.localizedDescription))
            } else if let http = response as? HTTPURLResponse {
                record(.answered(status: http.statusCode))
            } else {
                record(.failed("no HTTP answer"))
            }
        }.resume()
    }
}
