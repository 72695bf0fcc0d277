import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Errors, redirects and delays, as the URLProtocol article on edge cases describes them.
struct ConditionsTests {
    struct Outage: Error, Equatable {
        let reason: String
    }

    @Test(arguments: [URLError.Code.timedOut, .notConnectedToInternet, .networkConnectionLost, .cannotFindHost])
    func aResponseCanFailWithAURLError(code: URLError.Code) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.error(URLError(code)) }
        let error = await urlError { _ = try await mock.fetch("https://a.test/x") }
        #expect(error?.code == code)
        guard case .failure(.stubError)? = mock.requests.first?.response?.outcome else {
            Issue.record("the journal should record the stub's error: \(String(describing: mock.requests.first?.response?.outcome))")
            return
        }
    }

    @Test func aResponseCanFailWithAnyError() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") {
            MockResponse.error(Outage(reason: "maintenance"))
            MockResponse.plaintext("back")
        }
        await #expect(throws: Outage(reason: "maintenance")) { _ = try await mock.fetch("https://a.test/x") }
        #expect(try await mock.fetch("https://a.test/x").text == "back")
    }

    @Test func aDelayedErrorArrivesAfterItsDelay() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.error(URLError(.timedOut), delivery: .delayed(0.3)) }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await urlError { _ = try await mock.fetch("https://a.test/x") }
        #expect(error?.code == .timedOut)
        #expect(clock.now - start >= .milliseconds(280))
    }

    @Test func theSessionFollowsARedirect() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/old") { MockResponse.redirect(to: "/new") }
                Path("/new") { MockResponse.plaintext("moved here") }
            }
        }
        let (data, response) = try await mock.urlSession.boundedData(from: URL(string: "https://a.test/old")!)
        #expect(String(decoding: data, as: UTF8.self) == "moved here")
        #expect(response.url?.absoluteString == "https://a.test/new")
        #expect(mock.requests.map(\.path) == ["/old", "/new"])
        #expect(mock.requests.first?.response?.status == 302)
    }

    @Test func redirectsFollowTheMethodRules() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/see-other") { MockResponse.redirect(to: "https://b.test/result", status: .other(303)) }
                Path("/temporary") { MockResponse.redirect(to: "/kept", status: .temporaryRedirect) }
            }
            Host("b.test") {
                Path("/result", requiring: .get) { MockResponse.plaintext("got with GET") }
            }
            Host("a.test") {
                Path("/kept", requiring: .post && .body("payload")) { MockResponse.plaintext("kept POST and body") }
            }
        }
        var request = URLRequest(url: URL(string: "https://a.test/see-other")!)
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        let (seeOther, _) = try await mock.urlSession.boundedData(for: request)
        #expect(String(decoding: seeOther, as: UTF8.self) == "got with GET")
        request.url = URL(string: "https://a.test/temporary")
        let (temporary, _) = try await mock.urlSession.boundedData(for: request)
        #expect(String(decoding: temporary, as: UTF8.self) == "kept POST and body")
    }
}
