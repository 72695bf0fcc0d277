import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` an `HTTPLogger` puts into a configuration: it records each request, sends
/// it on through the logger's forwarding session, logs the exchange, and relays the answer.
///
/// It cannot recurse into itself: the forwarding session is made from a configuration that does
/// not list it (and `URLSessionConfiguration.default` ignores globally registered protocols).
class LoggingURLProtocol: LoadingURLProtocol {
    /// The slot of the logger this class reports to; overridden by each slotted subclass.
    class var slot: Int { -1 }

    override func startLoading() {
        guard let logger = Directories.loggers.owner(at: Self.slot) else {
            let error = URLError(.unknown, message: "HTTPLogger: this session's HTTPLogger has been released.")
            if claimDelivery() { client?.urlProtocol(self, didFailWithError: error) }
            return
        }
        let started = Date()
        withRequestBody { loader, body in
            (loader as! LoggingURLProtocol).log(body: body, started: started, to: logger)
        }
    }

    private func log(body: Data?, started: Date, to owner: HTTPLogger) {
        guard var incoming = IncomingRequest(request) else {
            let error = URLError(.badURL, message: "HTTPLogger: the request has no URL with a host: \(request)")
            if claimDelivery() { client?.urlProtocol(self, didFailWithError: error) }
            return
        }
        incoming.body = body
        let sequence = owner.journal.record(incoming, at: started)
        let redaction = owner.redaction
        let method = incoming.method
        let url = redaction.url(incoming.url)
        let headers = incoming.headers
        owner.logger.debug(
            "→ \(method) \(url)",
            metadata: [
                "http.headers": .dictionary(
                    Dictionary(headers.map { ($0.name, .string(redaction.header($0.name, $0.value))) }, uniquingKeysWith: { $1 })
                ),
                "http.request.body.size": "\(body?.count ?? 0)",
            ]
        )
        forward(request, body: body, using: owner.forwardingSession) { data, response, error in
            let duration = Date().timeIntervalSince(started)
            let milliseconds = Int((duration * 1000).rounded())
            if let error {
                owner.journal.record(
                    RecordedResponse(status: nil, headers: [:], body: Data(), error: "\(error)", duration: duration),
                    forSequence: sequence
                )
                owner.logger.error(
                    "\(method) \(url) failed after \(milliseconds) ms: \(error.localizedDescription)",
                    metadata: ["http.method": "\(method)", "url.full": "\(url)", "http.duration_ms": "\(milliseconds)"]
                )
                return
            }
            let http = response as? HTTPURLResponse
            let status = http?.statusCode ?? 0
            let responseHeaders = http?.headerDictionary ?? [:]
            let bytes = data?.count ?? 0
            owner.journal.record(
                RecordedResponse(status: status, headers: responseHeaders, body: data ?? Data(), error: nil, duration: duration),
                forSequence: sequence
            )
            owner.logger.info(
                "\(method) \(url) → \(status), \(bytes) bytes, \(milliseconds) ms",
                metadata: [
                    "http.method": "\(method)",
                    "url.full": "\(url)",
                    "http.response.status_code": "\(status)",
                    "http.response.body.size": "\(bytes)",
                    "http.duration_ms": "\(milliseconds)",
                ]
            )
        }
    }
}
