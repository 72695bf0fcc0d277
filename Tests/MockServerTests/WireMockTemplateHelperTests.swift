import AirlockStubFiles
import AsyncHTTPClient
import Foundation
@_spi(AirlockTransport) import HTTPMock
import MockServer
import NIOHTTP1
import Testing

/// WireMock's template helpers that give a new value each time (checked by shape: WireMock's
/// own answers for the others are in `Tests/Fixtures/WireMockBuiltIns`), stubr's generators,
/// `transformerParameters`, templated `bodyFileName` and `proxyBaseUrl`, what WireMock drops
/// when it loads a mapping, and the errors of helpers given what they cannot use — all served
/// by `MockServer` from mapping folders and asked over a loopback socket.
struct WireMockTemplateHelperTests {
    /// A mapping folder with one templated mapping per body, at `/t/<index>`.
    static func folder(_ bodies: [String], files: [String: String] = [:]) throws -> WireMockFolder {
        let mappings = bodies.enumerated().map { index, body in
            let encoded = String(decoding: try! JSONSerialization.data(withJSONObject: body, options: .fragmentsAllowed), as: UTF8.self)
            return #"{"request": {"urlPath": "/t/\#(index)"}, "response": {"body": \#(encoded), "transformers": ["response-template"]}}"#
        }
        return try WireMockFolder(mappings: ["templates.json": #"{"mappings": [\#(mappings.joined(separator: ","))]}"#], files: files)
    }

    /// Each body's rendering for a GET of `/t/<index>`.
    static func rendered(_ bodies: [String], times: Int = 1) async throws -> [[String]] {
        let folder = try folder(bodies)
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        var answers: [[String]] = []
        try await withServer(mock) { server in
            try await withClient { client in
                for index in bodies.indices {
                    var texts: [String] = []
                    for _ in 0..<times {
                        let answer = try await send(client, server.baseURL.absoluteString + "/t/\(index)")
                        #expect(answer.status == 200, "\(bodies[index]): \(answer.text)")
                        texts.append(answer.text)
                    }
                    answers.append(texts)
                }
            }
        }
        return answers
    }

    /// Serves the folder's mappings with `MockServer`; `body` gets a client and the base URL.
    static func serve(_ folder: WireMockFolder, _ body: (HTTPClient, String) async throws -> Void) async throws {
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        try await withServer(mock) { server in
            try await withClient { client in try await body(client, server.baseURL.absoluteString) }
        }
    }

    static func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: "^(?:" + pattern + ")$", options: .regularExpression) != nil
    }

    @Test func randomHelpersGiveValuesOfTheirShape() async throws {
        let cases: [(template: String, shape: String)] = [
            ("{{randomValue length=12 type='NUMERIC'}}", "[0-9]{12}"),
            ("{{randomValue length=5 type='ALPHABETIC' uppercase=true}}", "[A-Z]{5}"),
            ("{{randomValue type='UUID'}}", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
            ("{{{randomValue length=6 type='ALPHANUMERIC_AND_SYMBOLS'}}}", ".{6}"),
            ("{{randomInt lower=5 upper=9}}", "[5-8]"),
            ("{{randomDecimal lower=1 upper=2}}", "1\\.[0-9E-]+|1"),
            ("{{pickRandom 'red' 'green'}}", "red|green"),
            ("{{pickRandom (array 1 2 3)}}", "[123]"),
            ("{{now format='yyyy-MM-dd' timezone='Europe/Rome' offset='-3 days'}}", "[0-9]{4}-[0-9]{2}-[0-9]{2}"),
            ("{{now format='epoch'}}", "[0-9]{13}"),
            ("{{anyRegex '[a-c]{2,4}-(x|yz)+\\d'}}", "[a-c]{2,4}-(x|yz)+[0-9]"),
            ("{{anyRegex '[0-9]{5}'}}", "[0-9]{5}"),
            ("{{anyU8}}", "[0-9]{1,3}"),
            ("{{anyI16}}", "-?[0-9]{1,5}"),
            ("{{anyU64}}", "[0-9]{1,20}"),
            ("{{anyUuid}}", "[0-9a-f-]{36}"),
            ("{{anyEmail}}", "[a-z]+@[a-z]+\\.com"),
            ("{{anyBoolean}}", "true|false"),
            ("{{anyFloat}}", "-?[0-9]+\\.[0-9E-]+"),
            ("{{anyNumber}}", "-?[0-9]+(\\.[0-9E-]+)?"),
            ("{{anyDate}}", "[0-9]{4}-[0-9]{2}-[0-9]{2}"),
            ("{{anyTime}}", "[0-9]{2}:[0-9]{2}:[0-9]{2}"),
            ("{{anyDatetime}}", "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"),
            ("{{anyIso8601}}", "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"),
            ("{{anyHostname}}", "[a-z]+\\.[a-z]+\\.com"),
            ("{{anyIpAddress}}", "[0-9]{1,3}(\\.[0-9]{1,3}){3}"),
            ("{{anyAlphaNumeric}}", "[A-Za-z0-9]+"),
            ("{{anyNonBlankString}}", ".*[^ ].*"),
            ("{{anyNonEmptyString}}", ".+"),
            ("{{anyOf 'A' 'B' 'C'}}", "[ABC]"),
        ]
        let answers = try await Self.rendered(cases.map(\.template), times: 4)
        for (item, texts) in zip(cases, answers) {
            for text in texts {
                #expect(Self.matches(text, item.shape), "\(item.template) gave \"\(text)\"")
            }
        }
    }

    /// WireMock 3's helpers, by its documentation (its jar is not available here to compare).
    @Test func wireMock3sListAndJSONHelpers() async throws {
        let cases: [(template: String, expected: String)] = [
            ("{{arrayAdd (array 1 2) 3}}|{{arrayAdd (array 1 2) 0 position='start'}}|{{arrayAdd (array 1 2) 9 position=1}}", "[1, 2, 3]|[0, 1, 2]|[1, 9, 2]"),
            ("{{arrayRemove (array 1 2 3) position=1}}|{{arrayRemove (array 1 2 3) position='start'}}|{{arrayRemove (array 1 2 3)}}", "[1, 3]|[2, 3]|[1, 2]"),
            ("{{arrayJoin ', ' (array 'a' 'b') prefix='[' suffix=']'}}|{{arrayJoin '-' 'x' 'y'}}", "[a, b]|x-y"),
            (#"{{{formatJson '{"a":[1,2]}' format='compact'}}}"#, #"{"a":[1,2]}"#),
            (#"{{{jsonMerge '{"a":1,"b":{"c":2}}' '{"b":{"d":3},"e":null}' removeNulls=true}}}"#, #"{"a":1,"b":{"c":2,"d":3}}"#),
            (#"{{{jsonRemove '{"a":1,"secret":{"x":2}}' '$.secret'}}}|{{{jsonRemove '[1,2,3]' '$[0]'}}}"#, #"{"a":1}|[2,3]"#),
            (#"{{{jsonArrayAdd '[1,2]' '3' maxItems=2}}}|{{{jsonArrayAdd '[1]' '[2,3]' flatten=true}}}"#, "[2,3]|[1,2,3]"),
            ("{{val request.query.missing default='none'}}|{{val 'given' default='none'}}|{{val request.query.missing assign='v'}}{{v}}", "none|given|"),
            ("{{toJson (array 1 'a')}}", "[1,&quot;a&quot;]"),
            // jsonSort, by WireMock's own tests of it.
            (#"{{{jsonSort '[{"id":123,"name":"bob"},{"id":456,"name":"alice"}]' '$[*].name'}}}"#, #"[{"id":456,"name":"alice"},{"id":123,"name":"bob"}]"#),
            (#"{{{jsonSort '[{"id":123,"name":"bob"},{"id":456,"name":"alice"}]' '$[*].id'}}}"#, #"[{"id":123,"name":"bob"},{"id":456,"name":"alice"}]"#),
            (#"{{{jsonSort '{"users":[{"name":"fred"},{"name":"bob"}]}' '$.users[*].name'}}}"#, #"{"users":[{"name":"bob"},{"name":"fred"}]}"#),
            (#"{{{jsonSort '[{"n":2},{"n":null},{"n":10}]' '$[*].n'}}}|{{{jsonSort '[{"n":2},{"n":null},{"n":10}]' '$[*].n' order='desc'}}}|{{{jsonSort '[{"n":2},{"n":null},{"n":10}]' '$[*].n' nulls='last'}}}"#,
             #"[{"n":null},{"n":2},{"n":10}]|[{"n":10},{"n":2},{"n":null}]|[{"n":2},{"n":10},{"n":null}]"#),
            (#"{{{jsonSort '[{"n":2},{"n":"a"}]' '$[*].n'}}}|{{{jsonSort '{"user":{"n":1}}' '$.user[*].n'}}}|{{{jsonSort '[{"n":1},{"m":2}]' '$[*].n'}}}"#,
             "[ERROR: All sort field values must be of the same comparable type (Number, String, or Boolean)]|[ERROR: JSONPath does not reference an array ('$.user')]|[ERROR: Number of sort values (1) does not match array size (2)]"),
        ]
        let answers = try await Self.rendered(cases.map(\.template))
        for (item, texts) in zip(cases, answers) {
            #expect(texts.first == item.expected, "\(item.template)")
        }
    }

    @Test func transformerParametersAreTheParametersRoot() async throws {
        let folder = try WireMockFolder(mappings: [
            "parameters.json": #"""
                {"request": {"urlPath": "/greet"}, "response": {"body": "{{parameters.greeting}}, {{request.query.name}} ({{parameters.limits.max}})",
                 "transformers": ["response-template"], "transformerParameters": {"greeting": "Hello", "limits": {"max": 3}}}}
                """#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        try await withServer(mock) { server in
            try await withClient { client in
                let answer = try await send(client, server.baseURL.absoluteString + "/greet?name=Ada")
                #expect(answer.text == "Hello, Ada (3)")
            }
        }
    }

    @Test func aTemplatedBodyFileNameIsRenderedAndSoAreItsContents() async throws {
        let folder = try WireMockFolder(
            mappings: [
                "files.json": #"""
                    {"mappings": [
                      {"request": {"urlPathPattern": "/users/[a-z0-9]+"}, "response": {"bodyFileName": "user-{{request.pathSegments.[1]}}.json", "transformers": ["response-template"]}},
                      {"request": {"urlPath": "/fixed"}, "response": {"bodyFileName": "user-42.json", "transformers": ["response-template"]}},
                      {"request": {"urlPath": "/plain"}, "response": {"bodyFileName": "user-42.json"}}
                    ]}
                    """#,
            ],
            files: ["user-42.json": #"{"id": 42, "path": "{{request.path}}"}"#]
        )
        defer { folder.remove() }
        try await Self.serve(folder) { client, base in
            #expect(try await send(client, base + "/users/42").text == #"{"id": 42, "path": "/users/42"}"#)
            #expect(try await send(client, base + "/fixed").text == #"{"id": 42, "path": "/fixed"}"#)
            // Without the transformer, the file as it is.
            #expect(try await send(client, base + "/plain").text == #"{"id": 42, "path": "{{request.path}}"}"#)
            // A name that leads nowhere: 500, naming the field and the file.
            let missing = try await send(client, base + "/users/7")
            #expect(missing.status == 500)
            #expect(missing.text.contains("response.bodyFileName") && missing.text.contains("user-7.json"), "\(missing.text)")
        }
    }

    @Test func aTemplatedBodyFileNameStaysInsideFiles() async throws {
        let folder = try WireMockFolder(
            mappings: [
                "escape.json": #"{"request": {"urlPath": "/escape"}, "response": {"bodyFileName": "{{request.query.name}}", "transformers": ["response-template"]}}"#,
            ],
            files: ["inside.txt": "inside"]
        )
        defer { folder.remove() }
        try Data("secret".utf8).write(to: folder.root.appendingPathComponent("secret.txt"))
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        try await withServer(mock) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                #expect(try await send(client, base + "/escape?name=inside.txt").text == "inside")
                let outside = try await send(client, base + "/escape?name=../secret.txt")
                #expect(outside.status == 500)
                #expect(!outside.text.contains("secret\n") && outside.text.contains("outside"), "\(outside.text)")
            }
        }
    }

    @Test func aTemplatedProxyBaseURLIsDecidedForEachRequest() async throws {
        let upstream = HTTPMock()
        upstream.addResponses(forPath: "/templated", host: "**") { MockResponse.plaintext("from upstream", lifetime: .eternal) }
        try await withServer(upstream) { target in
            let folder = try WireMockFolder(mappings: [
                "proxy.json": #"{"request": {"urlPath": "/templated"}, "response": {"proxyBaseUrl": "{{request.headers.X-WM-Proxy-Url}}", "transformers": ["response-template"]}}"#,
            ])
            defer { folder.remove() }
            let mock = HTTPMock()
            #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
            try await withServer(mock) { server in
                try await withClient { client in
                    let url = server.baseURL.absoluteString + "/templated"
                    let proxied = try await send(client, url, headers: [("X-WM-Proxy-Url", target.baseURL.absoluteString)])
                    #expect(proxied.status == 200 && proxied.text == "from upstream", "\(proxied.text)")
                    let unusable = try await send(client, url)
                    #expect(unusable.status >= 500)
                }
            }
        }
    }

    // MARK: What WireMock drops

    @Test func whatWireMockDropsIsDroppedAndWarnedAbout() throws {
        let folder = try WireMockFolder(mappings: [
            "dropped.json": #"""
                {"mappings": [
                  {"request": {"url": "/a?x=1", "urlPath": "/b"}},
                  {"request": {"urlPath": "/c", "queryParameters": {"age": {"contains": "y", "matches": "[a-w]+"}}}},
                  {"request": {"urlPath": "/d", "headers": {"X-Maybe": {"absent": false}}}},
                  {"request": {"urlPath": "/e", "method": "POST", "bodyPatterns": [{"expression": "$.name", "contains": "o"}]}},
                  {"request": {"urlPath": "/f", "cookies": {"c": {"contains": "o", "caseInsensitive": true}}}}
                ]}
                """#,
        ])
        defer { folder.remove() }
        let mappings = try WireMockMappings(directory: folder.root)
        #expect(mappings.mappingCount == 5)
        let warnings = mappings.warnings
        #expect(warnings.count == 5, "\(warnings)")
        let expected = [
            "mappings[0].request: has \"url\", \"urlPath\": WireMock uses \"url\"",
            "mappings[1].request.queryParameters.age: has \"contains\", \"matches\": WireMock uses \"contains\"",
            "mappings[2].request.headers.X-Maybe: has \"absent\": false, which WireMock reads as absent",
            "mappings[3].request.bodyPatterns[0]: has \"expression\" beside \"contains\"",
            "mappings[4].request.cookies.c: has \"caseInsensitive\", which \"contains\" does not take",
        ]
        for (warning, start) in zip(warnings, expected) {
            #expect(warning.hasPrefix("Airlock warning: ") && warning.contains("dropped.json") && warning.contains(start), "\(warning)")
        }
        // Registered, they are reported where registration warnings go.
        let mock = HTTPMock()
        let reported = Reported()
        mock.registry.report { reported.append($0) }
        #expect(mock.registerStubs(mappings).isEmpty)
        #expect(reported.messages.filter { $0.hasPrefix("Airlock warning: ") && $0.contains("dropped.json") }.count == 5)
    }

    final class Reported: @unchecked Sendable {
        // Guarded by `lock`; the reporter may be called from any thread.
        private let lock = NSLock()
        private var stored: [String] = []
        func append(_ message: String) { lock.withLock { stored.append(message) } }
        var messages: [String] { lock.withLock { stored } }
    }

    // MARK: Errors

    @Test(arguments: [
        ("{{abbreviate request.body 2}}", "width of at least 4"),
        ("{{math 1 '^' 2}}", "one of '+', '-', '*', '/', '%'"),
        ("{{anyRegex '(?=x)'}}", "look-around"),
        ("{{anyRegex 'a{3,1}'}}", "upper bound"),
        ("{{systemValue key='HOME'}}", "environment"),
        ("{{formatXml request.body format='traditional'}}", "format='pretty' (the default) or format='compact'"),
        ("{{formatXml}}", "gives formatXml 0 values"),
        ("{{jsonSort request.body '$.name'}}", "a path with [*] where the array is"),
        ("{{jsonSort request.body '$[*].n' order='up'}}", "order='asc' (the default) or order='desc'"),
        ("{{#formatJson format=\"fancy\"}}{}{{/formatJson}}", "format='pretty' (the default) or format='compact'"),
        ("{{xPath request.body '/todo-list/['}}", "uses the XPath '/todo-list/[', which is not an expression"),
        ("{{soapXPath request.body 'count(/a)'}}", "not nodes"),
        ("{{xPath request.body '/s:a'}}", "namespace prefix"),
        ("{{xPath request.body '/a' 'b'}}", "gives xPath 3 values"),
        ("{{upperr 'x'}}", "did you mean \"upper\""),
        ("{{#if true}}open", "{{/if}}"),
        ("{{#each request.query.a}}x{{/with}}", "{{/each}}"),
        ("{{now offset='3 fortnights'}}", "seconds, minutes, hours"),
        ("{{truncateDate (now) 'first day of week'}}", "'first day of month'"),
        ("{{randomInt lower=9 upper=1}}", "lower bound below"),
        ("{{center 'a'}}", "size="),
        ("{{request.nothing}}", "request.method"),
        ("{{jsonPath request.body 'name'}}", "'$.user.name'"),
        ("{{each request.query.a}}", "{{#each list}}"),
    ])
    func helpersGivenWhatTheyCannotUseAreRefusedNamingTheFieldAndTheFix(template: String, fix: String) throws {
        WireMockXML.install()
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: template, options: .fragmentsAllowed), as: UTF8.self)
        let json = #"{"request": {"urlPath": "/x"}, "response": {"headers": {"X-A": "a"}, "body": \#(encoded), "transformers": ["response-template"]}}"#
        do {
            _ = try WireMockMappings(data: Data(json.utf8), source: "bad.json", rootDirectory: FileManager.default.temporaryDirectory)
            Issue.record("\(template) was accepted")
        } catch {
            #expect(error.file == "bad.json" && error.location == "response.body", "\(error)")
            #expect(error.description.contains(fix), "\(error)")
        }
    }

    // MARK: XML

    /// `xPath` and `soapXPath` through `MockServer` over loopback, answering as WireMock 2.35.1
    /// did (curl against the jar): the first node, an element as indented XML, every node for
    /// `#each`, nothing for no match, and WireMock's error text for a body that is not XML.
    @Test func xPathAndSOAPXPathReadTheBodyAsWireMockDoes() async throws {
        WireMockXML.install()
        let templates = [
            "[{{xPath request.body '/todo-list/todo/text()'}}]",
            "[{{xPath request.body '/todo-list/todo[2]/@id'}}]",
            "[{{{xPath request.body '/todo-list/todo'}}}]",
            "[{{xPath request.body '/nothing/here'}}]",
            "[{{#each (xPath request.body '//todo/text()') as |n|}}<{{n}}>{{/each}}]",
            "[{{soapXPath request.body '/a/b/text()'}}]",
        ]
        let folder = try Self.folder(templates)
        defer { folder.remove() }
        let todos = #"<todo-list><todo id="1">one</todo><todo id="2">two</todo></todo-list>"#
        let soap = #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><a><b>hello</b></a></soap:Body></soap:Envelope>"#
        let cases: [(index: Int, body: String, answer: String)] = [
            (0, todos, "[one]"),
            (1, todos, "[2]"),
            (2, todos, "[<todo id=\"1\">one</todo>\n]"),
            (3, todos, "[]"),
            (4, todos, "[<one><two>]"),
            (5, soap, "[hello]"),
            (5, "<a><b>no envelope</b></a>", "[]"),
            (0, "hello", "[[ERROR: hello is not valid XML]]"),
            (0, #"{"a":1}"#, "[[ERROR: {&quot;a&quot;:1} is not valid XML]]"),
        ]
        try await Self.serve(folder) { client, base in
            for (index, body, expected) in cases {
                let answer = try await send(client, base + "/t/\(index)", method: .POST, body: body)
                #expect(answer.status == 200 && answer.text == expected, "\(templates[index]) with \(body): \(answer.text)")
            }
        }
    }

    /// WireMock 3's `formatXml` and `formatJson`, inline and as blocks, by WireMock's own tests of
    /// them (its 3.x jar is not available here): blank text dropped, no declaration, two-space
    /// indentation and a closing line break when pretty; WireMock's error text for what is not
    /// XML or JSON and for a format only known at render time.
    @Test func formatXmlAndFormatJsonWriteTheirTextAsWireMock3Does() async throws {
        WireMockXML.install()
        let templates = [
            "{{#formatXml}}\n<foo><bar\n    >wh</bar></foo\n    >\n{{/formatXml}}",
            "{{#formatXml format='compact'}}\n<foo>\n  <bar>wh</bar>\n</foo>\n{{/formatXml}}",
            "{{~#assign 'someXml'~}}\n<foo><bar\n    >wh</bar></foo\n    >\n{{/assign}}\n{{~formatXml someXml format='pretty'~}}",
            "{{{formatXml request.body}}}",
            "{{{formatXml request.body format='compact'}}}",
            "{{#formatXml}}<foo>Not well formed!</bar>{{/formatXml}}",
            "{{#formatXml format=request.query.f}}<a/>{{/formatXml}}",
            "{{#formatJson format='compact'}}\n{ \"a\" : [ 1, 2 ] }\n{{/formatJson}}",
            "{{#formatJson}}{\"a\": {{/formatJson}}",
            "{{request.query.n}}|{{{request.query.n}}}",
        ]
        let folder = try Self.folder(templates)
        defer { folder.remove() }
        let order = "<order id=\"7\">\n\n   <item>té</item>  <note><![CDATA[ ]]></note><!-- kept -->\n</order>"
        let cases: [(index: Int, path: String, body: String, answer: String)] = [
            (0, "", "", "<foo>\n  <bar>wh</bar>\n</foo>\n"),
            (1, "", "", "<foo><bar>wh</bar></foo>"),
            // `{{…}}` inserts HTML-escaped, as WireMock 2.35 does (WireMock 3 leaves it unescaped).
            (2, "", "", "&lt;foo&gt;\n  &lt;bar&gt;wh&lt;/bar&gt;\n&lt;/foo&gt;\n"),
            (3, "", order, "<order id=\"7\">\n  <item>té</item>\n  <note/>\n  <!-- kept -->\n</order>\n"),
            (4, "", order, "<order id=\"7\"><item>té</item><note/><!-- kept --></order>"),
            (3, "", "not xml", "[ERROR: Input is not valid XML]"),
            (3, "", "", "[ERROR: formatXml should take a block of XML to format or a single parameter of type String]"),
            (5, "", "", "[ERROR: Input is not valid XML]"),
            (6, "?f=fancy", "", "[ERROR: formatXml: format [fancy] should be one of [pretty, compact]]"),
            (6, "?f=compact", "", "<a/>"),
            // MigratingFromWireMock's example of 2.35's escaping, which WireMock 3 turned off.
            (9, "?n=O'Brien", "", "O&#x27;Brien|O'Brien"),
            (7, "", "", #"{"a":[1,2]}"#),
            (8, "", "", "[ERROR: There was an error parsing the json. Please make sure the json is valid]"),
        ]
        try await Self.serve(folder) { client, base in
            for (index, query, body, expected) in cases {
                let answer = try await send(client, base + "/t/\(index)" + query, method: .POST, body: body)
                #expect(answer.status == 200 && answer.text == expected, "\(templates[index]) with \(body): \(answer.text)")
            }
        }
    }

    /// HTTPMock links no XML engine: without `WireMockXML.install()`, `xPath` is refused by the
    /// field it is in, saying what to add (the task-local stands for a process that never installed it).
    @Test(arguments: ["soapXPath request.body '/a'", "formatXml request.body"])
    func withoutTheXMLEngineAnXMLHelperIsRefusedWithTheLineToAdd(call: String) throws {
        let json = #"{"request": {"urlPath": "/x"}, "response": {"body": "{{\#(call)}}", "transformers": ["response-template"]}}"#
        let helper = String(call.prefix { $0 != " " })
        TemplateXMLSupport.$isHiddenForTesting.withValue(true) {
            let error = #expect(throws: StubFileError.self) {
                try WireMockMappings(data: Data(json.utf8), source: "soap.json", rootDirectory: FileManager.default.temporaryDirectory)
            }
            let message = error?.description ?? ""
            #expect(error?.file == "soap.json" && error?.location == "response.body", "\(message)")
            #expect(message.contains("\(helper) is an XML helper, and no XML engine is installed"), "\(message)")
            #expect(message.contains("\"AirlockWireMockXML\"") && message.contains("WireMockXML.install()"), "\(message)")
        }
    }
}

/// A folder read as WireMock 3's (`WireMockVersion.wireMock3`, `airlock serve
/// --wiremock-version 3`): `{{…}}` inserts as it is — in bodies, headers, added proxy headers
/// and webhooks — and an `equalToXml` without `namespaceAwareness` is `STRICT`;
/// read as WireMock 2.35's (the default), the same folder escapes and reads namespaces as `LEGACY`.
struct WireMockVersionTests {
    static let mappings = #"""
        {"mappings": [
          {"request": {"urlPath": "/name"}, "response": {"body": "{\"name\": \"{{request.query.n}}\"}", "headers": {"X-Name": "{{request.query.n}}"}, "transformers": ["response-template"]}},
          {"request": {"method": "POST", "urlPath": "/xml", "bodyPatterns": [{"equalToXml": "<thing>x</thing>"}]}, "response": {"body": "same"}}
        ]}
        """#

    @Test(arguments: [WireMockVersion.wireMock2, .wireMock3])
    func aFolderIsReadAsTheWireMockItIsWrittenFor(version: WireMockVersion) async throws {
        WireMockXML.install()
        let folder = try WireMockFolder(mappings: ["m.json": Self.mappings])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root, version: version)).isEmpty)
        try await withServer(mock) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let answer = try await send(client, base + "/name?n=O%27Brien%20%26%20Co")
                let inserted = version == .wireMock2 ? "O&#x27;Brien &amp; Co" : "O'Brien & Co"
                #expect(answer.text == #"{"name": "\#(inserted)"}"#)
                #expect(answer.headers["X-Name"] == [inserted])
                // <thing xmlns="urn:b"> is <thing> to 2.35 (the expected one has no namespace);
                // WireMock 3's STRICT pairs elements by namespace too.
                let namespaced = try await send(client, base + "/xml", method: .POST, body: #"<thing xmlns="urn:b">x</thing>"#)
                #expect(namespaced.status == (version == .wireMock2 ? 200 : 404))
            }
        }
    }

    @Test func airlockServeReadsTheFolderAndTheAdminAPIsMappingsAsWireMock3() async throws {
        let folder = try WireMockFolder(mappings: ["m.json": Self.mappings])
        defer { folder.remove() }
        let airlock = try LaunchedAirlock(["serve", "--wiremock", folder.root.path, "--wiremock-version", "3", "--port", "0", "--quiet"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        try await withClient { client in
            let fromFolder = try await send(client, base + "/name?n=a%26b")
            #expect(fromFolder.text == #"{"name": "a&b"}"#)
            let added = #"{"request": {"urlPath": "/added"}, "response": {"body": "{{request.query.n}}", "transformers": ["response-template"]}}"#
            let registered = try await send(client, base + "/__admin/mappings", method: .POST, headers: [("Content-Type", "application/json")], body: added)
            #expect(registered.status == 201)
            let fromAdmin = try await send(client, base + "/added?n=%3Cb%3E")
            #expect(fromAdmin.text == "<b>")
        }
    }

    @Test func anUnknownVersionIsRefusedNamingTheOption() throws {
        let folder = try WireMockFolder(mappings: ["m.json": Self.mappings])
        defer { folder.remove() }
        let run = try LaunchedAirlock.run(["serve", "--wiremock", folder.root.path, "--wiremock-version", "4"])
        #expect(run.status == 64, "\(run.errors)")
        #expect(run.errors.contains("--wiremock-version is 4; use 2 (WireMock 2.35) or 3 (WireMock 3)."), "\(run.errors)")
    }
}
