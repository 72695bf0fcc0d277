import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPTestSupport
import MockServer
import NIOHTTP1
import Testing

/// WireMock's admin API on a MockServer, through a real HTTP client: the status codes and JSON
/// shapes WireMock's clients read.
struct WireMockAdminAPITests {
    static let json = [("Content-Type", "application/json")]

    private func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func mappingsAreCreatedListedFetchedUpdatedAndDeleted() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let created = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: #"""
                    {"name": "greeting", "request": {"method": "GET", "url": "/greet"}, "response": {"status": 200, "body": "hello"}}
                    """#)
                #expect(created.status == 201)
                let mapping = try object(created.text)
                let id = try #require(mapping["id"] as? String)
                #expect(mapping["uuid"] as? String == id && mapping["name"] as? String == "greeting")
                #expect(try await send(client, "\(base)/greet").text == "hello")

                let listed = try object(try await send(client, "\(base)/__admin/mappings").text)
                #expect((listed["meta"] as? [String: Any])?["total"] as? Int == 1)
                #expect(((listed["mappings"] as? [[String: Any]])?.first?["id"] as? String) == id)
                #expect(try object(try await send(client, "\(base)/__admin/mappings/\(id)").text)["name"] as? String == "greeting")

                let updated = try await send(client, "\(base)/__admin/mappings/\(id)", method: .PUT, headers: Self.json, body: #"""
                    {"request": {"method": "GET", "url": "/greet"}, "response": {"status": 202, "body": "bonjour"}}
                    """#)
                let updatedID = try object(updated.text)["id"] as? String
                #expect(updated.status == 200 && updatedID == id)
                let answer = try await send(client, "\(base)/greet")
                #expect(answer.status == 202 && answer.text == "bonjour")
                #expect((try object(try await send(client, "\(base)/__admin/mappings").text)["meta"] as? [String: Any])?["total"] as? Int == 1)

                #expect(try await send(client, "\(base)/__admin/mappings/\(id)", method: .DELETE).status == 200)
                #expect(try await send(client, "\(base)/__admin/mappings/\(id)").status == 404)
                #expect(try await send(client, "\(base)/__admin/mappings/\(id)", method: .DELETE).status == 404)
                #expect(try await send(client, "\(base)/greet").status == 404)
            }
        }
    }

    @Test func anInvalidMappingIs422WithThePointerToItsField() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let answer = try await send(client, "\(server.baseURL.absoluteString)/__admin/mappings", method: .POST, headers: Self.json, body: #"""
                    {"request": {"urlPath": "/x"}, "response": {"fault": "NOPE"}}
                    """#)
                #expect(answer.status == 422)
                let error = try #require((try object(answer.text)["errors"] as? [[String: Any]])?.first)
                #expect((error["source"] as? [String: Any])?["pointer"] as? String == "/response/fault")
                #expect((error["title"] as? String)?.contains(#"request body, response.fault: is "NOPE""#) == true)
            }
        }
    }

    @Test func theJournalAnswersInWireMocksShapesWithCountsFindsAndNearMisses() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let created = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: #"""
                    {"request": {"method": "GET", "urlPath": "/orders"}, "response": {"body": "[]"}}
                    """#)
                #expect(created.status == 201)
                let mappingID = try object(created.text)["id"] as? String
                _ = try await send(client, "\(base)/orders?page=1")
                _ = try await send(client, "\(base)/orders?page=2")
                _ = try await send(client, "\(base)/order")

                let all = try object(try await send(client, "\(base)/__admin/requests").text)
                #expect((all["meta"] as? [String: Any])?["total"] as? Int == 3)
                #expect(all["requestJournalDisabled"] as? Bool == false)
                let events = try #require(all["requests"] as? [[String: Any]])
                // Newest first, as WireMock lists them.
                #expect(events.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["/order", "/orders?page=2", "/orders?page=1"])
                #expect(events.map { $0["wasMatched"] as? Bool } == [false, true, true])
                // The mapping that answered, as WireMock names it in a serve event.
                #expect(events.map { ($0["stubMapping"] as? [String: Any])?["id"] as? String } == [nil, mappingID, mappingID])
                let id = try #require(events.last?["id"] as? String)
                let single = try object(try await send(client, "\(base)/__admin/requests/\(id)").text)
                #expect((single["request"] as? [String: Any])?["url"] as? String == "/orders?page=1")

                let count = try object(try await send(client, "\(base)/__admin/requests/count", method: .POST, headers: Self.json, body: #"{"method": "GET", "urlPath": "/orders"}"#).text)
                #expect(count["count"] as? Int == 2)
                let found = try object(try await send(client, "\(base)/__admin/requests/find", method: .POST, headers: Self.json, body: #"{"method": "GET", "urlPath": "/orders"}"#).text)
                #expect((found["requests"] as? [[String: Any]])?.count == 2)

                let unmatched = try object(try await send(client, "\(base)/__admin/requests/unmatched").text)
                #expect((unmatched["requests"] as? [[String: Any]])?.map { $0["url"] as? String } == ["/order"])
                let nearMisses = try object(try await send(client, "\(base)/__admin/requests/unmatched/near-misses").text)
                let nearest = try #require((nearMisses["nearMisses"] as? [[String: Any]])?.first)
                #expect(((nearest["stubMapping"] as? [String: Any])?["request"] as? [String: Any])?["urlPath"] as? String == "/orders")
                #expect(((nearest["matchResult"] as? [String: Any])?["distance"] as? Double ?? 0) > 0)
                let byRequest = try object(try await send(client, "\(base)/__admin/near-misses/request", method: .POST, headers: Self.json, body: #"{"url": "/ordrs", "method": "GET"}"#).text)
                #expect((byRequest["nearMisses"] as? [[String: Any]])?.isEmpty == false)

                #expect(try await send(client, "\(base)/__admin/requests/reset", method: .POST, headers: Self.json).status == 200)
                #expect((try object(try await send(client, "\(base)/__admin/requests").text)["requests"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test func resetLoadsTheRootsMappingsAgainAndSaveWritesTheNewOnes() async throws {
        let folder = try WireMockFolder(mappings: ["ping.json": #"{"request": {"urlPath": "/ping"}, "response": {"body": "pong"}}"#])
        defer { folder.remove() }
        let mock = HTTPMock()
        let mappings = try WireMockMappings(directory: folder.root)
        mock.registerStubs(mappings)
        var configuration = MockServer.Configuration()
        configuration.wireMockRoot = mappings.rootDirectory
        try await withServer(mock, configuration: configuration) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                #expect(try await send(client, "\(base)/__admin/mappings", method: .DELETE).status == 200)
                #expect(try await send(client, "\(base)/ping").status == 404)
                #expect(try await send(client, "\(base)/__admin/mappings/reset", method: .POST, headers: Self.json).status == 200)
                #expect(try await send(client, "\(base)/ping").text == "pong")

                let created = try object(try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: #"{"request": {"urlPath": "/new"}, "response": {"body": "saved"}}"#).text)
                let id = try #require(created["id"] as? String)
                #expect(try await send(client, "\(base)/__admin/mappings/save", method: .POST, headers: Self.json).status == 200)
                let saved = folder.root.appendingPathComponent("mappings/\(id).json")
                #expect(FileManager.default.fileExists(atPath: saved.path))
                // What was saved loads, and answers, after a full reset.
                #expect(try await send(client, "\(base)/__admin/reset", method: .POST, headers: Self.json).status == 200)
                #expect(try await send(client, "\(base)/new").text == "saved")
                #expect(try await send(client, "\(base)/ping").text == "pong")
            }
        }
    }

    @Test func scenariosSettingsAndShutdownAnswerAsWireMocksDo() async throws {
        let mock = HTTPMock()
        try await withServer(mock) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                for mapping in [
                    #"{"scenarioName": "door", "requiredScenarioState": "Started", "newScenarioState": "open", "request": {"urlPath": "/door"}, "response": {"body": "opening"}}"#,
                    #"{"scenarioName": "door", "requiredScenarioState": "open", "request": {"urlPath": "/door"}, "response": {"body": "open"}}"#,
                ] {
                    #expect(try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: mapping).status == 201)
                }
                #expect(try await send(client, "\(base)/door").text == "opening")
                let scenarios = try #require(try object(try await send(client, "\(base)/__admin/scenarios").text)["scenarios"] as? [[String: Any]])
                #expect(scenarios.first?["state"] as? String == "open")
                #expect(scenarios.first?["possibleStates"] as? [String] == ["Started", "open"])
                #expect((scenarios.first?["mappings"] as? [Any])?.count == 2)
                #expect(try await send(client, "\(base)/__admin/scenarios/reset", method: .POST, headers: Self.json).status == 200)
                #expect(try await send(client, "\(base)/door").text == "opening")

                let settings = try await send(client, "\(base)/__admin/settings", method: .POST, headers: Self.json, body: #"{"fixedDelay": 200}"#)
                #expect(settings.status == 200)
                let clock = ContinuousClock()
                let start = clock.now
                #expect(try await send(client, "\(base)/door").text == "open")
                #expect(clock.now - start >= .milliseconds(190))
                #expect(try await send(client, "\(base)/__admin/settings", method: .POST, headers: Self.json, body: #"{"fixedDelay": -1}"#).status == 422)

                // A server started by code is stopped by code.
                #expect(try await send(client, "\(base)/__admin/shutdown", method: .POST, headers: Self.json).status == 403)
            }
        }
    }

    @Test func scenariosAreListedWithTheirStubsAndSetByNameAsWireMockDoes() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                var ids: [String] = []
                for mapping in [
                    #"{"scenarioName": "front door", "requiredScenarioState": "Started", "newScenarioState": "open", "request": {"urlPath": "/door"}, "response": {"body": "opening"}}"#,
                    #"{"scenarioName": "front door", "requiredScenarioState": "open", "request": {"urlPath": "/door"}, "response": {"body": "open"}}"#,
                ] {
                    let created = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: mapping)
                    ids.append(try #require(try object(created.text)["id"] as? String))
                }
                // One of Airlock's own stubs in a scenario of its own.
                let stubs = #"""
                    {"stubs": [
                      {"path": "/light", "method": "GET", "scenarioName": "light", "requiredScenarioState": "Started", "responses": [{"body": "off", "lifetime": "eternal"}]},
                      {"path": "/light", "method": "GET", "scenarioName": "light", "requiredScenarioState": "on", "responses": [{"body": "on", "lifetime": "eternal"}]}
                    ]}
                    """#
                #expect(try await send(client, "\(base)/__admin/stubs", method: .POST, headers: Self.json, body: stubs).status == 201)

                let listed = try #require(try object(try await send(client, "\(base)/__admin/scenarios").text)["scenarios"] as? [[String: Any]])
                #expect(listed.map { $0["name"] as? String } == ["front door", "light"])
                #expect(listed.map { $0["id"] as? String } == ["front door", "light"])
                #expect(listed.map { $0["state"] as? String } == ["Started", "Started"])
                #expect(listed.map { $0["possibleStates"] as? [String] } == [["Started", "open"], ["Started", "on"]])
                // WireMock 3's `mappings`: a mapping as listed, one of Airlock's stubs by its description and step.
                let doorMappings = try #require(listed[0]["mappings"] as? [[String: Any]])
                #expect(doorMappings.map { $0["id"] as? String } == ids)
                #expect(doorMappings.map { ($0["request"] as? [String: Any])?["urlPath"] as? String } == ["/door", "/door"])
                let lightMappings = try #require(listed[1]["mappings"] as? [[String: Any]])
                #expect(lightMappings.count == 2)
                #expect(lightMappings.allSatisfy { ($0["name"] as? String)?.contains("\"/light\"") == true && $0["scenarioName"] as? String == "light" })
                #expect(lightMappings.map { $0["requiredScenarioState"] as? String } == ["Started", "on"])

                // A name with a space, percent-encoded in the path.
                let set = try await send(client, "\(base)/__admin/scenarios/front%20door/state", method: .PUT, body: #"{"state": "open"}"#)
                let answered = try object(set.text)
                #expect(set.status == 200 && answered.isEmpty, "\(set.text)")
                #expect(try await send(client, "\(base)/door").text == "open")
                #expect(try await send(client, "\(base)/__admin/scenarios/light/state", method: .PUT, body: #"{"state": "on"}"#).status == 200)
                #expect(try await send(client, "\(base)/light").text == "on")

                // A state no stub names: 422 with WireMock's code 11, naming the states there are.
                let refused = try await send(client, "\(base)/__admin/scenarios/front%20door/state", method: .PUT, body: #"{"state": "closed"}"#)
                #expect(refused.status == 422)
                let error = try #require((try object(refused.text)["errors"] as? [[String: Any]])?.first)
                #expect(error["code"] as? Int == 11)
                #expect((error["title"] as? String)?.contains(#""Started", "open""#) == true, "\(error)")
                // A scenario no stub names: 404.
                let unknown = try await send(client, "\(base)/__admin/scenarios/back%20door/state", method: .PUT, body: #"{"state": "open"}"#)
                #expect(unknown.status == 404)
                #expect(unknown.text.contains("Scenario back door does not exist"), "\(unknown.text)")
                // Not a state: 422, naming what to send.
                #expect(try await send(client, "\(base)/__admin/scenarios/light/state", method: .PUT, body: #"{"state": 1}"#).status == 422)
                // No body returns the one scenario to Started, the other stays.
                #expect(try await send(client, "\(base)/__admin/scenarios/front%20door/state", method: .PUT).status == 200)
                #expect(try await send(client, "\(base)/door").text == "opening")
                #expect(try await send(client, "\(base)/light").text == "on")

                // The admin API's checks hold here too: a web page's PUT is refused.
                let foreign = try await send(client, "\(base)/__admin/scenarios/light/state", method: .PUT, headers: [("Origin", "http://attacker.example")], body: #"{"state": "Started"}"#)
                #expect(foreign.status == 403)
                #expect(try await send(client, "\(base)/light").text == "on")

                #expect(try await send(client, "\(base)/__admin/scenarios/reset", method: .POST, headers: Self.json).status == 200)
                #expect(try await send(client, "\(base)/light").text == "off")
                let states = try #require(try object(try await send(client, "\(base)/__admin/scenarios").text)["scenarios"] as? [[String: Any]])
                #expect(states.map { $0["state"] as? String } == ["Started", "Started"])
            }
        }
    }

    @Test func nearMissesRankAirlocksOwnStubsAndMappingsWithTheCoresDiagnosis() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let stubs = #"{"stubs": [{"path": "/orders", "method": "POST", "responses": [{"status": 201, "body": "created", "lifetime": "eternal"}]}]}"#
                #expect(try await send(client, "\(base)/__admin/stubs", method: .POST, headers: Self.json, body: stubs).status == 201)
                let created = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: #"""
                    {"request": {"method": "GET", "urlPath": "/users", "headers": {"Accept": {"contains": "json"}}}, "response": {"body": "[]"}}
                    """#)
                let mappingID = try #require(try object(created.text)["id"] as? String)
                let secret = "s3cret-near-miss-token"
                #expect(try await send(client, "\(base)/orders", headers: [("Authorization", "Bearer \(secret)")]).status == 404)

                // The journal's unmatched request, nearest first: Airlock's stub for its path.
                let unmatched = try await send(client, "\(base)/__admin/requests/unmatched/near-misses")
                #expect(!unmatched.text.contains(secret), "the request's token is shown: \(unmatched.text)")
                let misses = try #require(try object(unmatched.text)["nearMisses"] as? [[String: Any]])
                #expect(misses.count == 2)
                #expect(misses.allSatisfy { ($0["request"] as? [String: Any])?["url"] as? String == "/orders" })
                let nearest = try #require(misses.first)
                #expect(((nearest["stubMapping"] as? [String: Any])?["name"] as? String)?.contains(#"path "/orders""#) == true, "\(nearest)")
                #expect((nearest["diagnostic"] as? String)?.contains("path ✓") == true, "\(nearest)")
                let distances = misses.compactMap { ($0["matchResult"] as? [String: Any])?["distance"] as? Double }
                #expect(distances.count == 2 && distances.allSatisfy { $0 > 0 && $0 < 1 } && distances == distances.sorted(), "\(distances)")
                #expect((misses.last?["stubMapping"] as? [String: Any])?["id"] as? String == mappingID)

                // A request that Airlock's stub would answer is at distance 0.
                let byRequest = try await send(client, "\(base)/__admin/near-misses/request", method: .POST, headers: Self.json, body: #"{"url": "/orders", "method": "POST"}"#)
                let exact = try #require((try object(byRequest.text)["nearMisses"] as? [[String: Any]])?.first)
                #expect((exact["matchResult"] as? [String: Any])?["distance"] as? Double == 0)
                // A mapping ranks by WireMock's distance: the request with the header it wants is nearer.
                let without = try await send(client, "\(base)/__admin/near-misses/request", method: .POST, headers: Self.json, body: #"{"url": "/users", "method": "GET"}"#)
                let with = try await send(client, "\(base)/__admin/near-misses/request", method: .POST, headers: Self.json,
                                          body: #"{"url": "/users", "method": "GET", "headers": {"Accept": "application/json", "Authorization": "Bearer \#(secret)"}}"#)
                #expect(!with.text.contains(secret), "the posted token is shown: \(with.text)")
                let withoutMiss = try #require((try object(without.text)["nearMisses"] as? [[String: Any]])?.first)
                let withMiss = try #require((try object(with.text)["nearMisses"] as? [[String: Any]])?.first)
                #expect((withoutMiss["stubMapping"] as? [String: Any])?["id"] as? String == mappingID)
                let far = try #require((withoutMiss["matchResult"] as? [String: Any])?["distance"] as? Double)
                #expect(far > 0)
                #expect((withMiss["matchResult"] as? [String: Any])?["distance"] as? Double == 0)

                // What is not a logged request is refused, naming what to send; a POST that is not JSON too.
                let invalid = try await send(client, "\(base)/__admin/near-misses/request", method: .POST, headers: Self.json, body: "[1]")
                #expect(invalid.status == 422 && invalid.text.contains("send a logged request"), "\(invalid.text)")
                #expect(try await send(client, "\(base)/__admin/near-misses/request", method: .POST, body: #"{"url": "/orders"}"#).status == 415)
            }
        }
    }

    /// Whether each text is in `answer`, each after the one before it.
    private func inOrder(_ texts: [String], in answer: String) -> Bool {
        var rest = answer[...]
        for text in texts {
            guard let found = rest.range(of: text) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }

    @Test func answersKeepTheOrderOfWhatWasSent() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let created = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: #"""
                    {"request": {"urlPath": "/order", "method": "GET"}, "response": {"status": 200, "jsonBody": {"zeta": 1.5, "alpha": 2}},
                     "metadata": {"team": "b", "area": "a"}}
                    """#)
                #expect(created.status == 201)
                // A mapping as posted, members in its order (not sorted), pretty-printed as WireMock's Jackson does.
                let listed = try await send(client, "\(base)/__admin/mappings").text
                #expect(inOrder([#""urlPath" : "/order""#, #""method" : "GET""#, #""zeta" : 1.5"#, #""alpha" : 2"#, #""team""#, #""area""#], in: listed), "\(listed)")

                // A logged request's headers in the order the client sent them.
                _ = try await send(client, "\(base)/order", headers: [("X-Zulu", "1"), ("X-Alpha", "2")])
                let found = try await send(client, "\(base)/__admin/requests/find", method: .POST, headers: Self.json, body: #"{"urlPath": "/order"}"#).text
                #expect(inOrder([#""X-Zulu" : "1""#, #""X-Alpha" : "2""#], in: found), "\(found)")
                // A request pattern echoed as sent.
                let misses = try await send(
                    client, "\(base)/__admin/near-misses/request-pattern", method: .POST, headers: Self.json,
                    body: #"{"urlPath": "/ordr", "method": "GET"}"#
                ).text
                #expect(inOrder([#""requestPattern" : {"#, #""urlPath" : "/ordr","#, #""method" : "GET""#, "}"], in: misses), "\(misses)")
            }
        }
    }

    @Test func listedMappingsHideSecretValuesAsTheJournalDoes() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let created = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: #"""
                    {"request": {"urlPath": "/me", "headers": {"Authorization": {"equalTo": "Bearer s3cret-token"}},
                                 "basicAuthCredentials": {"username": "ann", "password": "hunter2"}},
                     "response": {"body": "me", "headers": {"Set-Cookie": "session=abc123"}}}
                    """#)
                #expect(created.status == 201)
                let listed = try await send(client, "\(base)/__admin/mappings")
                for secret in ["s3cret-token", "hunter2", "abc123"] {
                    #expect(!created.text.contains(secret) && !listed.text.contains(secret), "\(secret) shown")
                }
                #expect(listed.text.contains(#""username" : "ann""#))

                // The token a proxy adds to the request it sends on, too.
                let proxy = try await send(client, "\(base)/__admin/mappings", method: .POST, headers: Self.json, body: #"""
                    {"request": {"urlPath": "/up"}, "response": {"proxyBaseUrl": "http://127.0.0.1:9", "additionalProxyRequestHeaders": {"Authorization": "Bearer proxy-s3cret", "X-Team": "blue"}}}
                    """#)
                #expect(proxy.status == 201)
                let relisted = try await send(client, "\(base)/__admin/mappings")
                #expect(!proxy.text.contains("proxy-s3cret") && !relisted.text.contains("proxy-s3cret"), "\(relisted.text)")
                #expect(relisted.text.contains(#""X-Team" : "blue""#), "\(relisted.text)")
            }
        }
    }
}

/// `airlock serve` with a WireMock root folder, as a child process.
struct WireMockCLITests {
    @Test(arguments: [["--wiremock"], ["--root-dir"], []])
    func airlockServeServesAWireMockRootAndStopsOnAdminShutdown(flag: [String]) async throws {
        let folder = try WireMockFolder(mappings: ["ping.json": #"{"request": {"urlPath": "/ping"}, "response": {"body": "pong"}}"#])
        defer { folder.remove() }
        let airlock = try LaunchedAirlock(["serve"] + flag + [folder.root.path, "--port", "0"])
        defer { airlock.stopIfRunning() }
        let (banner, base) = try await airlock.banner()
        #expect(banner.hasPrefix("Airlock serving 1 WireMock mapping(s) from \(folder.root.path) at "), "\(banner)")
        #expect(await airlock.lines.next()?.hasPrefix("Admin API: \(base)/__admin/mappings (WireMock's)") == true)
        try await withClient { client in
            let ping = try await send(client, "\(base)/ping")
            #expect(ping.text == "pong")
            let shutdown = try await send(client, "\(base)/__admin/shutdown", method: .POST, headers: WireMockAdminAPITests.json)
            #expect(shutdown.status == 200)
        }
        #expect(await airlock.exit.status() == 0)
    }

    @Test func skipUnsupportedServesTheRestAndNamesEachLeftOut() async throws {
        let folder = try WireMockFolder(mappings: [
            "ping.json": #"{"request": {"urlPath": "/ping"}, "response": {"body": "pong"}}"#,
            "draft7.json": #"{"request": {"urlPath": "/orders", "bodyPatterns": [{"matchesJsonSchema": {}, "schemaVersion": "V7"}]}, "response": {"status": 201}}"#,
        ])
        defer { folder.remove() }
        let errors = Pipe()
        let airlock = try LaunchedAirlock(["serve", "--wiremock", folder.root.path, "--skip-unsupported", "--port", "0"], standardError: errors)
        defer { airlock.stopIfRunning() }
        let (banner, base) = try await airlock.banner()
        #expect(banner.hasPrefix("Airlock serving 1 WireMock mapping(s) from "), "\(banner)")
        try await withClient { client in
            let ping = try await send(client, "\(base)/ping")
            #expect(ping.text == "pong")
        }
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.hasPrefix("airlock: skipped \(folder.root.appendingPathComponent("mappings/draft7.json").path), request.bodyPatterns[0].schemaVersion: is \"V7\", a JSON Schema draft"), "\(message)")
    }

    @Test func aMappingAirlockCannotServeStopsItNamingTheField() async throws {
        let folder = try WireMockFolder(mappings: ["draft7.json": #"{"request": {"urlPath": "/orders", "bodyPatterns": [{"matchesJsonSchema": {}, "schemaVersion": "V7"}]}, "response": {"status": 201}}"#])
        defer { folder.remove() }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: try #require(CLITests.executable))
        process.arguments = ["serve", "--wiremock", folder.root.path, "--port", "0"]
        let errors = Pipe()
        process.standardError = errors
        let exit = try ChildProcess(running: process)
        let status = await exit.status()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 65)
        #expect(message.contains("draft7.json, request.bodyPatterns[0].schemaVersion: is \"V7\", a JSON Schema draft Airlock's validator does not implement"), "\(message)")
    }
}
