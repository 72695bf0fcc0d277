import AirlockCore
import Foundation
@testable import MockServer
import NIOCore
import NIOWebSocket
import Testing

/// The relayed WebSocket's state machine on its own: events in, each event's own action out, no
/// channel.
struct WebSocketRelayStateMachineTests {
    typealias Machine = WebSocketRelay.StateMachine

    private let date = Date(timeIntervalSince1970: 1_000)
    private let opening = RecordedResponse(status: 101, headerFields: [:], body: Data())

    private func text(_ string: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: string))
    }

    private func close(_ code: UInt16, _ reason: String = "") -> WebSocketFrame {
        var data = ByteBuffer()
        data.writeInteger(code)
        data.writeString(reason)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    private func recorded(_ string: String, fromClient: Bool) -> RecordedWebSocketFrame {
        RecordedWebSocketFrame(direction: fromClient ? .fromClient : .toClient, content: .message(.text(string)), date: date)
    }

    @Test func framesTheUpstreamSendsBeforeTheClientIsInPlaceWaitAndThenGoFirst() {
        var machine = Machine(limit: 1 << 20, keepsConversation: true)
        #expect(machine.frameReceived(text("hello"), fromClient: false, at: date) == .hold)
        #expect(machine.frameReceived(text("again"), fromClient: false, at: date) == .hold)
        let opened = machine.clientOpened(opening)
        #expect(opened.early.map { String(buffer: $0.unmaskedData) } == ["hello", "again"])
        #expect(!opened.closeBoth)
        // Relayed now, in order: recorded as they pass.
        #expect(machine.frameReceived(opened.early[0], fromClient: false, at: date) == .relay(journal: recorded("hello", fromClient: false), closeBoth: false))
    }

    @Test func anUpstreamThatClosedBeforeTheClientWasInPlaceClosesBothOnceItIs() {
        var machine = Machine(limit: 1 << 20, keepsConversation: true)
        #expect(machine.frameReceived(text("bye"), fromClient: false, at: date) == .hold)
        guard case .closeOther = machine.sideClosed(fromClient: false) else { Issue.record("the upstream's close records nothing yet"); return }
        let opened = machine.clientOpened(opening)
        #expect(opened.early.count == 1 && opened.closeBoth)
    }

    @Test func bothConnectionsCloseOnceBothSidesSentACloseFrameAndTheFirstCloseRecords() {
        var machine = Machine(limit: 1 << 20, keepsConversation: true)
        _ = machine.clientOpened(opening)
        #expect(machine.frameReceived(text("hi"), fromClient: true, at: date) == .relay(journal: recorded("hi", fromClient: true), closeBoth: false))
        let clientClose = RecordedWebSocketFrame(direction: .fromClient, content: .close(code: 1000, reason: "done"), date: date)
        #expect(machine.frameReceived(close(1000, "done"), fromClient: true, at: date) == .relay(journal: clientClose, closeBoth: false))
        let upstreamClose = RecordedWebSocketFrame(direction: .toClient, content: .close(code: 1000, reason: ""), date: date)
        #expect(machine.frameReceived(close(1000), fromClient: false, at: date) == .relay(journal: upstreamClose, closeBoth: true))
        guard case .closeOtherAndRecord(let response, let frames) = machine.sideClosed(fromClient: true) else {
            Issue.record("the first close hands the conversation over"); return
        }
        #expect(response.status == 101)
        #expect(frames == [recorded("hi", fromClient: true), clientClose, upstreamClose])
        // Handed over once: the other side's close only closes.
        guard case .closeOther = machine.sideClosed(fromClient: false) else { Issue.record("recorded twice"); return }
    }

    @Test func pingsPassUnrecordedAndReservedOpcodesAreDropped() {
        var machine = Machine(limit: 1 << 20, keepsConversation: true)
        _ = machine.clientOpened(opening)
        #expect(machine.frameReceived(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()), fromClient: true, at: date) == .relay(journal: nil, closeBoth: false))
        #expect(machine.frameReceived(WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer()), fromClient: true, at: date) == .drop)
    }

    @Test func aConversationPastTheLimitIsRelayedAndJournaledButNotRecorded() {
        var machine = Machine(limit: 8, keepsConversation: true)
        _ = machine.clientOpened(opening)
        #expect(machine.frameReceived(text("12345"), fromClient: true, at: date) == .relay(journal: recorded("12345", fromClient: true), closeBoth: false))
        #expect(machine.frameReceived(text("67890"), fromClient: false, at: date) == .relay(journal: recorded("67890", fromClient: false), closeBoth: false))
        guard case .closeOtherOverLimit = machine.sideClosed(fromClient: false) else { Issue.record("over the limit: not recorded"); return }
    }

    @Test func withoutARecordingCassetteNoFrameIsKeptForOne() {
        var machine = Machine(limit: 8, keepsConversation: false)
        _ = machine.clientOpened(opening)
        _ = machine.frameReceived(text("far more than eight bytes"), fromClient: true, at: date)
        guard case .closeOtherAndRecord(_, let frames) = machine.sideClosed(fromClient: true) else { Issue.record("no limit passed"); return }
        #expect(frames.isEmpty)
    }
}
