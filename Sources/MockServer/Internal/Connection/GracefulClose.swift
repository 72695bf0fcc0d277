import NIOCore
import NIOHTTP1

/// The one way the server ends a connection after its last response without destroying it
/// (RFC 9112 §9.6, "Tear-down"): it closes the sending side once the writes queued before it
/// are out (the client reads the response, then end of file), and closes completely when the
/// client closes or after ``lingeringTimeout``. Closing at once with the client's bytes unread
/// (a body over the cap, bytes after a malformed request, pipelined requests after
/// `Connection: close`) would make the kernel send a reset instead, which can destroy the
/// response before the client reads it. Whatever the client still sends meanwhile is dropped by
/// the connection (its state machine is closing).
enum GracefulClose {
    /// How long a closing connection waits for the client to close its side before closing anyway.
    static let lingeringTimeout = TimeAmount.seconds(5)

    /// Closes the sending side of `channel` after the writes already queued, then the whole
    /// channel when the client closes or after ``lingeringTimeout``. The close passes through the
    /// whole pipeline, so that SwiftNIO's pipelining handler drops the requests it holds back.
    static func closeOutput(of channel: any Channel) {
        let outputClosed = channel.eventLoop.makePromise(of: Void.self)
        channel.close(mode: .output, promise: outputClosed)
        outputClosed.futureResult.whenFailure { _ in channel.close(promise: nil) }
        let deadline = channel.eventLoop.scheduleTask(in: lingeringTimeout) { channel.close(promise: nil) }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
    }

    /// Writes a response of the server's own as raw bytes from `context` (so below every handler
    /// behind it, the HTTP encoder among them), then closes as ``closeOutput(of:)`` does.
    static func writeRawThenClose(_ response: ByteBuffer, from context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(response), promise: nil)
        closeOutput(of: context.channel)
    }

    /// Writes a raw response on a channel with no pipeline of its own yet (a connection refused
    /// at the limit), then closes as ``closeOutput(of:)`` does.
    static func writeRawThenClose(_ response: ByteBuffer, on channel: any Channel) {
        channel.writeAndFlush(response, promise: nil)
        closeOutput(of: channel)
    }

    /// A complete `text/plain` response the HTTP encoder does not see: `HTTP/1.1 <status>`,
    /// `Content-Type`, `Content-Length`, `Connection: close`, `extraFields` (each `Name: value`),
    /// then `message`.
    static func rawResponse(status: String, message: String, extraFields: [String] = []) -> ByteBuffer {
        let fields = ["Content-Type: text/plain", "Content-Length: \(message.utf8.count)", "Connection: close"] + extraFields
        return ByteBuffer(string: "HTTP/1.1 \(status)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n" + message)
    }

    /// The context of the HTTP response encoder in `context`'s pipeline: bytes written from it
    /// pass below the encoder. `nil` when the pipeline has none.
    static func encoderContext(in context: ChannelHandlerContext) -> ChannelHandlerContext? {
        try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }
}
