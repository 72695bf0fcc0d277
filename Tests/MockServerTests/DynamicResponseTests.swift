import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Responses made from the request (closures and stub-file templates) and stateful scenarios,
/// each through a real URLSession in-process and through a real socket.
struct DynamicResponseTests {
    enum Via: String, CaseIterable, CustomStringConvertible {
        case urlSession
        case socket

        var description: String { rawValue }
    }

    /// Runs `body` with a base URL and a session that reach `mock` the way `via` says.
    private func reach(_ mock: HTTPMock, via: Via, _ body: (_ base: String, _ session: URLSession) async throws -> Void) async throws {
        switch via {
        case .urlSession:
            try await body("https://shop.example.com", mock.urlSession)
        case .socket:
            try await withServer(mock) { server in
                try await body(server.baseURL.absoluteString, URLSession(configuration: .ephemeral))
            }
        }
    }

    private func call(
        _ session: URLSession,
        _ url: String,
        method: String = "GET",
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> (status: Int, text: String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    struct Order: Codable, Equatable {
        let user: String
        let items: Int
    }

    // MARK: Closures

    @Test(arguments: Via.allCases) func closuresEchoThePathTheHeaderAndTheJSONBody(_ via: Via) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users/*", host: "**") {
            MockResponse.computed(lifetime: .eternal) { request in
                .dictionary(["id": Int(request.pathSegments[1]) ?? -1, "trace": request.header("X-Request-Id") ?? ""])
            }
        }
        mock.addResponses(forPath: "/orders", host: "**", requiring: .post) {
            MockResponse.computed { request in
                let order = try request.decodeJSON(Order.self)
                return .encodable(Order(user: order.user.uppercased(), items: order.items + 1), status: .created)
            }
        }
        try await reach(mock, via: via) { (base: String, session: URLSession) async throws in
            let user = try await call(session, "\(base)/users/42", headers: ["X-Request-Id": "req-7"])
            let object = try JSONSerialization.jsonObject(with: Data(user.text.utf8)) as? [String: Any]
            #expect(object?["id"] as? Int == 42)
            #expect(object?["trace"] as? String == "req-7")
            let other = try await call(session, "\(base)/users/7")
            #expect(other.text.contains("\"id\":7") || other.text.contains("\"id\" : 7"))

            let order = try await call(session, "\(base)/orders", method: "POST", headers: ["Content-Type": "application/json"], body: #"{"user":"alice","items":2}"#)
            #expect(order.status == 201)
            #expect(try JSONDecoder().decode(Order.self, from: Data(order.text.utf8)) == Order(user: "ALICE", items: 3))
        }
    }

    @Test(arguments: Via.allCases) func aThrowingClosureFailsTheRequestNamingTheStub(_ via: Via) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/orders", host: "**") {
            MockResponse.computed { request in
                _ = try request.decodeJSON(Order.self)
                return .empty()
            }
        }
        try await reach(mock, via: via) { (base: String, session: URLSession) async throws in
            switch via {
            case .urlSession:
                do {
                    _ = try await call(session, "\(base)/orders", method: "POST", body: "not json")
                    Issue.record("the request succeeded")
                } catch let error as URLError {
                    #expect(error.localizedDescription.contains(#"the response closure of stub host "**", path "/orders" threw"#), "\(error.localizedDescription)")
                }
            case .socket:
                let answer = try await call(session, "\(base)/orders", method: "POST", body: "not json")
                #expect(answer.status == 500)
                #expect(answer.text.contains(#"the response closure of stub host "**", path "/orders" threw"#), "\(answer.text)")
            }
        }
    }

    @Test func aComputedResponseCanBeTheUnmockedPolicy() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .mock(.computed { request in .plaintext("no stub for \(request.method) \(request.path)", status: .notFound) })
        let (data, response) = try await mock.urlSession.data(from: URL(string: "https://shop.example.com/anything")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        #expect(String(decoding: data, as: UTF8.self) == "no stub for GET /anything")
    }

    // MARK: Templates

    static let templates = #"""
        {"stubs": [
          {"path": "/users/*", "responses": [{"template": true, "lifetime": "eternal",
            "headers": {"Content-Type": "application/json", "X-Echo": "{{request.headers.X-Request-Id}}"},
            "body": "{\"id\": \"{{request.path.[1]}}\", \"name\": \"{{jsonPath request.body '$.user.name'}}\", \"q\": \"{{request.query.q}}\", \"method\": \"{{request.method}}\"}"}]},
          {"path": "/json/*", "responses": [{"template": true, "lifetime": "eternal",
            "json": {"segment": "{{request.pathSegments.[1]}}", "url": "{{request.url}}", "id": "{{randomValue type='UUID'}}", "year": "{{now format='yyyy'}}"}}]}
        ]}
        """#

    @Test(arguments: Via.allCases) func templatesUseRequestValuesAndEscapeJSON(_ via: Via) async throws {
        let mock = HTTPMock()
        let file = try StubFile(data: Data(Self.templates.utf8), source: "templates.json", baseDirectory: URL(fileURLWithPath: "/"))
        #expect(mock.registerStubs(file).isEmpty)
        try await reach(mock, via: via) { (base: String, session: URLSession) async throws in
            let answer = try await call(
                session,
                "\(base)/users/42?q=a%20b",
                method: "POST",
                headers: ["X-Request-Id": "req-9", "Content-Type": "application/json"],
                body: #"{"user": {"name": "O\"Brien \\ the \n second"}}"#
            )
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: String], "\(answer.text)")
            #expect(object == ["id": "42", "name": "O\"Brien \\ the \n second", "q": "a b", "method": "POST"])

            let json = try await call(session, "\(base)/json/abc?x=1")
            let values = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: String])
            #expect(values["segment"] == "abc")
            #expect(values["url"] == "/json/abc?x=1")
            #expect(UUID(uuidString: values["id"] ?? "") != nil)
            #expect(values["year"]?.count == 4)
        }
    }

    @Test(arguments: Via.allCases) func jsonPathGivesNumbersAsSentAndObjectsInTheirOrder(_ via: Via) async throws {
        let stubs = #"""
            {"stubs": [{"path": "/echo", "responses": [{"template": true, "lifetime": "eternal", "body":
              "{{jsonPath request.body '$.price'}}|{{jsonPath request.body '$.count'}}|{{jsonPath request.body '$.id'}}|{{jsonPath request.body '$.ids[1]'}}|{{jsonPath request.body '$.item'}}|{{jsonPath request.body '$.flag'}}|{{jsonPath request.body '$.none'}}|{{jsonPath request.body '$.missing'}}"}]},
             {"path": "/quoted", "responses": [{"template": true, "lifetime": "eternal", "json": {"note": "{{jsonPath request.body '$.note'}}"}}]}
            ]}
            """#
        let mock = HTTPMock()
        #expect(mock.registerStubs(try StubFile(data: Data(stubs.utf8), source: "numbers.json", baseDirectory: URL(fileURLWithPath: "/"))).isEmpty)
        try await reach(mock, via: via) { (base: String, session: URLSession) async throws in
            // Number text as sent: not `1.5`, `1000.0`, nor a large integer rounded through a `Double`.
            let body = #"""
                {"price": 1.50, "count": 1e3, "id": 12345678901234567890, "ids": [1, 9007199254740993],
                 "item": {"zeta": 1.0, "alpha": ["a/b", -0]}, "flag": true, "none": null}
                """#
            let answer = try await call(session, "\(base)/echo", method: "POST", headers: ["Content-Type": "application/json"], body: body)
            // A JSON null renders as nothing, as WireMock renders it.
            #expect(answer.text == #"1.50|1e3|12345678901234567890|9007199254740993|{"zeta":1.0,"alpha":["a/b",-0]}|true||"#)

            // Inside a JSON string: quotes, backslashes and control characters escaped, `/` and non-ASCII as they are.
            let quoted = try await call(session, "\(base)/quoted", method: "POST", headers: ["Content-Type": "application/json"], body: #"{"note": "a \"b\" \\ c/d é\u0001\n"}"#)
            #expect(quoted.text.contains(#"a \"b\" \\ c/d é\u0001\n"#), "\(quoted.text)")
            let note = try #require(try JSONSerialization.jsonObject(with: Data(quoted.text.utf8)) as? [String: String], "\(quoted.text)")
            #expect(note == ["note": "a \"b\" \\ c/d é\u{1}\n"])
        }
    }

    @Test(arguments: Via.allCases) func helpersTransformRequestValuesAndTextAsWireMocksDo(_ via: Via) async throws {
        let stubs = #"""
            {"stubs": [{"path": "/helpers/*", "responses": [{"template": true, "lifetime": "eternal", "body":
              "{{upper request.method}}|{{lower 'AbC'}}|{{size request.path.[1]}}|{{base64 request.path.[1]}}|{{base64 'aGk' decode=true}}|{{base64 'hello' padding=false}}|{{urlEncode request.query.q}}|{{urlEncode 'a%2Fb+c' decode=true}}"}]},
             {"path": "/when", "responses": [{"template": true, "lifetime": "eternal", "body":
              "{{now format='yyyy-MM-dd' offset='3 days'}}|{{now format='yyyy-MM-dd' offset='-3 days'}}|{{now format='HH' timezone='Asia/Kolkata'}}|{{now format='HH'}}"}]}
            ]}
            """#
        let mock = HTTPMock()
        #expect(mock.registerStubs(try StubFile(data: Data(stubs.utf8), source: "helpers.json", baseDirectory: URL(fileURLWithPath: "/"))).isEmpty)
        try await reach(mock, via: via) { (base: String, session: URLSession) async throws in
            let answer = try await call(session, "\(base)/helpers/hello?q=a%20b%2Fc%26d")
            #expect(answer.text == "GET|abc|5|aGVsbG8=|hi|aGVsbG8|a+b%2Fc%26d|a/b c")
            let before = Date()
            let when = try await call(session, "\(base)/when").text.split(separator: "|").map(String.init)
            let after = Date()
            let day = 86_400.0
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyyy-MM-dd"
            // The server's moment is between `before` and `after` (midnight UTC may fall between them).
            #expect([format.string(from: before + 3 * day), format.string(from: after + 3 * day)].contains(when[0]), "\(when)")
            #expect([format.string(from: before - 3 * day), format.string(from: after - 3 * day)].contains(when[1]), "\(when)")
            // Kolkata is UTC+5:30 all year: its hour is never UTC's.
            #expect(when.count == 4 && when[2] != when[3], "\(when)")
        }
    }

    @Test(arguments: [
        (#"{"path": "/x", "responses": [{"template": true, "body": "{{request.nope}}"}]}"#, "stubs[0].responses[0].body", "request.nope"),
        (#"{"path": "/x", "responses": [{"template": true, "body": "{{now timezone='Mars/Olympus'}}"}]}"#, "stubs[0].responses[0].body", "Mars/Olympus"),
        (#"{"path": "/x", "responses": [{"template": true, "body": "{{now offset='3 fortnights'}}"}]}"#, "stubs[0].responses[0].body", "3 fortnights"),
        (#"{"path": "/x", "responses": [{"template": true, "body": "{{request.path.[1]"}]}"#, "stubs[0].responses[0].body", "without a closing"),
        (#"{"path": "/x", "responses": [{"template": true, "headers": {"X-A": "{{randomValue type='GUID'}}"}}]}"#, "stubs[0].responses[0].headers.X-A", "GUID"),
        (#"{"path": "/x", "responses": [{"template": true, "json": {"a": ["{{jsonPath request.body 'user'}}"]}}]}"#, "stubs[0].responses[0].json", "JSON path"),
        // FuzzTemplates' first finding: a helper that takes no options said "(expected )".
        (#"{"path": "/x", "responses": [{"template": true, "body": "{{upper request.method x}}"}]}"#, "stubs[0].responses[0].body", "gives upper 2 values in {{upper request.method x}}; expected {{upper value}}"),
    ])
    func aTemplateErrorIsALoadTimeErrorNamingTheFileStubAndVariable(_ stub: String, _ location: String, _ detail: String) throws {
        do {
            _ = try StubFile(data: Data(#"{"stubs": [\#(stub)]}"#.utf8), source: "bad.json", baseDirectory: URL(fileURLWithPath: "/"))
            Issue.record("the template was accepted")
        } catch {
            #expect(error.description.hasPrefix("bad.json, \(location): "), "\(error)")
            #expect(error.description.contains(detail), "\(error)")
        }
    }

    @Test func aTemplateErrorThroughTheAdminAPIIsA400() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { (client: HTTPClient) async throws in
                let answer = try await send(
                    client,
                    "\(server.baseURL.absoluteString)/__admin/stubs",
                    method: .POST,
                    headers: [("Content-Type", "application/json")],
                    body: #"{"stubs": [{"path": "/x", "responses": [{"template": true, "body": "{{request.heders.a}}"}]}]}"#
                )
                #expect(answer.status == 400)
                #expect(answer.text.contains("request.heders.a"))
            }
        }
    }

    // MARK: Scenarios

    /// Empty cart → item added → checked out, in Swift.
    private func cart(_ mock: HTTPMock) {
        mock.registerResponses {
            Host("**") {
                Path("/cart", requiring: .get, scenario: ScenarioStep("cart", when: ScenarioStep.started)) {
                    MockResponse.plaintext(#"{"items":[]}"#, lifetime: .eternal)
                }
                Path("/cart", requiring: .post, scenario: ScenarioStep("cart", when: ScenarioStep.started, then: "item added")) {
                    MockResponse.plaintext("added", status: .created, lifetime: .eternal)
                }
                Path("/cart", requiring: .get, scenario: ScenarioStep("cart", when: "item added")) {
                    MockResponse.plaintext(#"{"items":["book"]}"#, lifetime: .eternal)
                }
                Path("/cart", requiring: .post, scenario: ScenarioStep("cart", when: "item added")) {
                    MockResponse.plaintext("already in the cart", status: .other(409), lifetime: .eternal)
                }
                Path("/checkout", requiring: .post, scenario: ScenarioStep("cart", when: "item added", then: "checked out")) {
                    MockResponse.plaintext("order 1", status: .created, lifetime: .eternal)
                }
                Path("/cart", requiring: .get, scenario: ScenarioStep("cart", when: "checked out")) {
                    MockResponse.plaintext(#"{"items":[],"order":1}"#, lifetime: .eternal)
                }
            }
        }
    }

    @Test(arguments: Via.allCases) func aThreeStateScenarioAnswersByStateNotByCallOrder(_ via: Via) async throws {
        let mock = HTTPMock()
        cart(mock)
        try await reach(mock, via: via) { (base: String, session: URLSession) async throws in
            // A client that polls as often as it likes: the answers follow the state.
            for _ in 0..<3 { #expect(try await call(session, "\(base)/cart").text == #"{"items":[]}"#) }
            #expect(try await call(session, "\(base)/checkout", method: "POST").status == 404, "no checkout from an empty cart")
            #expect(try await call(session, "\(base)/cart", method: "POST").status == 201)
            #expect(mock.scenarioState("cart") == "item added")
            for _ in 0..<3 { #expect(try await call(session, "\(base)/cart").text == #"{"items":["book"]}"#) }
            #expect(try await call(session, "\(base)/cart", method: "POST").status == 409)
            #expect(try await call(session, "\(base)/checkout", method: "POST").text == "order 1")
            #expect(try await call(session, "\(base)/cart").text == #"{"items":[],"order":1}"#)

            mock.resetScenarios()
            #expect(try await call(session, "\(base)/cart").text == #"{"items":[]}"#)
            mock.setScenario("cart", to: "item added")
            #expect(try await call(session, "\(base)/cart").text == #"{"items":["book"]}"#)
            mock.clearQueues()
            #expect(mock.scenarioState("cart") == ScenarioStep.started, "clearing the queues resets scenarios")
        }
    }

    @Test func concurrentRequestsSeeEachTransitionOnce() async throws {
        let mock = HTTPMock()
        cart(mock)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    var request = URLRequest(url: URL(string: "https://shop.example.com/cart")!)
                    request.httpMethod = "POST"
                    let (_, response) = try await mock.urlSession.data(for: request)
                    return (response as? HTTPURLResponse)?.statusCode ?? 0
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 409 }.count == 39)
    }

    @Test func scenariosInStubFilesAndTheAdminAPI() async throws {
        let stubs = #"""
            {"stubs": [
              {"path": "/light", "method": "GET", "scenarioName": "light", "requiredScenarioState": "Started", "responses": [{"body": "off", "lifetime": "eternal"}]},
              {"path": "/light/toggle", "method": "POST", "scenarioName": "light", "requiredScenarioState": "Started", "newScenarioState": "on", "responses": [{"body": "switched on", "lifetime": "eternal"}]},
              {"path": "/light", "method": "GET", "scenarioName": "light", "requiredScenarioState": "on", "responses": [{"body": "on", "lifetime": "eternal"}]}
            ]}
            """#
        try await withServer(HTTPMock()) { server in
            let base = server.baseURL.absoluteString
            try await withClient { (client: HTTPClient) async throws in
                let json = [("Content-Type", "application/json")]
                #expect(try await send(client, "\(base)/__admin/stubs", method: .POST, headers: json, body: stubs).status == 201)
                #expect(try await send(client, "\(base)/light").text == "off")
                #expect(try await send(client, "\(base)/light/toggle", method: .POST).text == "switched on")
                #expect(try await send(client, "\(base)/light").text == "on")
                #expect(try await send(client, "\(base)/__admin/scenarios").text.contains(#""state" : "on""#))

                #expect(try await send(client, "\(base)/__admin/scenarios/reset", method: .POST, headers: json).status == 200)
                #expect(try await send(client, "\(base)/light").text == "off")
                #expect(try await send(client, "\(base)/__admin/scenarios/light/state", method: .PUT, body: #"{"state": "on"}"#).status == 200)
                #expect(try await send(client, "\(base)/light").text == "on")
                // No state, or one no stub names: 422, as WireMock answers.
                #expect(try await send(client, "\(base)/__admin/scenarios/light/state", method: .PUT, body: "{}").status == 422)
            }
        }
        #expect(throws: StubFileError.self) {
            try StubFile(data: Data(#"{"stubs": [{"path": "/x", "newScenarioState": "on", "responses": [{}]}]}"#.utf8), source: "s.json", baseDirectory: URL(fileURLWithPath: "/"))
        }
    }
}
