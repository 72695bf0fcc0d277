import Foundation

extension ResolvedExchange {
    /// Plans a replay miss: a request that a cassette which does not record has no entry for.
    ///
    /// The miss is kept in ``Cassette/misses`` (for the test frameworks to report) and the client
    /// gets an answer it cannot take for the service's: a transport that carries errors fails the
    /// request with `URLError(.resourceUnavailable)` whose message is the diagnosis; a socket
    /// answers `502 Bad Gateway` with `Airlock-Error: replay-miss` and the diagnosis as text.
    init(replayMiss cassette: Cassette, diagnosis: UnmatchedDiagnosis, request: IncomingRequest, recorder: ExchangeRecorder, transport: Transport) {
        let message = diagnosis.render(transport.snippetStyle, showingStubs: transport.showsStubs)
        // The test that owns the cassette may see the nearest entries even when the client may not.
        let report = transport.showsStubs ? message : diagnosis.render(transport.snippetStyle)
        cassette.recordMiss(Cassette.Miss(request: diagnosis.request, message: report))
        let action: Action
        if transport.carriesErrors {
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
            if let url = URL(string: request.url) {
                userInfo[NSURLErrorFailingURLErrorKey] = url
            }
            action = .fail(ErrorBox(error: URLError(.resourceUnavailable, userInfo: userInfo)))
        } else {
            action = .respond(PlannedResponse(.replayMiss(message), redirect: nil))
        }
        self.init(action: action, delay: 0, recorder: recorder, stub: nil, transport: transport)
    }
}

extension ResolvedExchange.ErrorBox {
    /// How the journal names the failure: the message a `URLError` was given, or the error as
    /// Swift prints it.
    package var summary: String {
        (error as? URLError)?.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
    }
}

extension MockResponse {
    /// What a socket answers for a replay miss: `502 Bad Gateway` — the server stands in for the
    /// recorded service and has no answer from it — with `Airlock-Error: replay-miss` and the
    /// diagnosis as text. Not a 404, which a client may take for the service saying "no such
    /// resource" and carry on.
    package static func replayMiss(_ message: String) -> MockResponse {
        .plaintext(message + "\n", status: .badGateway, headers: [Cassette.Miss.errorHeader: Cassette.Miss.errorHeaderValue])
    }
}
