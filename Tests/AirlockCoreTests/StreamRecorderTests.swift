import AirlockCore
import Dispatch
import Foundation
import HTTPTypes
import Testing

/// The one collector of relayed responses on its own: events in with the time each happened, the
/// recording out — no clock, no connection.
struct StreamRecorderTests {
    private let start = DispatchTime(uptimeNanoseconds: 1_000_000_000)

    private func at(_ seconds: Double) -> DispatchTime {
        DispatchTime(uptimeNanoseconds: start.uptimeNanoseconds + UInt64(seconds * 1_000_000_000))
    }

    /// What `recorder` makes of the end (outside `#require`, which cannot take a mutating call).
    private func ending(_ recorder: inout StreamRecorder, _ end: StreamRecorder.End, at time: DispatchTime) -> StreamRecorder.Recording? {
        recorder.end(end, at: time)
    }

    private let events: HTTPFields = [.contentType: "text/event-stream"]

    @Test func keepsEachPartWithThePauseBeforeItAndTheWaitBeforeTheEnd() throws {
        var recorder = StreamRecorder(started: start)
        recorder.head(status: 200, headers: events, isStream: true, bodyIsEncoded: true, at: at(0.5))
        recorder.piece(Data("data: a\n\n".utf8), at: at(0.75))
        recorder.piece(Data("data: b\n\n".utf8), at: at(1.75))
        let recording = try #require(ending(&recorder, .closed, at: at(2)))
        #expect(recording.status == 200)
        #expect(recording.body == Data("data: a\n\ndata: b\n\n".utf8))
        let stream = try #require(recording.stream)
        #expect(stream.kind == .events)
        #expect(stream.parts == [StreamPart("data: a\n\n", after: 0.25), StreamPart("data: b\n\n", after: 1)])
        #expect(stream.ending == .closeAfter(0.25))
    }

    @Test func aStreamItsClientLeftEndsAsLeftAfterItsLastPart() throws {
        var recorder = StreamRecorder(started: start)
        recorder.head(status: 200, headers: events, isStream: true, bodyIsEncoded: true, at: start)
        recorder.piece(Data("x".utf8), at: at(1))
        let recording = try #require(ending(&recorder, .clientLeft, at: at(4)))
        #expect(recording.stream?.ending == .clientLeft(after: 3))
        // It ended: a later end (the upstream closing a moment after) records nothing more.
        #expect(ending(&recorder, .closed, at: at(5)) == nil)
    }

    /// A stream with no part is a stream when it stayed open: its client left, or its end came a
    /// measurable while after its head; else its body was just empty.
    @Test(arguments: [
        (StreamRecorder.End.closed, 0.0, false),
        (.closed, ResponseStream.measurableWait, true),
        (.clientLeft, 0.0, true),
    ])
    func aStreamWithNoPartIsKeptWhenItStayedOpen(end: StreamRecorder.End, wait: Double, isStream: Bool) throws {
        var recorder = StreamRecorder(started: start)
        recorder.head(status: 200, headers: events, isStream: true, bodyIsEncoded: true, at: start)
        let recording = try #require(ending(&recorder, end, at: at(wait)))
        #expect((recording.stream != nil) == isStream)
        #expect(recording.body.isEmpty)
    }

    @Test func theBodyOfAWholeAnswerOrOfAnEncodedStreamIsKeptWholeWithoutParts() throws {
        var whole = StreamRecorder(started: start)
        whole.head(status: 201, headers: [.contentType: "application/json"], isStream: false, bodyIsEncoded: true, at: start)
        whole.piece(Data("{}".utf8), at: at(1))
        let answer = try #require(ending(&whole, .closed, at: at(1)))
        #expect(answer.stream == nil && answer.body == Data("{}".utf8) && answer.bodyIsEncoded)

        var gzip = StreamRecorder(started: start)
        gzip.head(status: 200, headers: [.contentType: "text/event-stream", .contentEncoding: "gzip"], isStream: true, bodyIsEncoded: true, at: start)
        gzip.piece([1, 2, 3], at: at(1))
        let encoded = try #require(ending(&gzip, .closed, at: at(2)))
        #expect(encoded.stream == nil && encoded.body == Data([1, 2, 3]))

        // A body a session has decoded already: its parts are the body's own.
        var decoded = StreamRecorder(started: start)
        decoded.head(status: 200, headers: [.contentType: "text/event-stream", .contentEncoding: "gzip"], isStream: true, bodyIsEncoded: false, at: start)
        decoded.piece([1], at: at(1))
        let decodedRecording = try #require(ending(&decoded, .closed, at: at(2)))
        #expect(decodedRecording.stream?.parts.count == 1)
    }

    @Test func aBodyPastTheLimitLetsItsPartsGoButKeepsCountingTheirPace() throws {
        var recorder = StreamRecorder(limit: 4, started: start)
        recorder.head(status: 200, headers: events, isStream: true, bodyIsEncoded: true, at: start)
        recorder.piece([1, 2, 3], at: at(1))
        recorder.piece([4, 5], at: at(2))
        recorder.piece([6], at: at(3))
        let recording = try #require(ending(&recorder, .closed, at: at(3.5)))
        #expect(recording.isOverLimit)
        #expect(recording.parts.isEmpty && recording.stream == nil)
        #expect(recording.wait == 0.5)
    }

    @Test func nothingIsRecordedWithoutAHead() {
        var recorder = StreamRecorder(started: start)
        #expect(ending(&recorder, .broken, at: at(1)) == nil)
    }
}
