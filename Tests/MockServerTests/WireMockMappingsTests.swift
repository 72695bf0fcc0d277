import AsyncHTTPClient
import Foundation
import HTTPMock
import HTTPTestSupport
import MockServer
import NIOHTTP1
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WireMock root folder (`mappings/`, `__files/`) in a fresh temporary folder.
struct WireMockFolder {
    let root: URL

    /// Writes `mappings` (file name → JSON) and `files` (name → contents) under a new root.
    init(mappings: [String: String], files: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-wiremock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        for (name, json) in mappings {
            try Data(json.utf8).write(to: root.appendingPathComponent("mappings/\(name)"))
        }
        for (name, contents) in files {
            try Data(contents.utf8).write(to: root.appendingPathComponent("__files/\(name)"))
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// WireMock mapping folders served by Airlock: the same answers through `URLSession` in-process
/// and over the socket, WireMock's precedence, its delays, and the fields refused by name.
struct WireMockMappingsTests {
    static let mappings = [
        "hello.json": #"""
            {"request": {"method": "GET", "urlPath": "/hello"},
             "response": {"status": 200, "body": "hi", "headers": {"X-Trace": "t1", "Content-Type": "text/plain", "Set-Cookie": ["a=1", "b=2"]}}}
            """#,
        "many.json": #"""
            {"mappings": [
              {"request": {"method": "ANY", "url": "/user"}, "response": {"status": 201, "jsonBody": {"name": "Alice", "id": 1, "tags": ["a/b", "é"]}, "headers": {"Content-Type": "application/json"}}},
              {"request": {"method": "GET", "urlPath": "/file"}, "response": {"bodyFileName": "user.json", "headers": {"Content-Type": "application/json"}}},
              {"request": {"method": "GET", "urlPath": "/bytes"}, "response": {"base64Body": "AAEC/w=="}},
              {"request": {"method": "GET", "urlPath": "/templated"}, "response": {"body": "you asked for {{request.path}}", "transformers": ["response-template"]}},
              {"request": {"method": "GET", "urlPath": "/teapot"}, "response": {"status": 418, "statusMessage": "I'm a teapot"}},
              {"scenarioName": "cart", "requiredScenarioState": "Started", "newScenarioState": "full",
               "request": {"method": "GET", "urlPath": "/cart"}, "response": {"body": "empty"}},
              {"scenarioName": "cart", "requiredScenarioState": "full",
               "request": {"method": "GET", "urlPath": "/cart"}, "response": {"body": "one book"}}
            ]}
            """#,
    ]

    static let files = ["user.json": #"{"from": "a file"}"#]

    /// What one request came back with, the same way for both transports.
    struct Answer: Equatable, CustomStringConvertible {
        let status: Int
        let body: Data
        let headers: [String: String]

        var description: String { "\(status) \(headers) \(String(decoding: body, as: UTF8.self))" }
    }

    /// The headers the comparison looks at.
    static let compared = ["content-type", "x-trace"]

    @Test func theSameMappingsAnswerTheSameInProcessAndOverTheSocket() async throws {
        let folder = try WireMockFolder(mappings: Self.mappings, files: Self.files)
        defer { folder.remove() }
        let inProcess = HTTPMock()
        #expect(inProcess.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        let served = HTTPMock()
        #expect(served.registerStubs(try WireMockMappings(directory: folder.root.appendingPathComponent("mappings"))).isEmpty)

        let requests: [(method: String, path: String)] = [
            ("GET", "/hello"), ("POST", "/hello"), ("GET", "/user"), ("DELETE", "/user"), ("GET", "/file"), ("GET", "/bytes"),
            ("GET", "/templated"), ("GET", "/teapot"), ("GET", "/cart"), ("GET", "/cart"), ("GET", "/cart"),
        ]
        var local: [Answer] = []
        var bytes = Data()
        for request in requests {
            let fetched = try await inProcess.fetch("https://api.example.com\(request.path)", method: request.method)
            if request.path == "/bytes" { bytes = fetched.data }
            // As text, the way the socket client below reads bodies.
            local.append(Answer(status: fetched.status, body: Data(fetched.text.utf8), headers: Self.pick(fetched.headers)))
        }
        var remote: [Answer] = []
        try await withServer(served) { server in
            try await withClient { client in
                for request in requests {
                    let answer = try await send(client, "\(server.baseURL.absoluteString)\(request.path)", method: HTTPMethod(rawValue: request.method))
                    var headers: [String: String] = [:]
                    for (name, value) in answer.headers { headers[name] = value }
                    remote.append(Answer(status: answer.status, body: Data(answer.text.utf8), headers: Self.pick(headers)))
                }
            }
        }
        // An unmatched request's 404 names the URL it was sent to, which differs: its status is compared.
        let unmatched = requests.indices.filter { local[$0].status == 404 }
        #expect(unmatched == [1] && unmatched.allSatisfy { remote[$0].status == 404 })
        #expect(local.indices.filter { !unmatched.contains($0) }.map { local[$0] } == remote.indices.filter { !unmatched.contains($0) }.map { remote[$0] })
        #expect(local.map(\.status) == [200, 404, 201, 201, 200, 200, 200, 418, 200, 200, 200])
        #expect(String(decoding: local[0].body, as: UTF8.self) == "hi" && local[0].headers["x-trace"] == "t1")
        // Compact, in the mapping's order, as WireMock writes a jsonBody.
        #expect(String(decoding: local[2].body, as: UTF8.self) == #"{"name":"Alice","id":1,"tags":["a/b","é"]}"#)
        #expect(String(decoding: local[4].body, as: UTF8.self) == #"{"from": "a file"}"#)
        #expect(bytes == Data([0, 1, 2, 255]))
        #expect(String(decoding: local[6].body, as: UTF8.self) == "you asked for /templated")
        #expect(local[8...].map { String(decoding: $0.body, as: UTF8.self) } == ["empty", "one book", "one book"])
    }

    /// WireMock templates text bodies only: a `base64Body` keeps its bytes under the
    /// `response-template` transformer, while the headers are still templates (found by
    /// `WireMockSideBySideTests`: the body came back empty).
    @Test func aTemplatedMappingSendsItsBase64BodyAsIs() async throws {
        let folder = try WireMockFolder(mappings: [
            "binary.json": #"""
                {"request": {"urlPath": "/binary"},
                 "response": {"base64Body": "AAEC/3t7cmVxdWVzdC5wYXRofX0=", "headers": {"X-Path": "{{request.path}}"}, "transformers": ["response-template"]}}
                """#
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        let fetched = try await mock.fetch("https://api.example.com/binary")
        #expect(fetched.data == Data([0, 1, 2, 255]) + Data("{{request.path}}".utf8))
        #expect(fetched.header("X-Path") == "/binary")
    }

    @Test func repeatedResponseHeadersReachTheClientAsSeparateFields() async throws {
        let folder = try WireMockFolder(mappings: Self.mappings, files: Self.files)
        defer { folder.remove() }
        let mock = HTTPMock()
        mock.registerStubs(try WireMockMappings(directory: folder.root))
        try await withServer(mock) { server in
            try await withClient { client in
                let answer = try await send(client, "\(server.baseURL.absoluteString)/hello")
                #expect(answer.headers["Set-Cookie"] == ["a=1", "b=2"])
                // In the mapping's order, each value of an array a field of its own.
                let names = answer.headers.map(\.name).filter { !["Content-Length", "Date"].contains($0) }
                #expect(names == ["X-Trace", "Content-Type", "Set-Cookie", "Set-Cookie"])
            }
        }
    }

    private static func pick(_ headers: [String: String]) -> [String: String] {
        var picked: [String: String] = [:]
        for (name, value) in headers where compared.contains(name.lowercased()) { picked[name.lowercased()] = value }
        return picked
    }

    @Test func templatesEscapeWhatTheyInsertAsHandlebarsDoesUnlessTripleStashed() async throws {
        let mappings = try WireMockMappings(data: Data(#"""
            {"request": {"urlPath": "/echo"},
             "response": {"body": "{{request.query.q}} | {{{request.query.q}}}", "headers": {"X-Echo": "{{request.query.q}}"},
                          "transformers": ["response-template"]}}
            """#.utf8), source: "echo mapping", rootDirectory: FileManager.default.temporaryDirectory)
        let mock = HTTPMock()
        mock.registerStubs(mappings)
        let echoed = try await mock.fetch("https://a.test/echo?q=%3Cb%3E%26%22x%22%3D1")
        #expect(echoed.text == "&lt;b&gt;&amp;&quot;x&quot;&#x3D;1 | <b>&\"x\"=1")
        #expect(echoed.header("X-Echo") == "&lt;b&gt;&amp;&quot;x&quot;&#x3D;1")
        #expect(echoed.header("Content-Type") == nil)
    }

    @Test func aStatusMessageIsTheStatusLinesReasonOverTheSocket() async throws {
        let mappings = try WireMockMappings(data: Data(#"""
            {"mappings": [
              {"request": {"urlPath": "/teapot"}, "response": {"status": 418, "statusMessage": "Short and stout"}},
              {"request": {"urlPath": "/templated"}, "response": {"status": 200, "statusMessage": "Fine thanks", "body": "{{request.path}}", "transformers": ["response-template"]}}
            ]}
            """#.utf8), source: "reasons", rootDirectory: FileManager.default.temporaryDirectory)
        let mock = HTTPMock()
        mock.registerStubs(mappings)
        try await withServer(mock) { server in
            for (path, line) in [("/teapot", "HTTP/1.1 418 Short and stout"), ("/templated", "HTTP/1.1 200 Fine thanks")] {
                let answer = try await rawExchange(port: server.port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
                #expect(answer.hasPrefix(line + "\r\n"), "\(answer)")
            }
        }
        let refused = #expect(throws: StubFileError.self) {
            try WireMockMappings(data: Data(#"{"request": {}, "response": {"statusMessage": "two\nlines"}}"#.utf8), source: "m", rootDirectory: FileManager.default.temporaryDirectory)
        }
        #expect(refused?.description == "m, response.statusMessage: has a control character; expected a reason phrase on one line, without control characters")
    }

    // MARK: Proxying

    @Test func aProxyMappingSendsTheRequestOnInProcessAndOverTheSocket() async throws {
        let upstream = HTTPMock()
        upstream.addResponses(forPath: "/api/items", host: "**", queryItems: ["x": "1"]) {
            MockResponse.plaintext("from upstream", status: .accepted, lifetime: .eternal, headers: ["X-Upstream": "yes"])
        }
        try await withServer(upstream) { origin in
            let mapping = Data(#"""
                {"request": {"urlPathPattern": "/proxied/.*"},
                 "response": {"proxyBaseUrl": "\#(origin.baseURL.absoluteString)/api", "proxyUrlPrefixToRemove": "/proxied", "fixedDelayMilliseconds": 100}}
                """#.utf8)
            let mappings = try WireMockMappings(data: mapping, source: "proxy mapping", rootDirectory: FileManager.default.temporaryDirectory)

            let inProcess = HTTPMock()
            inProcess.registerStubs(mappings)
            let clock = ContinuousClock()
            let start = clock.now
            let fetched = try await inProcess.fetch("https://api.example.com/proxied/items?x=1")
            #expect(clock.now - start >= .milliseconds(95))
            #expect(fetched.status == 202 && fetched.text == "from upstream" && fetched.header("X-Upstream") == "yes")

            let served = HTTPMock()
            served.registerStubs(mappings)
            try await withServer(served) { server in
                try await withClient { client in
                    let answer = try await send(client, "\(server.baseURL.absoluteString)/proxied/items?x=1")
                    #expect(answer.status == 202 && answer.text == "from upstream" && answer.headers["X-Upstream"] == ["yes"])
                }
            }
            // Both arrived at the upstream under its own URL and Host.
            let arrived = upstream.requests
            #expect(arrived.count == 2)
            #expect(arrived.allSatisfy { $0.url == "\(origin.baseURL.absoluteString)/api/items?x=1" })
            #expect(arrived.allSatisfy { $0.header("Host") == "127.0.0.1:\(origin.baseURL.port ?? 0)" })
        }
    }

    /// `removeProxyRequestHeaders` and `additionalProxyRequestHeaders` (a value templated), as
    /// a real server on loopback receives them: the same fields in-process and over the socket.
    @Test func aProxyMappingRemovesAndAddsHeaderFieldsOfTheForwardedRequest() async throws {
        // The upstream answers with the fields it got, one `name: value` line each.
        let upstream = HTTPMock()
        upstream.addResponses(forPath: "/echo", host: "**") {
            MockResponse.computed(lifetime: .eternal) { request in
                .plaintext(request.headers.map { "\($0.name.lowercased()): \($0.value)" }.joined(separator: "\n"))
            }
        }
        try await withServer(upstream) { origin in
            let mapping = Data(#"""
                {"request": {"urlPath": "/echo"},
                 "response": {"proxyBaseUrl": "\#(origin.baseURL.absoluteString)", "transformers": ["response-template"],
                              "removeProxyRequestHeaders": ["x-secret", "USER-AGENT"],
                              "additionalProxyRequestHeaders": {"X-Added": "fixed", "X-Trace": "trace-{{request.headers.X-Request-Id}}", "x-replaced": "new"}}}
                """#.utf8)
            let mappings = try WireMockMappings(data: mapping, source: "proxy mapping", rootDirectory: FileManager.default.temporaryDirectory)
            let sent = ["X-Secret": "s3cret", "User-Agent": "airlock-test-agent", "X-Request-Id": "42", "X-Replaced": "old", "X-Kept": "kept"]

            let inProcess = HTTPMock()
            #expect(inProcess.registerStubs(mappings).isEmpty)
            let fetched = try await inProcess.fetch("https://api.example.com/echo", headers: sent)
            #expect(fetched.status == 200)
            var received = [fetched.text.split(separator: "\n").map(String.init)]

            let served = HTTPMock()
            served.registerStubs(mappings)
            try await withServer(served) { server in
                try await withClient { client in
                    let answer = try await send(client, "\(server.baseURL.absoluteString)/echo", headers: sent.map { ($0.key, $0.value) })
                    #expect(answer.status == 200)
                    received.append(answer.text.split(separator: "\n").map(String.init))
                }
            }
            for lines in received {
                for line in ["x-added: fixed", "x-trace: trace-42", "x-replaced: new", "x-kept: kept", "x-request-id: 42"] {
                    #expect(lines.contains(line), "\(line) not in \(lines)")
                }
                // Removed whatever their case; the sent value of a replaced field is gone.
                #expect(!lines.contains { $0.hasPrefix("x-secret:") }, "\(lines)")
                #expect(!lines.contains("user-agent: airlock-test-agent"), "\(lines)")
                #expect(lines.filter { $0.hasPrefix("x-replaced:") } == ["x-replaced: new"], "\(lines)")
                #expect(lines.filter { $0.hasPrefix("host:") } == ["host: 127.0.0.1:\(origin.baseURL.port ?? 0)"], "\(lines)")
            }
            #expect(upstream.requests.count == 2)
        }
    }

    /// An added value rendered into something a header cannot carry fails the exchange, naming
    /// the header, instead of sending it.
    @Test func anAddedProxyHeaderThatRendersALineBreakFailsNamingIt() async throws {
        let upstream = HTTPMock()
        upstream.addResponses(forPath: "/echo", host: "**") { MockResponse.plaintext("reached", lifetime: .eternal) }
        try await withServer(upstream) { origin in
            let mapping = Data(#"""
                {"request": {"urlPath": "/echo"},
                 "response": {"proxyBaseUrl": "\#(origin.baseURL.absoluteString)", "transformers": ["response-template"],
                              "additionalProxyRequestHeaders": {"X-From-Query": "{{request.query.v}}"}}}
                """#.utf8)
            let served = HTTPMock()
            served.registerStubs(try WireMockMappings(data: mapping, source: "proxy mapping", rootDirectory: FileManager.default.temporaryDirectory))
            try await withServer(served) { server in
                try await withClient { client in
                    let answer = try await send(client, "\(server.baseURL.absoluteString)/echo?v=a%0D%0AX-Injected:%20yes")
                    #expect(answer.status == 500)
                    #expect(answer.text.contains("added header X-From-Query cannot be sent"), "\(answer.text)")
                }
            }
            #expect(upstream.requests.isEmpty)
        }
    }

    // MARK: Precedence

    @Test func theLowestPriorityWinsThenTheNewestAndSwiftStubsBeatMappingsOfTheirPriority() async throws {
        let folder = try WireMockFolder(mappings: [
            "a.json": #"{"request": {"urlPathPattern": "/items/.*"}, "response": {"body": "catch-all"}, "priority": 10}"#,
            "b.json": #"{"request": {"urlPath": "/items/1"}, "response": {"body": "older"}}"#,
            "c.json": #"{"request": {"urlPath": "/items/1"}, "response": {"body": "newer"}}"#,
            "d.json": #"{"request": {"urlPath": "/items/2"}, "response": {"body": "urgent"}, "priority": 1}"#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        #expect(try await mock.fetch("https://a.test/items/1").text == "newer")
        #expect(try await mock.fetch("https://a.test/items/9").text == "catch-all")
        mock.addResponses(forPath: "/items/*", host: "a.test") {
            MockResponse.plaintext("swift", lifetime: .eternal)
        }
        // Priority 5 (the Swift stub) beats priority 5 and 10 mappings, not priority 1.
        #expect(try await mock.fetch("https://a.test/items/1").text == "swift")
        #expect(try await mock.fetch("https://a.test/items/9").text == "swift")
        #expect(try await mock.fetch("https://a.test/items/2").text == "urgent")
    }

    // MARK: Delays

    @Test func aFixedDelayAndAFixedDistributionAddUp() async throws {
        let folder = try WireMockFolder(mappings: [
            "slow.json": #"""
                {"request": {"urlPath": "/slow"},
                 "response": {"body": "late", "fixedDelayMilliseconds": 150, "delayDistribution": {"type": "uniform", "lower": 150, "upper": 150}}}
                """#,
            "dribble.json": #"""
                {"request": {"urlPath": "/dribble"},
                 "response": {"body": "abcdefghijklmnopqrstuvwxyz", "chunkedDribbleDelay": {"numberOfChunks": 4, "totalDuration": 300}}}
                """#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        let clock = ContinuousClock()
        var start = clock.now
        #expect(try await mock.fetch("https://a.test/slow").text == "late")
        #expect(clock.now - start >= .milliseconds(290))
        start = clock.now
        #expect(try await mock.fetch("https://a.test/dribble").text == "abcdefghijklmnopqrstuvwxyz")
        #expect(clock.now - start >= .milliseconds(280))
    }

    // MARK: Refusals

    @Test(arguments: [
        (
            #"{"request": {"urlPath": "/p"}, "response": {"proxyBaseUrl": "https://example.com", "additionalProxyRequestHeaders": {"Host": "other.test"}}}"#,
            "response.additionalProxyRequestHeaders.Host: sets Host, which belongs to the connection to the other server"
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"proxyBaseUrl": "https://example.com", "additionalProxyRequestHeaders": {"X-A": ["1", "2"]}}}"#,
            "response.additionalProxyRequestHeaders.X-A: has 2 values; expected one value (WireMock sends only the first)"
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"body": "x", "removeProxyRequestHeaders": ["X-A"]}}"#,
            #"response.removeProxyRequestHeaders: is given without "proxyBaseUrl""#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"proxyBaseUrl": "{{request.headers.X-Url", "transformers": ["response-template"]}}"#,
            "response.proxyBaseUrl: has \"{{\" without a closing \"}}\""
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"proxyBaseUrl": "https://example.com", "status": 200}}"#,
            #"response.status: is given beside "proxyBaseUrl", where the other server's answer is sent as it is"#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"proxyBaseUrl": "ftp://example.com"}}"#,
            #"response.proxyBaseUrl: is "ftp://example.com"; expected an http or https base URL"#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"body": "x", "transformers": ["my-extension"]}}"#,
            #"response.transformers[0]: names the transformer "my-extension", which Airlock does not have"#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"fault": "SOMETHING"}}"#,
            #"response.fault: is "SOMETHING"; expected one of "EMPTY_RESPONSE", "CONNECTION_RESET_BY_PEER", "MALFORMED_RESPONSE_CHUNK", "RANDOM_DATA_THEN_CLOSE""#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"body": "x", "jsonBody": {}}}"#,
            "response: has body and jsonBody; expected at most one of body, jsonBody, base64Body and bodyFileName"
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"bodyFileName": "../secret.txt"}}"#,
            #"response.bodyFileName: "../secret.txt" is outside"#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"status": 200}, "priority": 0}"#,
            "priority: is 0; expected a priority of 1 or more (1 is the highest)"
        ),
        (
            #"{"id": "not-a-uuid", "request": {"urlPath": "/p"}, "response": {}}"#,
            #"id: is "not-a-uuid"; expected a UUID"#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "respone": {}}"#,
            #"respone: is not a field of a WireMock mapping; did you mean "response"?"#
        ),
        (
            #"{"request": {"urlPath": "/p"}, "response": {"fixedDelayMilliseconds": -5}}"#,
            "response.fixedDelayMilliseconds: "
        ),
    ])
    func anUnsupportedOrWrongFieldIsRefusedByItsPath(mapping: String, expected: String) throws {
        let folder = try WireMockFolder(mappings: ["m.json": mapping])
        defer { folder.remove() }
        let error = #expect(throws: StubFileError.self) { try WireMockMappings(directory: folder.root) }
        let message = error?.description ?? ""
        #expect(message.hasPrefix(folder.root.appendingPathComponent("mappings/m.json").path + ", "), "\(message)")
        #expect(message.contains(expected), "\(message)")
    }

    @Test func skippingUnsupportedLeavesOutOnlyWhatCannotBeServedAndSaysWhy() async throws {
        let folder = try WireMockFolder(mappings: [
            "both.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/kept"}, "response": {"body": "kept"}},
                  {"request": {"urlPath": "/xml", "customMatcher": {"name": "is-xml"}}, "response": {"body": "xml"}}
                ]}
                """#,
            "broken.json": "{ nope",
        ])
        defer { folder.remove() }
        #expect(throws: StubFileError.self) { try WireMockMappings(directory: folder.root) }
        let mappings = try WireMockMappings(directory: folder.root, skippingUnsupported: true)
        #expect(mappings.mappingCount == 1)
        #expect(mappings.skipped.map(\.location) == ["mappings[1].request.customMatcher", "line 1, column 3"])
        let mock = HTTPMock()
        mock.registerStubs(mappings)
        #expect(try await mock.fetch("https://a.test/kept").text == "kept")
        #expect(try await mock.fetch("https://a.test/xml").status == 404)
    }

    @Test func aFolderWithoutMappingsIsRefusedSayingWhatToGive() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-no-mappings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let error = #expect(throws: StubFileError.self) { try WireMockMappings(directory: empty) }
        #expect(error?.description == "\(empty.path): has no mappings folder (looked for \(empty.appendingPathComponent("mappings").path)); expected WireMock's root folder, which holds mappings/ (and __files/ for bodyFileName)")
    }
}
