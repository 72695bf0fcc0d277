import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import NIOCore
import NIOHTTP1

/// Sends the webhooks the core decided for an exchange, once its response has been written: each
/// after its delay, over the server's ``Forwarder`` (one connection, `Connection: close`), its
/// outcome — the receiver's status or the failure — recorded with the exchange's journal entry.
///
/// It decides nothing (what to send, when, and whether it may go are the core's); a failure
/// never touches the exchange that triggered it.
enum WebhookDelivery {
    /// How long a receiver may take to answer.
    static let timeout: TimeAmount = .seconds(30)
    /// The most of an answer's body read (the answer is only recorded by its status).
    static let bodyLimit = 1 << 20

    /// Sends `webhooks` from `eventLoop`, each after its delay; one still waiting when the server
    /// shuts down (`waiting` is cancelled) is recorded as not sent.
    static func send(
        _ webhooks: [WebhookRequest], recorder: ExchangeRecorder, forwarder: Forwarder, redaction: Redaction, waiting: WaitingWebhooks, on eventLoop: any EventLoop
    ) {
        for webhook in webhooks {
            let key = waiting.add(webhook, recorder: recorder, redaction: redaction)
            eventLoop.scheduleTask(in: .saturatingSeconds(webhook.delay)) {
                guard waiting.claim(key) else { return }
                send(webhook, recorder: recorder, forwarder: forwarder, redaction: redaction, on: eventLoop)
            }
        }
    }

    private static func send(_ webhook: WebhookRequest, recorder: ExchangeRecorder, forwarder: Forwarder, redaction: Redaction, on eventLoop: any EventLoop) {
        let sent = Date()
        let url = redaction.url(webhook.url)
        @Sendable func record(_ outcome: RecordedWebhook.Outcome) {
            recorder.record(RecordedWebhook(method: webhook.method, url: url, outcome: outcome, date: sent, delay: webhook.delay, duration: Date().timeIntervalSince(sent)))
        }
        forwarder.execute(
            method: HTTPMethod(rawValue: webhook.method), url: webhook.url, headers: webhook.headers, body: webhook.body, limit: bodyLimit,
            timeout: timeout, streams: false, on: eventLoop,
            relayTo: { pipeline in
                try pipeline.addHandler(Forwarder.EventCallback { event in
                    switch event {
                    case .whole(let response): record(.answered(status: Int(response.status.code)))
                    case .failed(let failure): record(.failed(failure.description))
                    case .cancelled: record(.failed("cancelled"))
                    case .streamHead, .piece, .end: break
                    }
                })
            },
            unreachable: { failure in record(.failed(failure.description)) }
        )
    }
}
