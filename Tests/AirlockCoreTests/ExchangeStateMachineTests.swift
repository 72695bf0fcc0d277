import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// The exchange's timing, tested on the machine itself: no timer runs, the test fires each one.
/// Every transport carries out the same actions, so what holds here holds for HTTPMock,
/// MockServer and AirlockTransport alike (their own suites prove the delivery end to end).
struct ExchangeStateMachineTests {
    typealias Machine = ExchangeStateMachine<URLSessionTransport>

    /// A registry with one stub answering `response`, and the exchange of one request to it.
    private func exchange(_ response: MockResponse, for transport: Transport<URLSessionTransport> = .urlSession) -> (Machine, MockRegistry) {
        let registry = MockRegistry(snippetStyle: .swift)
        #expect(registry.register([Registration(host: "a.test", path: "/x", responses: [response])]).isEmpty)
        let request = IncomingRequest(method: "GET", url: "https://a.test/x", host: "a.test", path: "/x", queryItems: [])
        return (registry.resolve(request, for: transport), registry)
    }

    private func text(_ pieces: Machine.Pieces) -> [String] {
        var texts: [String] = []
        pieces.forEach { texts.append(String(decoding: $0, as: UTF8.self)) }
        return texts
    }

    /// The write an action carries, or an issue.
    private func written(_ action: Machine.Action, sourceLocation: SourceLocation = #_sourceLocation) -> Machine.Write? {
        guard case .write(let write)? = action.delivery else {
            Issue.record("expected a write, got \(String(describing: action.delivery))", sourceLocation: sourceLocation)
            return nil
        }
        return write
    }

    private func timer(_ action: Machine.Action) -> TimeInterval? {
        if case .timer(let seconds) = action.next { return seconds }
        return nil
    }

    @Test func anInstantAnswerIsOneWriteAndNothingToWaitFor() throws {
        var (machine, registry) = exchange(.plaintext("hi"))
        let action = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        let write = try #require(written(action))
        #expect(write.head?.bodySize == 2)
        #expect(text(write.pieces) == ["hi"])
        #expect(write.ends)
        guard case .none = action.next else {
            Issue.record("nothing should follow: \(action.next)")
            return
        }
        #expect(machine.isFinished)
        // The journal has the outcome before the transport writes a byte.
        #expect(registry.journal.all.first?.response?.status == 200)
    }

    @Test func aDelayWaitsThenAnswers() throws {
        var (machine, registry) = exchange(.plaintext("late", delivery: .delayed(2)))
        let first = machine.start(idleTimeout: 60, takesBodyInPieces: true)
        #expect(first.delivery == nil)
        #expect(timer(first) == 2)
        #expect(registry.journal.all.first?.response == nil, "nothing is recorded before the answer")
        let answer = try #require(written(machine.timerFired()))
        #expect(text(answer.pieces) == ["late"] && answer.ends)
        #expect(registry.journal.all.first?.response?.status == 200)
    }

    @Test func aDelayPastTheClientsTimeoutFailsAtTheTimeout() {
        var (machine, registry) = exchange(.plaintext("never", delivery: .delayed(600)))
        let first = machine.start(idleTimeout: 1, takesBodyInPieces: true)
        #expect(timer(first) == 1)
        guard case .fail(.timedOut(let request, after: 1, waiting: .delay(600)))? = machine.timerFired().delivery else {
            Issue.record("the exchange should time out")
            return
        }
        #expect(request == "GET https://a.test/x")
        #expect(registry.journal.all.first?.response?.outcome == .failure(.timedOut(request: request, after: 1, waiting: .delay(600))))
    }

    @Test func aDribbleSendsItsPiecesApart() throws {
        var (machine, _) = exchange(MockResponse.plaintext("abcd").dribbled(inChunks: 4, over: 3))
        let first = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        let head = try #require(written(first))
        #expect(head.head?.bodySize == 4)
        #expect(text(head.pieces) == ["a"] && !head.ends)
        #expect(timer(first) == 1)
        var received = ["a"]
        var action = machine.timerFired()
        while let piece = written(action) {
            received += text(piece.pieces)
            if piece.ends { break }
            #expect(timer(action) == 1)
            action = machine.timerFired()
        }
        #expect(received == ["a", "b", "c", "d"])
        #expect(machine.isFinished)
    }

    @Test func aClientThatTakesOnlyTheLastPieceGetsTheWholeBodyOnceItsTimeHasPassed() throws {
        var (machine, _) = exchange(MockResponse.plaintext("abcd").dribbled(inChunks: 4, over: 3))
        let first = machine.start(idleTimeout: nil, takesBodyInPieces: false)
        #expect(text(try #require(written(first)).pieces).isEmpty, "the head goes first, alone")
        #expect(timer(first) == 3)
        let whole = try #require(written(machine.timerFired()))
        #expect(text(whole.pieces) == ["abcd"] && whole.ends)
    }

    @Test func aStreamSendsPartsWithoutAPauseTogetherAndWaitsOutEachPause() throws {
        let parts = [StreamPart("a"), StreamPart("b"), StreamPart("c", after: 1.5), StreamPart("d", after: 0.5)]
        var (machine, registry) = exchange(.stream(parts, ending: .closeAfter(3)))
        let first = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        let head = try #require(written(first))
        #expect(head.head != nil && head.head?.bodySize == nil, "a stream's length is not known")
        #expect(text(head.pieces) == ["a", "b"])
        #expect(timer(first) == 1.5)
        // The whole stream is in the journal, parts and pauses, before the head goes.
        #expect(registry.journal.all.first?.response?.stream?.parts.count == 4)
        let third = machine.timerFired()
        #expect(text(try #require(written(third)).pieces) == ["c"])
        #expect(timer(third) == 0.5)
        let fourth = machine.timerFired()
        #expect(text(try #require(written(fourth)).pieces) == ["d"])
        #expect(timer(fourth) == 3, "the recorded wait before the end")
        let end = try #require(written(machine.timerFired()))
        #expect(end.ends && text(end.pieces).isEmpty)
        #expect(machine.isFinished)
    }

    @Test func aGatedStreamEndsWhenTheGateOpens() throws {
        let gate = StreamGate()
        var (machine, _) = exchange(.stream([StreamPart("a")], ending: .gate(gate)))
        let first = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        guard case .gate(let waited) = first.next, waited === gate else {
            Issue.record("the stream should wait for its gate")
            return
        }
        #expect(machine.timerFired().delivery == nil, "only the gate ends it")
        #expect(try #require(written(machine.gateOpened())).ends)
    }

    @Test func aClientThatLeavesStopsEverythingStillToCome() {
        var (machine, _) = exchange(.stream([StreamPart("a"), StreamPart("b", after: 5)], ending: .keepOpen))
        let first = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        #expect(timer(first) == 5)
        machine.clientLeft()
        #expect(machine.isFinished)
        #expect(machine.timerFired().delivery == nil)
        #expect(machine.gateOpened().delivery == nil)
    }

    @Test func aFileIsReadOffTheTransportsThreadAndItsFailureIsAValue() {
        let missing = URL(fileURLWithPath: "/nonexistent/airlock-\(UUID()).json")
        var (machine, registry) = exchange(.file(url: missing))
        let first = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        guard case .load(let body, let owner) = first.next else {
            Issue.record("the file should be read off the transport's thread")
            return
        }
        let loaded = body.load(owner: owner)
        guard case .fail(.fileMissing(let path, _, _))? = machine.bodyLoaded(loaded).delivery else {
            Issue.record("a missing file should fail the exchange")
            return
        }
        #expect(path == missing.path)
        #expect(registry.journal.all.first?.response?.outcome == .failure(.fileMissing(path: path, owner: owner, workingDirectory: FileManager.default.currentDirectoryPath)))
    }

    @Test func aRedirectIsFollowedByTransportsThatFollowAndSentByOnesThatDoNot() throws {
        let redirect = MockResponse.empty(status: .found, headers: ["Location": "/next"])
        var (urlSession, _) = exchange(redirect)
        guard case .follow(let rule, _)? = urlSession.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("a URLSession transport follows the redirect itself")
            return
        }
        #expect(rule.location == "https://a.test/next" && rule.method == "GET")

        let registry = MockRegistry(snippetStyle: .json)
        #expect(registry.register([Registration(host: "a.test", path: "/x", responses: [redirect])]).isEmpty)
        var socket = registry.resolve(IncomingRequest(method: "GET", url: "https://a.test/x", host: "a.test", path: "/x", queryItems: []), for: .socket)
        guard case .write(let write)? = socket.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("a socket sends the 302 as it is")
            return
        }
        #expect(write.head?.response.status.code == 302)
    }

    @Test func aStubsErrorIsCarriedByAURLSessionAndAResetOnASocket() {
        let failing = MockResponse.error(URLError(.notConnectedToInternet))
        var (urlSession, registry) = exchange(failing)
        guard case .failCarrying(let box)? = urlSession.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("a URLSession carries the error")
            return
        }
        #expect((box.error as? URLError)?.code == .notConnectedToInternet)
        guard case .failure(.stubError)? = registry.journal.all.first?.response?.outcome else {
            Issue.record("the journal records the stub's error")
            return
        }

        let server = MockRegistry(snippetStyle: .json)
        #expect(server.register([Registration(host: "a.test", path: "/x", responses: [failing])]).isEmpty)
        var socket = server.resolve(IncomingRequest(method: "GET", url: "https://a.test/x", host: "a.test", path: "/x", queryItems: []), for: .socket)
        guard case .fault(let fault, let webhooks)? = socket.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("a socket resets the connection")
            return
        }
        #expect(fault == .connectionReset && webhooks.isEmpty)
    }

    @Test func aDelayedForwardWaitsThenForwards() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.unmockedPolicy = .passthrough
        var machine = registry.resolve(IncomingRequest(method: "GET", url: "https://a.test/x", host: "a.test", path: "/x", queryItems: []), for: .urlSession)
        guard case .forward(recording: false, target: nil, inPieces: false, let webhooks, _)? = machine.start(idleTimeout: nil, takesBodyInPieces: false).delivery else {
            Issue.record("the passthrough policy forwards, telling the transport how its client takes the body")
            return
        }
        #expect(webhooks.isEmpty)
    }
}
