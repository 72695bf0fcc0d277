import AirlockBase
import Foundation

extension Redaction {
    /// A response body with its secrets hidden, also when it is still in its content coding: a
    /// gzip or deflate body is decoded and redacted. When nothing in it is secret the bytes stay
    /// exactly as received (still encoded); when something is, the redacted body is kept decoded
    /// (the file then says so, and a replay sends it without the coding). A body in a coding
    /// Airlock cannot read (`br`, `zstd`) is kept as it is.
    /// - Parameters:
    ///   - response: The recorded response.
    ///   - contentType: Its `Content-Type`.
    ///   - redact: The redaction of a decoded body.
    /// - Returns: The body to keep and whether it is still encoded.
    func redactedBody(of response: RecordedResponse, contentType: String?, redact: (Data) -> Data) -> (body: Data, isEncoded: Bool) {
        guard response.bodyIsEncoded else { return (redact(response.body), false) }
        guard let coding = response.headerFields.contentCoding, let decoded = ContentCoding.decode(response.body, coding: coding) else {
            return (response.body, true)
        }
        let redacted = redact(decoded)
        return redacted == decoded ? (response.body, true) : (redacted, false)
    }
}
