import Foundation

extension MockResponse {
    /// The same response, which sends `webhook` once it has gone out — as a service calls back
    /// when the work a request asked for is done.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/payments", host: "api.example.com") {
    ///     MockResponse.empty(status: .accepted)
    ///         .webhook(Webhook(url: "http://127.0.0.1:9090/paid", body: #"{"paid":true}"#, delay: .fixed(seconds: 1)))
    /// }
    /// ```
    ///
    /// The webhook never delays the response, and its failure never fails the exchange: what
    /// became of it is in the journal (``RecordedRequest/webhooks``). Call it again to send
    /// several, in order.
    /// - Parameter webhook: The request to send.
    /// - Returns: The response, sending the webhook after it.
    public func webhook(_ webhook: Webhook) -> MockResponse {
        with(webhooks: webhooks + [webhook])
    }
}
