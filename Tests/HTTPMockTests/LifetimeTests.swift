import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

struct LifetimeTests {
    @Test func singleIsTheDefaultAndServedOnce() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("once") }
        #expect(try await mock.fetch("https://a.test/x").text == "once")
        #expect(try await mock.fetch("https://a.test/x").status == 404)
    }

    @Test func multipleIsServedNTimesThenTheQueueMovesOn() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") {
            MockResponse.plaintext("served three times", lifetime: .multiple(3))
            MockResponse.plaintext("served once", lifetime: .single)
            MockResponse.plaintext("served forever", lifetime: .eternal)
        }
        let texts = try await mock.texts("https://a.test/x", count: 7)
        #expect(texts == [
            "served three times", "served three times", "served three times",
            "served once",
            "served forever", "served forever", "served forever",
        ])
    }

    @Test func eternalIsNeverRemoved() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("forever", lifetime: .eternal) }
        let texts = try await mock.texts("https://a.test/x", count: 20)
        #expect(texts == Array(repeating: "forever", count: 20))
    }

    @Test func laterRegistrationsAppendToTheSameQueue() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test", responses: [.plaintext("1")])
        mock.registerResponses {
            Host("A.TEST") { Path("/x") { MockResponse.plaintext("2") } }
        }
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("3") }
        #expect(try await mock.texts("https://a.test/x", count: 3) == ["1", "2", "3"])
    }

    @Test func clearQueuesRemovesEverything() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("a", lifetime: .eternal) }
        mock.addResponses(forPath: "/y", host: "b.test") { MockResponse.plaintext("b", lifetime: .eternal) }
        mock.clearQueues()
        #expect(try await mock.fetch("https://a.test/x").status == 404)
        #expect(try await mock.fetch("https://b.test/y").status == 404)
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("again") }
        #expect(try await mock.fetch("https://a.test/x").text == "again")
    }

    @Test func clearQueueForHostLeavesOtherHosts() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "domain.com") { MockResponse.plaintext("a", lifetime: .eternal) }
        mock.addResponses(forPath: "/y", host: "domain.com") { MockResponse.plaintext("a", lifetime: .eternal) }
        mock.addResponses(forPath: "/x", host: "other.com") { MockResponse.plaintext("b", lifetime: .eternal) }
        mock.clearQueue(forHost: "domain.com")
        #expect(try await mock.fetch("https://domain.com/x").status == 404)
        #expect(try await mock.fetch("https://domain.com/y").status == 404)
        #expect(try await mock.fetch("https://other.com/x").text == "b")
        mock.addResponses(forPath: "/x", host: "domain.com") { MockResponse.plaintext("back") }
        #expect(try await mock.fetch("https://domain.com/x").text == "back")
    }
}
