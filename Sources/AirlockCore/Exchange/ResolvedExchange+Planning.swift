import AirlockBase
import Foundation

extension ResolvedExchange {
    /// Plans the delivery of what the registry decided, for `transport`: the one place where the
    /// unmocked policy turns into an action and a response into a status, headers, a body source,
    /// a dribble plan and a redirect rule.
    /// The diagnosis of an unmatched request is built here from the registry's snapshot, outside
    /// its lock, with `redaction` hiding what the messages may not show.
    init(_ decision: MockRegistry.Decision, request: IncomingRequest, transport: Transport<Kind>, redaction: Redaction) {
        switch decision {
        case .matched(let response, let stub, let recorder):
            self.init(response, stub: stub, recorder: recorder, request: request, transport: transport)
        case .record(let recorder):
            self.init(action: .forward(recording: true, target: nil), delay: 0, recorder: recorder, stub: nil, transport: transport)
        case .replayMiss(let recording, let snapshot, let recorder):
            let diagnosis = snapshot.diagnosis(redaction: redaction)
            self.init(replayMiss: recording, diagnosis: diagnosis, request: request, recorder: recorder, transport: transport)
        case .unmatched(let policy, let snapshot, let recorder):
            let message = snapshot?.diagnosis(redaction: redaction).render(transport.snippetStyle, showingStubs: transport.showsStubs)
                ?? "Airlock: no stub for \(request.method) \(Redaction.standard.url(request.url))"
            switch policy {
            case .notFound:
                self.init(.unmatched(message), stub: nil, recorder: recorder, request: request, transport: transport)
            case .mock(let response):
                self.init(response, stub: nil, recorder: recorder, request: request, transport: transport)
            case .passthrough:
                self.init(action: .forward(recording: false, target: nil), delay: 0, recorder: recorder, stub: nil, transport: transport)
            case .fatalError:
                if let stop = transport.stopping(message + "\n(unmockedPolicy is .fatalError)") {
                    self.init(action: .stop(stop), delay: 0, recorder: recorder, stub: nil, transport: transport)
                } else {
                    let failure = MockResponse.plaintext(
                        message + "\n(unmockedPolicy is .fatalError: a server answers 500 instead of stopping.)\n",
                        status: .internalServerError
                    )
                    self.init(failure, stub: nil, recorder: recorder, request: request, transport: transport)
                }
            }
        }
    }

    private init(_ stubbed: MockResponse, stub: StubDescription?, recorder: ExchangeRecorder, request: IncomingRequest, transport: Transport<Kind>) {
        var response = Self.computing(stubbed, stub: stub, recorder: recorder, request: request)
        if stub == nil || !response.isIdentical(to: stubbed), let (problem, fix) = ResponseLimits.problem(with: response) {
            // Registered stubs were checked when they were registered; what a closure, a template
            // or the unmocked policy makes is checked here, before a transport acts on it.
            response = Self.failure("\(problem). \(fix)", like: stubbed.with(lifetime: stubbed.lifetime, delivery: .instant))
        }
        let answer: Answer
        switch response.body {
        case .proxy(let proxy):
            let target = proxy.target(for: request)
            self.init(action: .forward(recording: false, target: target), delay: response.delivery.seconds, recorder: recorder, stub: stub, transport: transport)
            return
        case .error(let box):
            // A socket cannot carry a Swift error: the closest it can do is reset the connection.
            answer = transport.carry(box).map(Answer.fail) ?? .fault(.connectionReset)
        case .fault(let fault):
            answer = .fault(fault)
        case .computed:
            // A closure that returned another computed response: what it returns is served, never run.
            let name = stub.map { "stub \($0.shown(by: .standard))" } ?? "the unmocked policy's response"
            let problem = "the response closure of \(name) returned another computed response; return the response itself."
            answer = .respond(PlannedResponse(Self.failure(problem, like: response), redirect: nil))
        case .data, .file, .failure, .stream, .webSocket:
            answer = .respond(Self.planned(response, request: request))
        }
        self.init(action: .answer(answer), delay: response.delivery.seconds, recorder: recorder, stub: stub, transport: transport)
    }

    /// A response to send, with the redirect it asks for.
    private static func planned(_ response: MockResponse, request: IncomingRequest) -> PlannedResponse {
        let status = response.status.code
        let redirect = (300..<400).contains(status)
            ? RedirectRule(status: status, headers: response.headerFields, requestURL: request.url, requestMethod: request.method) : nil
        return PlannedResponse(response, redirect: redirect)
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
        return produced.inheriting(response.headers).with(lifetime: response.lifetime, delivery: delivery)
    }

    private static func failure(_ problem: String, like response: MockResponse) -> MockResponse {
        MockResponse(body: .failure(problem), contentType: nil, status: .internalServerError, lifetime: response.lifetime, delivery: response.delivery, headers: [:])
    }
}
