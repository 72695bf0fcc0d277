import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct MatcherTests {
    struct NewUser: Codable, Sendable {
        let name: String
        let age: Int
    }

    private func send(_ mock: HTTPMock, _ method: String, _ url: String, body: String? = nil, headers: [String: String] = [:]) async throws -> Fetched {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await mock.urlSession.boundedData(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Fetched(status: http.statusCode, headers: [:], data: data)
    }

    @Test func aStubCanRequireAMethodWhichBeatsAGeneralStub() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/users") { MockResponse.plaintext("list", lifetime: .eternal) }
                Path("/users", requiring: .post) { MockResponse.plaintext("created", status: .created, lifetime: .eternal) }
            }
        }
        #expect(try await send(mock, "POST", "https://api.example.com/users").text == "created")
        #expect(try await send(mock, "GET", "https://api.example.com/users").text == "list")
    }

    @Test(arguments: [
        (#"{"b":[1,2],"a":{"y":true,"x":null}}"#, true),
        (" {\n \"a\" : { \"x\": null, \"y\": true }, \"b\": [1, 2] } ", true),
        (#"{"a":{"x":null,"y":true},"b":[2,1]}"#, false),
        (#"{"a":{"x":null,"y":1},"b":[1,2]}"#, false),
        (#"{"a":{"x":null,"y":true},"b":[1,2],"c":0}"#, false),
        ("not json", false),
    ])
    func jsonBodiesCompareIgnoringKeyOrderAndWhiteSpace(body: String, matches: Bool) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/j", host: "a.test", requiring: .json(#"{"a":{"x":null,"y":true},"b":[1,2]}"#)) {
            MockResponse.plaintext("json matched")
        }
        let fetched = try await send(mock, "POST", "https://a.test/j", body: body)
        #expect((fetched.text == "json matched") == matches)
    }

    @Test func jsonCanBeGivenAsAnEncodableOrADictionary() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/e", host: "a.test", requiring: .json(NewUser(name: "Al", age: 30))) { MockResponse.plaintext("encodable") }
        mock.addResponses(forPath: "/d", host: "a.test", requiring: .json(["age": 30, "name": "Al"])) { MockResponse.plaintext("dictionary") }
        #expect(try await send(mock, "POST", "https://a.test/e", body: #"{"age":30,"name":"Al"}"#).text == "encodable")
        #expect(try await send(mock, "POST", "https://a.test/d", body: #"{"name":"Al","age":30}"#).text == "dictionary")
    }

    @Test func aDecodableValueMustSatisfyThePredicate() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/u", host: "a.test", requiring: .decodable(NewUser.self) { $0.age >= 18 }) {
            MockResponse.plaintext("adult", lifetime: .eternal)
        }
        #expect(try await send(mock, "POST", "https://a.test/u", body: #"{"name":"A","age":40}"#).text == "adult")
        #expect(try await send(mock, "POST", "https://a.test/u", body: #"{"name":"B","age":9}"#).status == 404)
        #expect(try await send(mock, "POST", "https://a.test/u", body: #"{"name":"C"}"#).status == 404)
    }

    @Test func formFieldsHeadersQueriesAndBodies() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/f", host: "a.test", requiring: .form(["user": "a b", "next": "/home"])) { MockResponse.plaintext("form") }
        mock.addResponses(forPath: "/h", host: "a.test", requiring: .header("X-Key", "1") && .header("X-Present")) { MockResponse.plaintext("headers") }
        mock.addResponses(forPath: "/q", host: "a.test", requiring: .query(["id": ["1", "2"]])) { MockResponse.plaintext("query") }
        mock.addResponses(forPath: "/b", host: "a.test", requiring: .body("exact") || .bodyContains("needle")) { MockResponse.plaintext("body", lifetime: .multiple(2)) }
        mock.addResponses(forPath: "/n", host: "a.test", requiring: !.method("DELETE")) { MockResponse.plaintext("not delete") }
        #expect(try await send(mock, "POST", "https://a.test/f", body: "user=a+b&next=%2Fhome&extra=1").text == "form")
        #expect(try await send(mock, "GET", "https://a.test/h", headers: ["X-Key": "1", "X-Present": "yes"]).text == "headers")
        #expect(try await send(mock, "GET", "https://a.test/q?id=2&id=1&z=9").text == "query")
        #expect(try await send(mock, "POST", "https://a.test/b", body: "exact").text == "body")
        #expect(try await send(mock, "POST", "https://a.test/b", body: "hay needle hay").text == "body")
        #expect(try await send(mock, "DELETE", "https://a.test/n").status == 404)
        #expect(try await send(mock, "PUT", "https://a.test/n").text == "not delete")
    }

    @Test func aCustomValidatorSeesTheWholeRequest() async throws {
        // The validator of the URLProtocol article: check what the app built, body included.
        let mock = HTTPMock()
        let validator = RequestMatcher("a post with contents") { request in
            request.method == "POST" && request.header("Content-Type") == "application/json"
                && (try? JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: String])?["contents"] == "Hello"
        }
        mock.addResponses(forPath: "/posts", host: "a.test", requiring: validator) { MockResponse.plaintext("valid") }
        let fetched = try await send(mock, "POST", "https://a.test/posts", body: #"{"contents":"Hello"}"#, headers: ["Content-Type": "application/json"])
        #expect(fetched.text == "valid")
    }

    @Test func matchersExplainWhatDiffered() throws {
        let matcher: RequestMatcher = .post && .host("*.example.com") && .path("/users/*") && .query(["page": "2"]) && .json(#"{"a":1}"#)
        let mock = HTTPMock()
        _ = mock
        let recorded = RecordedRequestFactory.make(method: "GET", url: "https://api.other.org/user/1?page=3", body: #"{"a":2}"#)
        let mismatches = matcher.mismatches(recorded)
        #expect(mismatches == [
            "method GET vs POST",
            "host api.other.org vs *.example.com",
            "path /user/1 vs /users/*",
            "query page=3 vs 2",
            #"JSON body differs: "{"a":2}" vs {"a":1}"#,
        ])
        #expect(matcher.description == #"method POST and host *.example.com and path /users/* and query contains page=2 and JSON {"a":1}"#)
    }
}
