import AirlockBase
import Foundation

extension ExchangeStateMachine {
    /// The exchange the registry decided, for `transport`: the one place where the unmocked
    /// policy turns into a plan, a computed response is made, and a response is checked and given
    /// its redirect rule.
    /// The diagnosis of an unmatched request is built here from the registry's snapshot, outside
    /// its lock, with `redaction` hiding what the messages may not show (read only then: a matched
    /// request never asks the journal for it).
    /// The webhooks of the stub that answered are decided here too: rendered for the request,
    /// their delays drawn, and each checked against `webhookPolicy` (read only when there is one).
    /// `encoding`: a transcoded request's (``Transcoding/encode``), through which every response
    /// the exchange sends goes onto the wire.
    init(
        _ decision: MockRegistry.Decision, request: IncomingRequest, transport: Transport<Kind>, redaction: @autoclosure () -> Redaction,
        webhookPolicy: @autoclosure () -> WebhookPolicy = .loopbackOnly, encoding: (@Sendable (MockResponse) -> MockResponse)? = nil
    ) {
        switch decision {
        case .matched(let response, let stub, let recorder):
            self.init(response, stub: stub, recorder: recorder, request: request, transport: transport, encoding: encoding)
            if !unplannedWebhooks.isEmpty {
                planWebhooks(for: request, policy: webhookPolicy(), redaction: redaction())
            }
        case .record(let recorder):
            self.init(.forward(recording: true, target: nil, failed: FailedForwardAnswer(encoding: encoding)), delay: 0, recorder: recorder, stub: nil, request: request, transport: transport)
        case .replayMiss(let recording, let snapshot, let recorder):
            let diagnosis = snapshot.diagnosis(redaction: redaction())
            self.init(replayMiss: recording, diagnosis: diagnosis, request: request, recorder: recorder, transport: transport, encoding: encoding)
        case .unmatched(let policy, let snapshot, let recorder):
            let message = snapshot?.diagnosis(redaction: redaction()).render(transport.snippetStyle, showingStubs: transport.showsStubs)
                ?? "Airlock: no stub for \(request.method) \(Redaction.standard.url(request.url))"
            switch policy {
            case .notFound:
                self.init(.unmatched(message), stub: nil, recorder: recorder, request: request, transport: transport, encoding: encoding)
            case .mock(let response):
                self.init(response, stub: nil, recorder: recorder, request: request, transport: transport, encoding: encoding)
            case .passthrough:
                self.init(.forward(recording: false, target: nil, failed: FailedForwardAnswer(encoding: encoding)), delay: 0, recorder: recorder, stub: nil, request: request, transport: transport)
            case .fatalError:
                if let stop = transport.stopping(message + "\n(unmockedPolicy is .fatalError)") {
                    self.init(.stop(stop), delay: 0, recorder: recorder, stub: nil, request: request, transport: transport)
                } else {
                    let failure = MockResponse.plaintext(
                        message + "\n(unmockedPolicy is .fatalError: a server answers 500 instead of stopping.)\n",
                        status: .internalServerError
                    )
                    self.init(failure, stub: nil, recorder: recorder, request: request, transport: transport, encoding: encoding)
                }
            }
        }
    }

    private init(
        _ stubbed: MockResponse, stub: StubDescription?, recorder: ExchangeRecorder, request: IncomingRequest, transport: Transport<Kind>,
        encoding: (@Sendable (MockResponse) -> MockResponse)?
    ) {
        var response = Self.computing(stubbed, stub: stub, recorder: recorder, request: request)
        // The stub's webhooks go after whatever it answers with — its body, a fault, a proxied
        // answer, or a failure to proxy — as WireMock's do; not after a refusal of what it made.
        var webhooks = response.webhooks
        if stub == nil || !response.isIdentical(to: stubbed), let (problem, fix) = ResponseLimits.problem(with: response) {
            // Registered stubs were checked when they were registered; what a closure, a template
            // or the unmocked policy makes is checked here, before a transport acts on it.
            response = Self.failure("\(problem). \(fix)", like: stubbed.with(lifetime: stubbed.lifetime, delivery: .instant))
            webhooks = []
        }
        if let encoding {
            // A transcoded request's answer, in its protocol's form on the wire (after the checks,
            // which read the stubs' form).
            response = encoding(response)
        }
        let plan: Plan
        switch response.body {
        case .proxy(let proxy):
            // The forwarded request is decided here, once, for every transport.
            switch proxy.forwarding(request, recorded: RecordedRequest(sequence: recorder.sequence, request: request, date: recorder.started)) {
            case .success(let target):
                plan = .forward(recording: false, target: target, failed: FailedForwardAnswer(encoding: encoding))
            case .failure(let problem):
                plan = .respond(Self.failure(problem.description, like: response, encoding: encoding), redirect: nil)
            }
        case .error(let box):
            // A socket cannot carry a Swift error: the closest it can do is reset the connection.
            plan = transport.carry(box).map { .failCarrying($0, recorded: .stubError(box.summary)) } ?? .fault(.connectionReset)
        case .fault(let fault):
            plan = .fault(fault)
        case .computed:
            // A closure that returned another computed response: what it returns is served, never run.
            let name = stub.map { "stub \($0.shown(by: .standard))" } ?? "the unmocked policy's response"
            let problem = "the response closure of \(name) returned another computed response; return the response itself."
            plan = .respond(Self.failure(problem, like: response, encoding: encoding), redirect: nil)
        case .data, .file, .failure, .stream, .webSocket:
            let status = response.status.code
            let redirect = transport.followsRedirects && (300..<400).contains(status)
                ? RedirectRule(status: status, headers: response.headerFields, requestURL: request.url, requestMethod: request.method) : nil
            plan = .respond(response, redirect: redirect)
        }
        self.init(plan, delay: response.delivery.seconds, recorder: recorder, stub: stub, request: request, transport: transport)
        unplannedWebhooks = webhooks
    }

    /// The response a computed one makes for this request — with the stub's own headers under
    /// its own, and the stub's delay when it has one — or, when the closure throws or returns
    /// another computed response, a failure that names the stub and the error.
    private static func computing(_ response: MockResponse, stub: StubDescription?, recorder: ExchangeRecorder, request: IncomingRequest) -> MockResponse {
        guard case .computed(let computation) = response.body else { return response }
        let name = stub.map { "stub \($0.shown(by: .standard))" } ?? "the unmocked policy's response"
        let recorded = RecordedRequest(sequence: recorder.sequence, request: request, date: recorder.started)
        let produced: MockResponse
        do {
            produced = try computation.make(recorded)
        } catch {
            return failure("the response closure of \(name) threw: \(error). Return a MockResponse, or MockResponse.error(…) to fail the request on purpose.", like: response)
        }
        let delivery = response.delivery.seconds > 0 ? response.delivery : produced.delivery
        var made = produced.inheriting(response.headers).with(lifetime: response.lifetime, delivery: delivery)
        // The stub's trailers, unless what it made has its own.
        if made.trailerFields.isEmpty, !response.trailerFields.isEmpty { made = made.with(trailerFields: response.trailerFields) }
        // The stub's webhooks go after what its closure (or template) made.
        return response.webhooks.isEmpty ? made : made.with(webhooks: response.webhooks + made.webhooks)
    }

    /// Renders the stub's webhooks for the request and keeps those the policy allows for the
    /// answer's end (the response's last write, a fault, or the end of a proxied answer); a
    /// refused one is recorded, and reported to a network guard (Airgap), at once.
    private mutating func planWebhooks(for request: IncomingRequest, policy: WebhookPolicy, redaction: Redaction) {
        let sources = unplannedWebhooks
        unplannedWebhooks = []
        let recorder = self.recorder
        let recorded = RecordedRequest(sequence: recorder.sequence, request: request, date: recorder.started)
        var allowed: [WebhookRequest] = []
        for webhook in sources {
            let planned = webhook.rendered(for: recorded)
            if let reason = policy.refusal(of: planned.url) {
                RefusedRequests.report(method: planned.method, url: redaction.url(planned.url))
                recorder.record(
                    RecordedWebhook(method: planned.method, url: redaction.url(planned.url), outcome: .refused(reason), date: Date(), delay: planned.delay, duration: 0)
                )
            } else if let problem = planned.problem {
                recorder.record(
                    RecordedWebhook(method: planned.method, url: redaction.url(planned.url), outcome: .failed(problem), date: Date(), delay: planned.delay, duration: 0)
                )
            } else {
                allowed.append(planned)
            }
        }
        webhooks = allowed
    }

    private static func failure(_ problem: String, like response: MockResponse) -> MockResponse {
        MockResponse(body: .failure(problem), contentType: nil, status: .internalServerError, lifetime: response.lifetime, delivery: response.delivery, headers: [:])
    }

    /// ``failure(_:like:)``, through a transcoded request's encoding.
    private static func failure(_ problem: String, like response: MockResponse, encoding: (@Sendable (MockResponse) -> MockResponse)?) -> MockResponse {
        let failure = failure(problem, like: response)
        return encoding.map { $0(failure) } ?? failure
    }

    /// Plans a replay miss: a request that a recording which does not record (a cassette) has no
    /// entry for.
    ///
    /// The miss is kept by the recording (for the test frameworks to report) and the client
    /// gets an answer it cannot take for the service's: a transport that carries errors fails the
    /// request with `URLError(.resourceUnavailable)` whose message is the diagnosis; a socket
    /// answers `502 Bad Gateway` with `Airlock-Error: replay-miss` and the diagnosis as text.
    private init(
        replayMiss recording: any UnmatchedRequestHandler, diagnosis: UnmatchedDiagnosis, request: IncomingRequest, recorder: ExchangeRecorder, transport: Transport<Kind>,
        encoding: (@Sendable (MockResponse) -> MockResponse)?
    ) {
        let message = diagnosis.render(transport.snippetStyle, showingStubs: transport.showsStubs)
        // The test that owns the recording may see the nearest entries even when the client may not.
        let report = transport.showsStubs ? message : diagnosis.render(transport.snippetStyle)
        recording.recordMiss(request: diagnosis.request, message: report)
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url = URL(string: request.url) {
            userInfo[NSURLErrorFailingURLErrorKey] = url
        }
        let plan: Plan
        if let error = transport.carry(MockResponse.ErrorBox(URLError(.resourceUnavailable, userInfo: userInfo))) {
            plan = .failCarrying(error, recorded: .replayMiss(message))
        } else {
            plan = .respond(encoding.map { $0(.replayMiss(message)) } ?? .replayMiss(message), redirect: nil)
        }
        self.init(plan, delay: 0, recorder: recorder, stub: nil, request: request, transport: transport)
    }
}

extension MockResponse.ErrorBox: CarriedFailure {
    /// How the journal names the failure: the message a `URLError` was given, or the error as
    /// Swift prints it.
    package var summary: String {
        (error as? URLError)?.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
    }
}

/// What a socket answers for a replay miss: `502 Bad Gateway` — the server stands in for the
/// recorded service and has no answer from it — with `Airlock-Error: replay-miss` and the
/// diagnosis as text. Not a 404, which a client may take for the service saying "no such
/// resource" and carry on.
package enum ReplayMissResponse {
    /// The field that marks the answer.
    package static let header = (name: "Airlock-Error", value: "replay-miss")
}

extension MockResponse {
    static func replayMiss(_ message: String) -> MockResponse {
        MockResponse(
            body: .data(Data((message + "\n").utf8)),
            contentType: "text/plain",
            status: .badGateway,
            lifetime: .single,
            delivery: .instant,
            headers: [ReplayMissResponse.header.name: ReplayMissResponse.header.value]
        )
    }
}
