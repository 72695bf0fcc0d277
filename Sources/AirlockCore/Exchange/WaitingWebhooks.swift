import AirlockBase
import Foundation

/// The webhooks of one owner — a mock, a transport, a server — still waiting for their delay.
/// Each transport schedules its own timer and, when it fires, sends only if ``claim(_:)`` says
/// the webhook is still waiting; ``cancelAll()`` (or the owner releasing it) records every one
/// still waiting as not sent, with the owner's reason, so a test's webhook never reaches a later
/// test.
package final class WaitingWebhooks: Sendable {
    /// Why a webhook cancelled here was not sent, as its entry's failure says it.
    package let notSent: String

    private let waiting = Locked<(next: Int, notSent: [Int: @Sendable () -> Void])>((0, [:]))

    /// - Parameter notSent: The failure a webhook still waiting is recorded with.
    package init(notSent: String) {
        self.notSent = notSent
    }

    deinit { cancelAll() }

    /// Keeps `webhook` as waiting, to be recorded through `recorder` if it is cancelled; returns
    /// its key.
    package func add(_ webhook: WebhookRequest, recorder: ExchangeRecorder, redaction: Redaction) -> Int {
        let reason = notSent
        return waiting.withLock { state in
            state.next += 1
            state.notSent[state.next] = {
                recorder.record(RecordedWebhook(
                    method: webhook.method, url: redaction.url(webhook.url), outcome: .failed(reason), date: Date(), delay: webhook.delay, duration: 0
                ))
            }
            return state.next
        }
    }

    /// Whether the webhook with `key` was still waiting (it is not any more): its timer sends it
    /// only then.
    package func claim(_ key: Int) -> Bool {
        waiting.withLock { $0.notSent.removeValue(forKey: key) != nil }
    }

    /// Records every webhook still waiting as not sent; none of them will be.
    package func cancelAll() {
        let waiting = waiting.withLock { state in
            defer { state.notSent = [:] }
            return Array(state.notSent.values)
        }
        waiting.forEach { $0() }
    }
}
