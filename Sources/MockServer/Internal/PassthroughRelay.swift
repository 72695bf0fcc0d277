import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Sends an unmatched request to its real host through the ``Forwarder`` (the `.passthrough`
/// policy, and recording), records the outcome, and turns it into the answer the client gets:
/// the real host's response as received, or a `502` saying why forwarding failed.
struct PassthroughRelay {
    /// What the client is sent.
    struct Answer: Sendable {
        let status: Int
        let headers: HTTPFields
        let body: Data
    }

    let forwarder: Forwarder
    /// The largest response body accepted from the real host, in bytes.
    let limit: Int

    /// Forwards `incoming` (whose head the client sent as `head`) and completes on `eventLoop`
    /// with the answer, once the recorder has it.
    ///
    /// - Parameter recording: Whether a recording cassette keeps the exchange: the real host is
    ///   then offered only the content codings Airlock reads, so that secrets can be redacted.
    /// - Parameter target: The URL to send it to instead of its own (a stub that proxies).
    func relay(
        _ incoming: IncomingRequest,
        to target: String? = nil,
        head: HTTPRequestHead,
        recording: Bool,
        recorder: ExchangeRecorder,
        on eventLoop: any EventLoop
    ) -> EventLoopFuture<Answer> {
        var fields: [(name: String, value: String)] = []
        for field in head.headers where !Self.hopByHop.contains(field.name.lowercased()) {
            if recording, field.name.lowercased() == "accept-encoding" {
                fields.append((field.name, ContentCoding.readable(acceptEncoding: field.value)))
                continue
            }
            fields.append((field.name, field.value))
        }
        let url = target ?? incoming.url
        return forwarder.execute(method: head.method, url: url, headers: fields, body: incoming.body, limit: limit, timeout: .seconds(60))
            .hop(to: eventLoop)
            .map { response in
                // Every field in order, repeated ones apart; the body as received (still in any
                // content coding the server applied), so the client gets what the server sent.
                let headers = HTTPFields(pairs: response.headers.lazy
                    .filter { !Self.hopByHop.contains($0.name.lowercased()) && $0.name.lowercased() != "content-length" }
                    .map { (name: $0.name, value: $0.value) })
                let body = Data(response.body.readableBytesView)
                let status = Int(response.status.code)
                recorder.record(.response(status: status), headers: headers, body: body, bodyIsEncoded: true)
                return Answer(status: status, headers: headers, body: body)
            }
            .recover { error in
                let message = "Airlock: passthrough to \(url) failed: \(error)\n"
                recorder.record(.failure(message))
                return Answer(status: 502, headers: [.contentType: "text/plain"], body: Data(message.utf8))
            }
    }

    /// Connection-level fields that a proxy does not pass on.
    private static let hopByHop: Set<String> = ["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"]
}
