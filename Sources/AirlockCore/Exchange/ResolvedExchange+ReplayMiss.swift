import AirlockBase
import Foundation

extension ResolvedExchange {
    /// Plans a replay miss: a request that a recording which does not record (a cassette) has no
    /// entry for.
    ///
    /// The miss is kept by the recording (for the test frameworks to report) and the client
    /// gets an answer it cannot take for the service's: a transport that carries errors fails the
    /// request with `URLError(.resourceUnavailable)` whose message is the diagnosis; a socket
    /// answers `502 Bad Gateway` with `Airlock-Error: replay-miss` and the diagnosis as text.
    init(replayMiss recording: any UnmatchedRequestHandler, diagnosis: UnmatchedDiagnosis, request: IncomingRequest, recorder: ExchangeRecorder, transport: Transport<Kind>) {
        let message = diagnosis.render(transport.snippetStyle, showingStubs: transport.showsStubs)
        // The test that owns the recording may see the nearest entries even when the client may not.
        let report = transport.showsStubs ? message : diagnosis.render(transport.snippetStyle)
        recording.recordMiss(request: diagnosis.request, message: report)
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url = URL(string: request.url) {
            userInfo[NSURLErrorFailingURLErrorKey] = url
        }
        let answer: Answer
        if let error = transport.carry(MockResponse.ErrorBox(URLError(.resourceUnavailable, userInfo: userInfo))) {
            answer = .fail(error)
        } else {
            answer = .respond(.replayMiss(message))
        }
        self.init(action: .answer(answer), delay: 0, recorder: recorder, stub: nil, transport: transport)
    }
}

extension MockResponse.ErrorBox: CarriedFailure {
    /// How the journal names the failure: the message a `URLError` was given, or the error as
    /// Swift prints it.
    package var summary: String {
        (error as? URLError)?.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
    }
}

extension PlannedResponse {
    /// What a socket answers for a replay miss: `502 Bad Gateway` — the server stands in for the
    /// recorded service and has no answer from it — with `Airlock-Error: replay-miss` and the
    /// diagnosis as text. Not a 404, which a client may take for the service saying "no such
    /// resource" and carry on.
    package static let replayMissHeader = (name: "Airlock-Error", value: "replay-miss")

    static func replayMiss(_ message: String) -> PlannedResponse {
        let body = Data((message + "\n").utf8)
        let response = MockResponse(
            body: .data(body),
            contentType: "text/plain",
            status: .badGateway,
            lifetime: .single,
            delivery: .instant,
            headers: [Self.replayMissHeader.name: Self.replayMissHeader.value]
        )
        return PlannedResponse(response, redirect: nil)
    }
}
