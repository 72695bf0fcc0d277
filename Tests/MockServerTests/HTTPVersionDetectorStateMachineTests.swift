@testable import MockServer
import NIOCore
import Testing

/// The choice between HTTP/1.1 and HTTP/2 on its own: events in, actions out, no channel.
struct HTTPVersionDetectorStateMachineTests {
    typealias Machine = HTTPVersionDetector.StateMachine

    static let preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    @Test func anHTTP1RequestIsHandedOnWithItsFirstRead() {
        var machine = Machine()
        let request = ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(machine.bytesArrived(request) == .serveHTTP1(request))
        #expect(machine.bytesArrived(ByteBuffer(string: "more")) == .none)
    }

    /// The preface decides HTTP/2; what arrives while its handlers are put in place is kept and
    /// handed over with the preface.
    @Test func thePrefaceAndWhatFollowsItServeHTTP2() {
        var machine = Machine()
        #expect(machine.bytesArrived(ByteBuffer(string: Self.preface + "frames")) == .switchToHTTP2)
        #expect(machine.bytesArrived(ByteBuffer(string: " and more")) == .wait)
        #expect(machine.switchedToHTTP2() == .handOverToHTTP2(ByteBuffer(string: Self.preface + "frames and more")))
        #expect(machine.bytesArrived(ByteBuffer(string: "later")) == .none)
        #expect(machine.switchedToHTTP2() == .none)
    }

    /// A preface that comes in pieces is kept until it is whole; a piece that differs decides
    /// HTTP/1.1 with everything kept.
    @Test(arguments: [1, 3, 16, 23])
    func aPrefaceInPiecesIsKeptUntilWhole(split: Int) {
        // Bytes, not characters: "\r\n" is one Character.
        let preface = Array(Self.preface.utf8)
        let head = Array(preface.prefix(split))
        var machine = Machine()
        #expect(machine.bytesArrived(ByteBuffer(bytes: head)) == .wait)
        #expect(machine.bytesArrived(ByteBuffer(bytes: preface.dropFirst(split))) == .switchToHTTP2)
        #expect(machine.switchedToHTTP2() == .handOverToHTTP2(ByteBuffer(bytes: preface)))

        var diverging = Machine()
        #expect(diverging.bytesArrived(ByteBuffer(bytes: head)) == .wait)
        #expect(diverging.bytesArrived(ByteBuffer(string: "X")) == .serveHTTP1(ByteBuffer(bytes: head + Array("X".utf8))))
    }

    /// `PRI` is an HTTP/1.1 method too: only the whole preface is HTTP/2.
    @Test func aRequestThatStartsLikeThePrefaceIsHTTP1() {
        var machine = Machine()
        let request = ByteBuffer(string: "PRI * HTTP/1.1\r\n\r\n")
        #expect(machine.bytesArrived(request) == .serveHTTP1(request))
    }

    @Test(arguments: [("h2", true), ("http/1.1", false)])
    func theProtocolALPNNegotiatedDecides(negotiated: String, isHTTP2: Bool) {
        var machine = Machine()
        #expect(machine.handshakeCompleted(negotiated: negotiated) == (isHTTP2 ? .switchToHTTP2 : .serveHTTP1(nil)))
        if isHTTP2 {
            #expect(machine.bytesArrived(ByteBuffer(string: Self.preface)) == .wait)
            #expect(machine.switchedToHTTP2() == .handOverToHTTP2(ByteBuffer(string: Self.preface)))
        } else {
            #expect(machine.bytesArrived(ByteBuffer(string: Self.preface)) == .none)
        }
    }

    @Test func withoutALPNTheBytesDecide() {
        var machine = Machine()
        #expect(machine.handshakeCompleted(negotiated: nil) == .wait)
        #expect(machine.bytesArrived(ByteBuffer(string: Self.preface)) == .switchToHTTP2)
    }

    @Test func inputEndingBeforeADecisionGoesToHTTP1() {
        var machine = Machine()
        #expect(machine.bytesArrived(ByteBuffer(string: "PRI")) == .wait)
        #expect(machine.inputEnded() == .serveHTTP1(ByteBuffer(string: "PRI")))
        #expect(machine.inputEnded() == .none)
    }
}
