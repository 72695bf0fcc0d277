import AirlockBase

/// A mock: stubs with response queues, an unmocked policy and a journal of the requests it got.
///
/// `HTTPMock` (URLSession) and `MockServer` (a socket) are mocks. The registration API
/// (`addResponses`, `registerResponses`, `registerStubs`), the policy, the journal queries,
/// redaction and HAR export are written once, here, and offered the same way by both. Two mocks
/// share stubs, queues and journal when one is made over the other:
///
/// ```swift
/// let mock = HTTPMock()
/// let server = MockServer(mock: mock)   // serves mock's stubs over a loopback socket
/// ```
public protocol Mocking: Journaling {
    /// The engine behind the mock: its stubs, queues, policy and journal. Not API (only the
    /// package's own mocks conform): pass it on by handing the mock to another transport.
    @_spi(AirlockTransport) var registry: MockRegistry { get }
}

extension Mocking {
    /// The journal of the mock's registry.
    @_spi(AirlockTransport) public var journal: RequestJournal { registry.journal }

    /// What happens to a request that no queued response matches. Defaults to `.notFound`.
    ///
    /// ```swift
    /// mock.unmockedPolicy = .mock(.plaintext("Service temporarily unavailable", status: .other(503)))
    /// ```
    public var unmockedPolicy: UnmockedPolicy {
        get { registry.unmockedPolicy }
        set { registry.unmockedPolicy = newValue }
    }

    /// Which hosts the webhooks of this mock's stubs may go to (see ``Webhook``). Defaults to
    /// ``WebhookPolicy/loopbackOnly``: a webhook to any other host is refused, recorded in the
    /// journal with the reason, and reported to Airgap when it is active.
    ///
    /// ```swift
    /// mock.webhookPolicy = WebhookPolicy(allowedHosts: ["hooks.internal.example"])
    /// ```
    public var webhookPolicy: WebhookPolicy {
        get { registry.webhookPolicy }
        set { registry.webhookPolicy = newValue }
    }

    /// Stubs rejected at registration (an invalid host or path pattern, lifetime, delay or status),
    /// oldest first, each saying what was wrong and how to fix it.
    public var registrationErrors: [RegistrationError] {
        registry.registrationErrors
    }

    /// Removes all queued responses and registrations. The policy stays as it is.
    public func clearQueues() {
        registry.removeAll()
    }

    /// Removes all paths and responses registered for a host.
    /// - Parameter host: The host or host pattern exactly as it was registered (case-insensitive).
    public func clearQueue(forHost host: String) {
        registry.removeAll(forHost: host)
    }

    /// Stubs that were registered but have served nothing, described as in messages
    /// (`host "api.example.com", path "/users"`). Cleared stubs are not listed.
    public var unusedStubs: [String] {
        let redaction = journal.redaction
        return registry.unusedStubs.map { redaction.text($0) }
    }

    /// The message for a request no stub answered: the request, a paste-ready stub in the
    /// language of the mock's users (Swift for `HTTPMock`, JSON for `MockServer`), and the nearest
    /// stubs with what differed for each.
    /// - Parameter request: A request from ``Journaling/requests``.
    public func unmatchedMessage(for request: RecordedRequest) -> String {
        registry.diagnosis(for: request).render(registry.snippetStyle)
    }
}

/// Anything that keeps a journal of the HTTP requests it saw: a mock, or an `HTTPLogger`.
///
/// The queries, redaction and HAR export are written once, here.
public protocol Journaling: AnyObject, Sendable {
    /// Where the requests are recorded. Not API (only the package's own types conform): read it
    /// through the queries below.
    @_spi(AirlockTransport) var journal: RequestJournal { get }
}
