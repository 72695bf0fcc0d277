import AirlockBase
import NIOCore
import NIOHTTP2

/// Watches an HTTP/2 connection's streams: publishes whether the connection is idle (no stream
/// open) to the server's ``ConnectionActivity`` — the server closes the connection idle the
/// longest to make room for a new one — and closes a connection that has had no open stream for
/// the idle timeout: `GOAWAY` (`NO_ERROR`, naming the last stream it served), then
/// ``GracefulClose``. What HTTP/1.1's ``ServerConnection`` does between requests, for a
/// connection whose requests are streams.
///
/// `NIOHTTP2Handler` tells it of each stream through its ``StreamDelegate``. It sits behind that
/// handler, on the connection's event loop; its timer starts when it joins the pipeline (the
/// connection has no stream yet).
final class HTTP2IdleHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let idleTimeout: TimeAmount
    private let activity: ConnectionActivity
    private var context: ChannelHandlerContext?
    private var openStreams = 0
    /// The newest stream the client opened: what the `GOAWAY` says was served.
    private var lastStream = HTTP2StreamID.rootStream
    private var timer: Scheduled<Void>?

    init(idleTimeout: TimeAmount, activity: ConnectionActivity) {
        self.idleTimeout = idleTimeout
        self.activity = activity
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        activity.idleSince.withLock { $0 = context.eventLoop.now }
        arm()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    private func streamOpened(_ id: HTTP2StreamID) {
        lastStream = max(lastStream, id)
        openStreams += 1
        guard openStreams == 1 else { return }
        timer?.cancel()
        timer = nil
        activity.idleSince.withLock { $0 = nil }
    }

    private func streamClosed() {
        openStreams -= 1
        guard openStreams == 0, let context else { return }
        activity.idleSince.withLock { $0 = context.eventLoop.now }
        arm()
    }

    private func arm() {
        guard let eventLoop = context?.eventLoop else { return }
        timer?.cancel()
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        timer = eventLoop.scheduleTask(in: idleTimeout) { handler.value.idleTimedOut() }
    }

    private func idleTimedOut() {
        timer = nil
        guard let context, openStreams == 0 else { return }
        let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStream, errorCode: .noError, opaqueData: nil))
        context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
        GracefulClose.closeOutput(of: context.channel)
    }

    /// What `NIOHTTP2Handler` calls as streams open and close (on the connection's event loop),
    /// passed on to the handler.
    struct StreamDelegate: NIOHTTP2StreamDelegate {
        let handler: NIOLoopBound<HTTP2IdleHandler>

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
            handler.value.streamOpened(id)
        }

        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
            handler.value.streamClosed()
        }
    }
}
