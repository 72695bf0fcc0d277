@testable import MockServer
import NIOCore
import NIOHTTP1
import Testing

/// The connection's state machine on its own: events in, each event's own action out, no channel
/// and no clock but the `now` each event carries.
struct ServerConnectionStateMachineTests {
    typealias Machine = ServerConnection.StateMachine

    private let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    /// Header timeout 2 s, idle timeout 10 s, bodies of at most 8 bytes.
    private func machine() -> Machine {
        Machine(limits: .init(.init(headerTimeout: 2, idleTimeout: 10), maxBodySize: 8), now: start)
    }

    private func head(_ method: HTTPMethod = .POST, contentLength: Int? = nil) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: "/x")
        head.headers.add(name: "Host", value: "a.test")
        if let contentLength { head.headers.add(name: "Content-Length", value: "\(contentLength)") }
        return head
    }

    @Test func aNewConnectionIsIdleAndArmsTheIdleDeadline() {
        var machine = machine()
        #expect(machine.idleSince == start)
        #expect(machine.activated(now: start) == .armTimer(at: start + .seconds(10)))
        // The timer is set for that deadline already: reads that change nothing arm nothing.
        #expect(machine.readProcessed() == .none)
    }

    @Test func theFirstByteEndsIdlenessAndSetsTheHeaderDeadline() {
        var machine = machine()
        _ = machine.activated(now: start)
        #expect(machine.bytesArrived(now: start + .seconds(1)) == .forward)
        #expect(machine.state == .readingHead(deadline: start + .seconds(3)))
        #expect(machine.idleSince == nil)
        // Sooner than the idle deadline the timer waits for: it moves.
        #expect(machine.readProcessed() == .armTimer(at: start + .seconds(3)))
        // More bytes of the head do not move the deadline, however slowly they trickle.
        #expect(machine.bytesArrived(now: start + .seconds(2)) == .forward)
        #expect(machine.state == .readingHead(deadline: start + .seconds(3)))
    }

    @Test func aHeadThatDoesNotArriveInTimeGets408NamingTheLimitAndTheOption() {
        var machine = machine()
        _ = machine.activated(now: start)
        _ = machine.bytesArrived(now: start)
        _ = machine.readProcessed()
        #expect(machine.timerFired(now: start + .seconds(2)) == .answerTimeout(message:
            "Airlock MockServer: the request head did not arrive within 2 s of its first byte; the connection is closed. "
            + "(Limits: MockServer.ConnectionLimits, or airlock serve --header-timeout.)\n"))
        #expect(machine.isClosing)
        // What the client still sends is dropped, and the closing connection counts as idle.
        #expect(machine.bytesArrived(now: start + .seconds(3)) == .drop)
        #expect(machine.headReceived(head(), now: start + .seconds(3)) == .drop)
        #expect(machine.idleSince == start + .seconds(2))
    }

    @Test func aTimerThatFiresBeforeTheDeadlineWaitsForIt() {
        var machine = machine()
        _ = machine.activated(now: start)
        _ = machine.bytesArrived(now: start)
        _ = machine.readProcessed()
        #expect(machine.headReceived(head(contentLength: 4), now: start + .seconds(1)) == .none)
        // Receiving: the deadline is the idle timeout from the last bytes, later than the timer.
        #expect(machine.bytesArrived(now: start + .seconds(1)) == .forward)
        #expect(machine.readProcessed() == .none)
        #expect(machine.timerFired(now: start + .seconds(2)) == .armTimer(at: start + .seconds(11)))
        #expect(machine.armedTimer == start + .seconds(11))
    }

    @Test func aBodyThatPausesLongerThanTheIdleTimeoutGets408() {
        var machine = machine()
        _ = machine.bytesArrived(now: start)
        _ = machine.headReceived(head(contentLength: 4), now: start)
        _ = machine.bytesArrived(now: start + .seconds(5))
        #expect(machine.timerFired(now: start + .seconds(14)) == .armTimer(at: start + .seconds(15)))
        #expect(machine.timerFired(now: start + .seconds(15)) == .answerTimeout(message:
            "Airlock MockServer: the request body paused for more than 10 s; the connection is closed. "
            + "(Limits: MockServer.ConnectionLimits, or airlock serve --idle-timeout.)\n"))
    }

    @Test func aCompleteRequestIsDeliveredWithItsBodyAndNothingIsTimedWhileItIsAnswered() {
        var machine = machine()
        _ = machine.activated(now: start)
        _ = machine.bytesArrived(now: start)
        let request = head(contentLength: 6)
        #expect(machine.headReceived(request, now: start) == .none)
        #expect(machine.bodyReceived(ByteBuffer(string: "abc")) == .none)
        #expect(machine.bodyReceived(ByteBuffer(string: "def")) == .none)
        #expect(machine.endReceived() == .deliver(request, body: ByteBuffer(string: "abcdef")))
        #expect(machine.state == .answering)
        #expect(machine.deadline == nil)
        #expect(machine.idleSince == nil)
        // A response delayed for an hour is not cut short.
        #expect(machine.timerFired(now: start + .hours(1)) == .none)
        #expect(machine.state == .answering)
    }

    @Test func aBodyOverTheCapIsRejectedWhetherDeclaredOrGrowing() {
        var declared = machine()
        let tooLarge = head(contentLength: 9)
        #expect(declared.headReceived(tooLarge, now: start) == .rejectOversizedBody(tooLarge, limit: 8))

        var growing = machine()
        let chunked = head()
        #expect(growing.headReceived(chunked, now: start) == .none)
        #expect(growing.bodyReceived(ByteBuffer(string: "12345")) == .none)
        #expect(growing.bodyReceived(ByteBuffer(string: "6789")) == .rejectOversizedBody(chunked, limit: 8))
        // The 413 closes the connection.
        #expect(growing.responseEnding(keepAlive: false, now: start) == .closeGracefully)
        #expect(growing.bodyReceived(ByteBuffer(string: "x")) == .drop)
        #expect(growing.endReceived() == .drop)
    }

    @Test func aKeepAliveResponseMakesTheConnectionIdleAgain() {
        var machine = machine()
        _ = machine.activated(now: start)
        _ = machine.bytesArrived(now: start)
        _ = machine.readProcessed()
        _ = machine.headReceived(head(.GET), now: start)
        _ = machine.endReceived()
        // The timer still waits for the header deadline (3 s), sooner than the new idle one.
        #expect(machine.responseEnding(keepAlive: true, now: start + .seconds(1)) == .none)
        #expect(machine.idleSince == start + .seconds(1))
        #expect(machine.timerFired(now: start + .seconds(2)) == .armTimer(at: start + .seconds(11)))
        #expect(machine.timerFired(now: start + .seconds(11)) == .close)
    }

    @Test func aPipelinedRequestWhoseBytesArrivedWhileAnsweringIsTimedFromItsHead() {
        var machine = machine()
        _ = machine.bytesArrived(now: start)
        _ = machine.headReceived(head(.GET), now: start)
        _ = machine.endReceived()
        // The next request's bytes arrive while the first is answered: nothing changes.
        #expect(machine.bytesArrived(now: start + .seconds(1)) == .forward)
        #expect(machine.state == .answering)
        _ = machine.responseEnding(keepAlive: true, now: start + .seconds(2))
        let second = head(.GET)
        #expect(machine.headReceived(second, now: start + .seconds(2)) == .none)
        #expect(machine.endReceived() == .deliver(second, body: nil))
    }

    @Test func aConnectionClosesGracefullyOnceWhateverAsksForIt() {
        var machine = machine()
        _ = machine.activated(now: start)
        #expect(machine.closeRequested(now: start + .seconds(1)) == .closeGracefully)
        #expect(machine.closeRequested(now: start + .seconds(2)) == .none)
        #expect(machine.responseEnding(keepAlive: false, now: start + .seconds(2)) == .none)
        #expect(machine.activated(now: start + .seconds(2)) == .none)
        #expect(machine.deadline == nil)
        #expect(machine.timerFired(now: start + .seconds(30)) == .none)
    }

    @Test func anAcceptedConnectMakesTheConnectionATunnelThatServesRequests() {
        var machine = machine()
        let connect = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: "api.example.com:80")
        _ = machine.bytesArrived(now: start)
        _ = machine.headReceived(connect, now: start)
        #expect(machine.endReceived() == .deliver(connect, body: nil))
        machine.tunnelOpened()
        #expect(machine.responseEnding(keepAlive: true, now: start) == .armTimer(at: start + .seconds(10)))
        #expect(machine.isTunnel)
        #expect(machine.bytesArrived(now: start + .seconds(1)) == .forward)
        #expect(machine.state == .readingHead(deadline: start + .seconds(3)))
    }

    @Test func limitsInFractionsOfASecondAreNamedAsGiven() {
        var machine = Machine(limits: .init(.init(headerTimeout: 0.5, idleTimeout: 10), maxBodySize: 8), now: start)
        _ = machine.bytesArrived(now: start)
        guard case .answerTimeout(let message) = machine.timerFired(now: start + .milliseconds(500)) else {
            Issue.record("no 408 at the header deadline")
            return
        }
        #expect(message.contains("within 0.5 s of its first byte"))
    }
}
