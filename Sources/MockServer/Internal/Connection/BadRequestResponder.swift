import NIOCore
import NIOHTTP1

/// Answers a request SwiftNIO's parser rejects with `400 Bad Request` and a line saying why,
/// then lets the connection close — SwiftNIO's own `HTTPServerProtocolErrorHandler` does the
/// same with an empty body. It takes that handler's place in the pipeline, and like it answers
/// only when no other response is under way (the pipelining handler holds the error back until the
/// response in flight has ended). It asks the connection's state machine whether one is, rather
/// than watching every write go by: it sits on the read side only.
final class BadRequestResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connection: ServerConnection

    init(connection: ServerConnection) {
        self.connection = connection
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError, !connection.isAnswering {
            let message = "Airlock MockServer: bad request: \(Self.reason(error)). The connection is closed.\n"
            let headers = HTTPHeaders([("Connection", "close"), ("Content-Type", "text/plain"), ("Content-Length", "\(message.utf8.count)")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: message)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    /// What the parser found wrong, in a few words a client's developer can act on.
    static func reason(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "the request head is too large (at most 80 KiB of headers)"
        case .invalidHeaderToken, .invalidCharactersUsed: "a header name or value contains a character HTTP does not allow (RFC 9110 §5)"
        case .invalidVersion: "the HTTP version is not HTTP/1.0 or HTTP/1.1"
        case .invalidMethod: "the method is not a valid token"
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidPort, .invalidHost:
            "the request target is not a valid origin-form path or absolute URL"
        case .invalidContentLength: "Content-Length is not a single non-negative number"
        case .unexpectedContentLength: "the request has both Content-Length and Transfer-Encoding"
        case .invalidChunkSize: "a chunk size of the chunked body is not a hexadecimal number"
        case .invalidConstant, .lfExpected, .strictModeAssertion, .invalidStatus: "the request line or a header line is malformed (each ends with CRLF)"
        case .closedConnection, .invalidEOFState: "the connection closed in the middle of the request"
        case .trailingGarbage: "bytes follow the request where none may"
        case .invalidInternalState, .paused, .unknown: "the request is not valid HTTP/1.1"
        }
    }
}
