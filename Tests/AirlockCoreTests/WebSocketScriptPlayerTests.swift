import AirlockCore
import Foundation
import Testing

/// The script player on its own: what each event sets off, with no connection.
struct WebSocketScriptPlayerTests {
    typealias Player = WebSocketScript.Player

    @Test func playsUpToTheFirstWaitThenAnswersWhatMatches() {
        var player = Player([.send(.text("welcome")), .expect(.text(matching: "hello*")), .send(.text("hi")), .close(code: 4000, reason: "bye")])
        #expect(player.opened() == [.send(.text("welcome"))])
        #expect(player.received(.text("nope")) == [])
        #expect(player.received(.binary(Data([1]))) == [])
        #expect(player.received(.text("hello you")) == [.send(.text("hi")), .close(code: 4000, reason: "bye")])
        // Closed: nothing more.
        #expect(player.received(.text("hello again")) == [])
    }

    @Test func echoesTheNextMessagesThenMovesOn() {
        var player = Player([.echo(count: 2), .send(.text("done"))])
        #expect(player.opened() == [])
        #expect(player.received(.text("a")) == [.send(.text("a"))])
        #expect(player.received(.binary(Data([2]))) == [.send(.binary(Data([2]))), .send(.text("done"))])
        // The script is over: the connection stays open, messages go unanswered.
        #expect(player.received(.text("c")) == [])
    }

    @Test func echoesUntilClosedAndSkipsAnEchoOfNone() {
        var player = Player([.echo(count: 0), .send(.text("ready")), .echoUntilClosed])
        #expect(player.opened() == [.send(.text("ready"))])
        for text in ["x", "y", "z"] { #expect(player.received(.text(text)) == [.send(.text(text))]) }
    }

    @Test(arguments: [
        (WebSocketMessageMatcher.any, WebSocketMessage.binary(Data()), true),
        (.text("ping"), .text("ping"), true),
        (.text("ping"), .text("pong"), false),
        (.text(matching: "hello*"), .text("hello world"), true),
        (.text(matching: "*\"type\":\"join\"*"), .text(#"{"type":"join","room":1}"#), true),
        (.text(matching: "hello*"), .binary(Data("hello".utf8)), false),
        (.text(containing: "token"), .text("a token here"), true),
        (.binary, .binary(Data([1])), true),
        (.binary(Data([1, 2])), .binary(Data([1, 3])), false),
    ])
    func matchers(matcher: WebSocketMessageMatcher, message: WebSocketMessage, matches: Bool) {
        #expect(matcher.matches(message) == matches, "\(matcher) vs \(message)")
    }

    @Test func aWaitIsAnActionInItsPlaceAndHoldsNothingBackItself() {
        var player = Player([.send(.text("a")), .wait(0.5), .send(.text("b")), .expect(.any), .wait(1), .send(.text("c")), .echoUntilClosed])
        #expect(player.opened() == [.send(.text("a")), .wait(0.5), .send(.text("b"))])
        // The transport performs the actions after the wait in their turn; the player has moved on.
        #expect(player.received(.text("x")) == [.wait(1), .send(.text("c"))])
        #expect(player.received(.text("y")) == [.send(.text("y"))])
    }

    @Test(arguments: [-1, Double.nan, .infinity])
    func aWaitThatIsNoTimeIsRejectedWhereItIsMade(_ seconds: Double) {
        #expect(MockResponse.webSocket([.wait(seconds)]).webSocketScript == nil)
        #expect(MockResponse.webSocket([.wait(0), .wait(2.5)]).webSocketScript != nil)
    }

    @Test func aScriptWithACloseCodeNoServerMaySendIsRejectedWhereItIsMade() {
        let response = MockResponse.webSocket([.close(code: 1005)])
        #expect(response.webSocketScript == nil)
        #expect(MockResponse.webSocket([.close(code: 4000)]).webSocketScript != nil)
    }
}
