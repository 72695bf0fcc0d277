import NIOCore
import NIOHTTP2

/// Ends an HTTP/2 connection on which an error surfaced, last in the connection's pipeline —
/// unless the error was a malformed request, which ends only its stream.
///
/// SwiftNIO's `NIOHTTP2Handler` answers a client that breaks HTTP/2's rules on the connection (a
/// frame too large, bytes that are no frame, a bad preface) with `GOAWAY` and the error code, then
/// reports the error and leaves closing to its user: this handler closes the connection
/// gracefully (``GracefulClose``: the `GOAWAY` goes out first), once, and leaves.
///
/// A malformed request (RFC 9113 §8.1.1: a forbidden, uppercase or repeated field, a bad
/// pseudo-header, a body unlike its `content-length`) is a stream error: `NIOHTTP2Handler` resets
/// that stream (`RST_STREAM` `PROTOCOL_ERROR`) and reports it here too, and the connection goes
/// on, its other streams answered. Ending the connection for it would cut those streams short
/// with no `GOAWAY` to tell the client which of its requests were served. A client that keeps
/// sending malformed requests is stopped by SwiftNIO's limit on stream errors (`GOAWAY`
/// `ENHANCE_YOUR_CALM`, which is reported here and closes the connection).
final class HTTP2ConnectionErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !Self.isMalformedRequest(error) else { return }
        GracefulClose.closeOutput(of: context.channel)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Whether `error` is one SwiftNIO raises for a malformed request: a stream error it has
    /// answered with `RST_STREAM` already. Any other error (a connection error, or one this list
    /// does not know) ends the connection.
    static func isMalformedRequest(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.ForbiddenHeaderField, is NIOHTTP2Errors.InvalidHTTP2HeaderFieldName,
            is NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue, is NIOHTTP2Errors.PseudoHeaderAfterRegularHeader,
            is NIOHTTP2Errors.InvalidPseudoHeaders, is NIOHTTP2Errors.EmptyPathHeader, is NIOHTTP2Errors.InvalidPseudoHeaderValue,
            is NIOHTTP2Errors.UnknownPseudoHeader, is NIOHTTP2Errors.UnsupportedPseudoHeader, is NIOHTTP2Errors.DuplicatePseudoHeader,
            is NIOHTTP2Errors.ContentLengthViolated, is NIOHTTP2Errors.ContentLengthHeaderMalformedValue,
            is NIOHTTP2Errors.ContentLengthHeaderNegative, is NIOHTTP2Errors.ContentLengthHeadersMismatch:
            true
        default:
            false
        }
    }
}
