import AirlockBase
import Foundation

/// A request a stub sends after its response has gone out — a callback, WireMock's `webhook`:
/// the mock tells the app's other side that something happened, as the real service would.
///
/// ```swift
/// let callback = Webhook(
///     method: "POST",
///     url: "http://127.0.0.1:9090/callback",
///     headers: ["Content-Type": "application/json"],
///     body: #"{"result":"SUCCESS"}"#,
///     delay: .fixed(seconds: 0.5)
/// )
/// MockResponse.empty(status: .accepted).webhook(callback)
/// ```
///
/// The webhook is sent once the response is written, never before and never delaying it; what
/// became of it — the answer's status, or why it failed or was refused — is in the journal
/// (``RecordedRequest/webhooks``) and on the traffic page. A failure never touches the exchange
/// that triggered it.
///
/// By default a webhook may only go to a loopback host (`127.0.0.0/8`, `::1`, `localhost`); any
/// other needs ``Mocking/webhookPolicy`` to allow it. `MockServer` sends it over its own client;
/// `HTTPMock` (and `AirlockTransport`) through its `passthroughSession`, which the mock itself
/// does not intercept. A webhook goes after a response the stub serves — not after a fault, an
/// error, a proxied answer or a WebSocket.
public struct Webhook: Hashable, Sendable {
    /// A piece of the webhook's request: text, or a template rendered from the request that
    /// triggered it (WireMock's `originalRequest`).
    package enum Text: Hashable, Sendable {
        /// As written.
        case text(String)
        /// Rendered for each triggering request.
        case template(MockResponse.RequestTemplate)

        func rendered(_ request: @autoclosure () -> RecordedRequest) -> String {
            switch self {
            case .text(let text): text
            case .template(let template): template.render(request())
            }
        }
    }

    /// The body a webhook sends.
    package enum Body: Hashable, Sendable {
        /// No body.
        case empty
        /// These bytes.
        case data(Data)
        /// Text, or a template.
        case text(Text)
    }

    /// A header field of the webhook's request.
    package struct Field: Hashable, Sendable {
        /// The field's name, as sent.
        package let name: String
        /// Its value.
        package let value: Text

        /// A field.
        package init(name: String, value: Text) {
            self.name = name
            self.value = value
        }
    }

    /// The HTTP method (or a template of it).
    package let method: Text
    /// The absolute URL (or a template of it).
    package let url: Text
    /// The header fields, in order.
    package let fields: [Field]
    /// The body.
    package let body: Body
    /// How long after the response the webhook goes.
    public let delay: WebhookDelay

    /// A webhook.
    /// - Parameters:
    ///   - method: The HTTP method. Defaults to `POST`.
    ///   - url: The absolute `http` or `https` URL to send to.
    ///   - headers: The request's header fields.
    ///   - body: The request's body, if any.
    ///   - delay: How long after the response the webhook goes. Defaults to ``WebhookDelay/immediate``.
    public init(method: String = "POST", url: String, headers: [String: String] = [:], body: Data? = nil, delay: WebhookDelay = .immediate) {
        self.init(
            method: .text(method), url: .text(url),
            fields: headers.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: .text($0.value)) },
            body: body.map { .data($0) } ?? .empty, delay: delay
        )
    }

    /// A webhook whose body is text (sent as UTF-8).
    /// - Parameters:
    ///   - method: The HTTP method. Defaults to `POST`.
    ///   - url: The absolute `http` or `https` URL to send to.
    ///   - headers: The request's header fields.
    ///   - body: The request's body.
    ///   - delay: How long after the response the webhook goes. Defaults to ``WebhookDelay/immediate``.
    public init(method: String = "POST", url: String, headers: [String: String] = [:], body: String, delay: WebhookDelay = .immediate) {
        self.init(method: method, url: url, headers: headers, body: Data(body.utf8), delay: delay)
    }

    /// A webhook whose parts may be templates (a format's).
    package init(method: Text, url: Text, fields: [Field], body: Body, delay: WebhookDelay) {
        self.method = method
        self.url = url
        self.fields = fields
        self.body = body
        self.delay = delay
    }

    /// The webhook for one triggering request: its parts rendered, its delay drawn.
    package func rendered(for request: @autoclosure () -> RecordedRequest) -> WebhookRequest {
        var recorded: RecordedRequest?
        func triggering() -> RecordedRequest {
            if let recorded { return recorded }
            let made = request()
            recorded = made
            return made
        }
        let bodyData: Data?
        switch body {
        case .empty: bodyData = nil
        case .data(let data): bodyData = data
        case .text(let text): bodyData = Data(text.rendered(triggering()).utf8)
        }
        return WebhookRequest(
            method: method.rendered(triggering()).trimmingCharacters(in: .whitespaces).uppercased(),
            url: url.rendered(triggering()).trimmingCharacters(in: .whitespaces),
            headers: fields.map { ($0.name, $0.value.rendered(triggering())) },
            body: bodyData,
            delay: delay.sample()
        )
    }
}

/// A webhook as the core decided it for one exchange: rendered, its delay drawn, and whether it
/// may go. A transport sends it as it is, ``delay`` seconds after the response is written.
package struct WebhookRequest: Sendable {
    /// The method, uppercased.
    package let method: String
    /// The absolute URL.
    package let url: String
    /// The header fields, in order.
    package let headers: [(name: String, value: String)]
    /// The body, if any.
    package let body: Data?
    /// Seconds after the response.
    package let delay: TimeInterval

    /// Why the request cannot be sent as rendered — a method that is not a token, a header that
    /// cannot be carried (a line break a template took from the request) — or `nil`.
    package var problem: String? {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
        if method.isEmpty || method.unicodeScalars.contains(where: { !$0.isASCII || !token.contains($0) }) {
            return "its method \"\(method)\" is not an HTTP method; fix the method (or its template) so that it renders one, such as POST"
        }
        for header in headers {
            if let problem = ResponseLimits.headerProblem(name: header.name, value: header.value) {
                return "its header \(header.name) cannot be sent: \(problem). Fix the template so that it renders one line."
            }
        }
        return nil
    }
}

/// How long after its response a ``Webhook`` goes: no delay, a fixed one, or one drawn for each
/// webhook from a uniform or a log-normal distribution (WireMock's `fixed`, `uniform` and
/// `lognormal` delays).
///
/// ```swift
/// Webhook(url: "http://127.0.0.1:9090/hook", delay: .uniform(lower: 0.5, upper: 1))
/// ```
public struct WebhookDelay: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case fixed(TimeInterval)
        case uniform(lower: TimeInterval, upper: TimeInterval)
        case lognormal(median: TimeInterval, sigma: Double, maximum: TimeInterval?)
    }

    private let kind: Kind

    /// No delay: the webhook goes as soon as the response is written.
    public static let immediate = WebhookDelay(kind: .fixed(0))

    /// A fixed delay.
    /// - Parameter seconds: The delay, from 0 to ``ResponseLimits/maximumSeconds``.
    public static func fixed(seconds: TimeInterval) -> WebhookDelay {
        WebhookDelay(kind: .fixed(Self.bounded(seconds)))
    }

    /// A delay drawn uniformly between two bounds for each webhook.
    /// - Parameters:
    ///   - lower: The shortest delay, in seconds.
    ///   - upper: The longest delay, in seconds (at least `lower`).
    public static func uniform(lower: TimeInterval, upper: TimeInterval) -> WebhookDelay {
        let lower = Self.bounded(lower)
        return WebhookDelay(kind: .uniform(lower: lower, upper: max(lower, Self.bounded(upper))))
    }

    /// A delay drawn from a log-normal distribution for each webhook, as network latencies
    /// spread: half the delays are below `median`; `sigma` says how long the tail is.
    /// - Parameters:
    ///   - median: The median delay, in seconds.
    ///   - sigma: The standard deviation of the delay's logarithm (0.1: tight, 1: a long tail).
    ///   - maximum: The longest delay drawn, in seconds, if any (WireMock's `maxValue`).
    public static func lognormal(median: TimeInterval, sigma: Double, maximum: TimeInterval? = nil) -> WebhookDelay {
        WebhookDelay(kind: .lognormal(median: Self.bounded(median), sigma: sigma.isFinite ? max(0, sigma) : 0, maximum: maximum.map(Self.bounded)))
    }

    /// A delay for one webhook, in seconds.
    package func sample() -> TimeInterval {
        switch kind {
        case .fixed(let seconds):
            return seconds
        case .uniform(let lower, let upper):
            return lower == upper ? lower : Double.random(in: lower...upper)
        case .lognormal(let median, let sigma, let maximum):
            // Box–Muller: a standard normal draw.
            let u1 = Double.random(in: Double.leastNonzeroMagnitude..<1)
            let u2 = Double.random(in: 0..<1)
            let normal = (-2 * Foundation.log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            let drawn = Self.bounded(median * Foundation.exp(sigma * normal))
            return maximum.map { min($0, drawn) } ?? drawn
        }
    }

    /// The delay in words: `immediate`, `fixed 500 ms`, `uniform 500–1000 ms`,
    /// `lognormal median 80 ms sigma 0.4`.
    public var description: String {
        func ms(_ seconds: TimeInterval) -> String { "\(Int((seconds * 1000).rounded())) ms" }
        switch kind {
        case .fixed(let seconds): return seconds == 0 ? "immediate" : "fixed \(ms(seconds))"
        case .uniform(let lower, let upper): return "uniform \(Int((lower * 1000).rounded()))–\(ms(upper))"
        case .lognormal(let median, let sigma, let maximum):
            return "lognormal median \(ms(median)) sigma \(sigma)" + (maximum.map { " max \(ms($0))" } ?? "")
        }
    }

    private static func bounded(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds.isFinite else { return 0 }
        return min(max(0, seconds), ResponseLimits.maximumSeconds)
    }
}

/// Which hosts a ``Webhook`` may go to. By default only loopback ones (`127.0.0.0/8`, `::1`,
/// `localhost`): a stub file or an admin API call cannot make the mock send requests anywhere
/// else unless whoever runs it says so (`airlock serve --webhook-allow HOST`, or
/// ``Mocking/webhookPolicy``).
///
/// ```swift
/// server.webhookPolicy = WebhookPolicy(allowedHosts: ["hooks.internal.example"])
/// ```
public struct WebhookPolicy: Hashable, Sendable {
    /// The hosts webhooks may go to besides loopback ones, as names (`hooks.example.com`),
    /// patterns (`*.example.com`) or addresses; names compare case-insensitively.
    public var allowedHosts: [String]

    /// A policy.
    /// - Parameter allowedHosts: Hosts allowed besides loopback ones (`*.example.com` allows
    ///   every subdomain). Defaults to none.
    public init(allowedHosts: [String] = []) {
        self.allowedHosts = allowedHosts
    }

    /// Loopback hosts only: the default.
    public static let loopbackOnly = WebhookPolicy()

    /// Why a webhook to `url` may not go, or `nil` when it may.
    package func refusal(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let rawHost = components.host, !rawHost.isEmpty
        else {
            return "\(Redaction.standard.url(url).isEmpty ? "an empty URL" : Redaction.standard.url(url)) is not an absolute http or https URL"
        }
        let host = rawHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if Self.isLoopback(host) { return nil }
        for allowed in allowedHosts {
            let pattern = allowed.lowercased()
            if pattern == host { return nil }
            if pattern.hasPrefix("*."), host.hasSuffix(pattern.dropFirst()) { return nil }
        }
        return "\(host) is not a loopback host and is not allowed for webhooks; allow it with `airlock serve --webhook-allow \(host)` "
            + "or webhookPolicy = WebhookPolicy(allowedHosts: [\"\(host)\"])"
    }

    /// `localhost`, `127.x.x.x` (also IPv4-mapped, `::ffff:127.0.0.1`), `::1`. Nothing that
    /// needs a name server (`*.localhost` may reach one) and no other spelling of an address.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let v4 = host.hasPrefix("::ffff:") ? String(host.dropFirst(7)) : host
        let parts = v4.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }
}

/// What became of one webhook a stub sent, as the journal keeps it with the request that
/// triggered it (``RecordedRequest/webhooks``).
public struct RecordedWebhook: Sendable, Hashable {
    /// How the webhook ended.
    public enum Outcome: Sendable, Hashable {
        /// The receiver answered with this status (any status, `2xx` or not).
        case answered(status: Int)
        /// It could not be sent, or no answer came: connection refused, a timeout, a bad URL.
        case failed(String)
        /// Airlock did not send it: its target is not allowed (see ``WebhookPolicy``).
        case refused(String)
    }

    /// The method sent.
    public let method: String
    /// The URL, with credentials hidden.
    public let url: String
    /// How it ended.
    public let outcome: Outcome
    /// When it was sent (or refused).
    public let date: Date
    /// The delay it waited after the response, in seconds.
    public let delay: TimeInterval
    /// How long from sending to its answer or failure, in seconds (0 when refused).
    public let duration: TimeInterval

    /// A recorded webhook.
    package init(method: String, url: String, outcome: Outcome, date: Date, delay: TimeInterval, duration: TimeInterval) {
        self.method = method
        self.url = url
        self.outcome = outcome
        self.date = date
        self.delay = delay
        self.duration = duration
    }

    /// The same record with its URL and its failure or refusal message rewritten (redacted).
    package func mapText(url: (String) -> String, message: (String) -> String) -> RecordedWebhook {
        let outcome: Outcome
        switch self.outcome {
        case .answered: outcome = self.outcome
        case .failed(let reason): outcome = .failed(message(reason))
        case .refused(let reason): outcome = .refused(message(reason))
        }
        return RecordedWebhook(method: method, url: url(self.url), outcome: outcome, date: date, delay: delay, duration: duration)
    }

    /// Whether the receiver answered with a `2xx` status.
    public var succeeded: Bool {
        if case .answered(let status) = outcome { return (200..<300).contains(status) }
        return false
    }

    /// The outcome in words: `200`, `failed: …`, `refused: …`.
    public var summary: String {
        switch outcome {
        case .answered(let status): "\(status)"
        case .failed(let reason): "failed: \(reason)"
        case .refused(let reason): "refused: \(reason)"
        }
    }
}
