import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What a client saw of a streamed response: the head, and each body part with when it came.
struct ReceivedStream {
    var status = 0
    var headers = HTTPHeaders()
    var parts: [(text: String, at: Date)] = []
    /// When the request went out.
    var sent = Date()
    var text: String { parts.map(\.text).joined() }

    /// When each part arrived, in seconds after the request went out: a part can arrive late
    /// (a loaded machine reads two at once) but never before its pauses have passed.
    var arrivals: [TimeInterval] { parts.map { $0.at.timeIntervalSince(sent) } }
}

/// Reads a response with AsyncHTTPClient part by part; `onPart` sees each part (and its index) as
/// it comes, before the next is read.
func readStream(
    _ client: HTTPClient,
    _ url: String,
    method: HTTPMethod = .GET,
    headers: [(String, String)] = [],
    body: String? = nil,
    onPart: (Int, String) async throws -> Void = { _, _ in }
) async throws -> ReceivedStream {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(string: body)) }
    let sent = Date()
    let response = try await client.execute(request, timeout: hangGuard)
    var received = ReceivedStream(status: Int(response.status.code), headers: response.headers, sent: sent)
    for try await buffer in response.body {
        let text = String(buffer: buffer)
        received.parts.append((text, Date()))
        try await onPart(received.parts.count - 1, text)
    }
    return received
}
