import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import MockServer
import NIOHTTP1
import Testing

/// WireMock's XML matchers (`equalToXml`, `matchesXPath`) and WireMock 3's `matchesJsonSchema`,
/// served by `MockServer` from mapping folders and asked over a loopback socket; mappings that
/// cannot be served refused by their path; HTTPMock without the XML engine refusing the XML
/// matchers with the line to add. (`WireMockBuiltInMatcherTests` checks `airlock serve` against
/// WireMock 2.35.1's recorded answers to the XML probes.)
struct WireMockXMLAndSchemaMatcherTests {
    /// Serves one folder of mappings with `MockServer` and sends each case.
    func check(_ mappings: String, _ cases: [(path: String, method: HTTPMethod, headers: [(String, String)], body: String?, status: Int)]) async throws {
        let folder = try WireMockFolder(mappings: ["m.json": mappings])
        defer { folder.remove() }
        try await withServer(HTTPMock()) { server in
            // Read once the server exists: a MockServer installs the XML engine itself.
            #expect(server.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
            try await withClient { client in
                for item in cases {
                    let answer = try await send(client, server.baseURL.absoluteString + item.path, method: item.method, headers: item.headers, body: item.body)
                    #expect(answer.status == item.status, "\(item.path) \(item.headers) \(item.body ?? ""): \(answer.text)")
                }
            }
        }
    }

    static let xml = [("Content-Type", "application/xml")]

    // MARK: equalToXml

    @Test func equalToXmlComparesDocumentsAsWireMockDoes() async throws {
        try await check(
            #"""
            {"mappings": [
              {"request": {"method": "POST", "urlPath": "/order", "bodyPatterns": [{"equalToXml": "<order id=\"7\"><item>tea</item><note>hot</note></order>"}]}, "response": {"body": "order"}},
              {"request": {"method": "POST", "urlPath": "/placeholders", "bodyPatterns": [{"equalToXml": "<m><id>${xmlunit.ignore}</id><n>${xmlunit.isNumber}</n><at when=\"${xmlunit.isDateTime}\"/></m>", "enablePlaceholders": true}]}, "response": {"body": "placeholders"}},
              {"request": {"method": "POST", "urlPath": "/delimiters", "bodyPatterns": [{"equalToXml": "<m><code>[[xmlunit.matchesRegex([A-Z]{3})]]</code></m>", "enablePlaceholders": true, "placeholderOpeningDelimiterRegex": "\\[\\[", "placeholderClosingDelimiterRegex": "]]"}]}, "response": {"body": "delimiters"}},
              {"request": {"method": "POST", "urlPath": "/exempted", "bodyPatterns": [{"equalToXml": "<thing>Hello</thing>", "exemptedComparisons": ["TEXT_VALUE"]}]}, "response": {"body": "exempted"}}
            ]}
            """#,
            [
                ("/order", .POST, Self.xml, #"<order id="7"><item>tea</item><note>hot</note></order>"#, 200),
                // Children in another order, white space, comments, CDATA, prefixes and namespaces.
                ("/order", .POST, Self.xml, "<?xml version=\"1.0\"?>\n<o:order xmlns:o=\"urn:o\" id=\"7\">\n  <note>hot</note><!-- first -->\n  <item><![CDATA[tea]]></item>\n</o:order>", 200),
                ("/order", .POST, Self.xml, #"<order id="8"><item>tea</item><note>hot</note></order>"#, 404),
                ("/order", .POST, Self.xml, #"<order id="7" extra="1"><item>tea</item><note>hot</note></order>"#, 404),
                ("/order", .POST, Self.xml, #"<order id="7"><item>tea</item></order>"#, 404),
                ("/order", .POST, Self.xml, #"<order id="7"><item>tea</item><note>hot</note><more/></order>"#, 404),
                // Not XML, cut short, empty: no match, never a failure.
                ("/order", .POST, Self.xml, "<order id=\"7\"><item>tea", 404),
                ("/order", .POST, Self.xml, "{\"order\": 7}", 404),
                ("/order", .POST, [], nil, 404),
                ("/order", .POST, Self.xml, "<!DOCTYPE order [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><order id=\"7\"><item>&e;</item><note>hot</note></order>", 404),
                ("/placeholders", .POST, Self.xml, #"<m><id>anything</id><n>-4.5e3</n><at when="2021-06-24T10:15:30Z"/></m>"#, 200),
                ("/placeholders", .POST, Self.xml, #"<m><id/><n>1</n><at when="2021-06-24"/></m>"#, 200),
                ("/placeholders", .POST, Self.xml, #"<m><id>1</id><n>one</n><at when="2021-06-24"/></m>"#, 404),
                ("/placeholders", .POST, Self.xml, #"<m><id>1</id><n>1</n><at when="yesterday"/></m>"#, 404),
                ("/delimiters", .POST, Self.xml, "<m><code>ABC</code></m>", 200),
                ("/delimiters", .POST, Self.xml, "<m><code>ABCD</code></m>", 404),
                ("/exempted", .POST, Self.xml, "<thing>Goodbye</thing>", 200),
                ("/exempted", .POST, Self.xml, "<other>Hello</other>", 404),
            ]
        )
    }

    /// WireMock 3's `namespaceAwareness` and `ignoreOrderOfSameNode`, by its documentation (its
    /// 3.x jar is not available here; `LEGACY` — WireMock 2.35.1's reading and the default — is
    /// checked against the 2.35.1 jar by the fixture's probes).
    @Test func namespaceAwarenessAndIgnoreOrderOfSameNodeAsWireMock3Documents() async throws {
        try await check(
            #"""
            {"mappings": [
              {"request": {"method": "POST", "urlPath": "/strict", "bodyPatterns": [{"equalToXml": "<th:thing xmlns:th=\"urn:t\" th:a=\"1\">x</th:thing>", "namespaceAwareness": "STRICT"}]}, "response": {"body": "strict"}},
              {"request": {"method": "POST", "urlPath": "/strict-plain", "bodyPatterns": [{"equalToXml": "<thing>x</thing>", "namespaceAwareness": "STRICT"}]}, "response": {"body": "strict plain"}},
              {"request": {"method": "POST", "urlPath": "/none", "bodyPatterns": [{"equalToXml": "<th:thing xmlns:th=\"urn:t\">x</th:thing>", "namespaceAwareness": "NONE"}]}, "response": {"body": "none"}},
              {"request": {"method": "POST", "urlPath": "/legacy", "bodyPatterns": [{"equalToXml": "<th:thing xmlns:th=\"urn:t\">x</th:thing>", "namespaceAwareness": "LEGACY"}]}, "response": {"body": "legacy"}},
              {"request": {"method": "POST", "urlPath": "/same-node", "bodyPatterns": [{"equalToXml": "<list><i>b</i><i>a</i></list>", "ignoreOrderOfSameNode": true}]}, "response": {"body": "any order"}},
              {"request": {"method": "POST", "urlPath": "/document-order", "bodyPatterns": [{"equalToXml": "<list><i>b</i><i>a</i></list>"}]}, "response": {"body": "document order"}}
            ]}
            """#,
            [
                // STRICT: namespace URIs and local names; prefixes and declarations do not count.
                ("/strict", .POST, Self.xml, #"<st:thing xmlns:st="urn:t" st:a="1">x</st:thing>"#, 200),
                ("/strict", .POST, Self.xml, #"<th:thing xmlns:th="urn:other" th:a="1">x</th:thing>"#, 404),
                ("/strict", .POST, Self.xml, #"<th:thing xmlns:th="urn:t" xmlns:o="urn:o" o:a="1">x</th:thing>"#, 404),
                ("/strict", .POST, Self.xml, #"<th:thing th:a="1">x</th:thing>"#, 404),
                ("/strict-plain", .POST, Self.xml, #"<thing xmlns="urn:b">x</thing>"#, 404),
                ("/strict-plain", .POST, Self.xml, #"<thing xmlns:unused="urn:b">x</thing>"#, 200),
                // NONE: names as written, declarations are attributes.
                ("/none", .POST, Self.xml, #"<th:thing xmlns:th="urn:t">x</th:thing>"#, 200),
                ("/none", .POST, Self.xml, #"<st:thing xmlns:st="urn:t">x</st:thing>"#, 404),
                ("/none", .POST, Self.xml, #"<th:thing xmlns:th="urn:other">x</th:thing>"#, 404),
                // LEGACY: prefixes dropped, prefixed namespaces ignored (as WireMock 2.35.1).
                ("/legacy", .POST, Self.xml, #"<st:thing xmlns:st="urn:other">x</st:thing>"#, 200),
                ("/legacy", .POST, Self.xml, #"<thing>x</thing>"#, 200),
                ("/same-node", .POST, Self.xml, "<list><i>a</i><i>b</i></list>", 200),
                ("/same-node", .POST, Self.xml, "<list><i>a</i><i>c</i></list>", 404),
                // Without it, elements of one name pair in document order (WireMock 2.35.1 answers 404).
                ("/document-order", .POST, Self.xml, "<list><i>a</i><i>b</i></list>", 404),
                ("/document-order", .POST, Self.xml, "<list><i>b</i><i>a</i></list>", 200),
            ]
        )
    }

    // MARK: matchesXPath

    @Test func matchesXPathSelectsNodesAndHandsThemToItsMatcher() async throws {
        try await check(
            #"""
            {"mappings": [
              {"request": {"method": "POST", "urlPath": "/count", "bodyPatterns": [{"matchesXPath": "/todo-list[count(todo-item) = 2]"}]}, "response": {"body": "count"}},
              {"request": {"method": "POST", "urlPath": "/namespaces", "bodyPatterns": [{"matchesXPath": "/s:outer/m:inner[.=111]", "xPathNamespaces": {"s": "urn:stuff", "m": "urn:more"}}]}, "response": {"body": "namespaces"}},
              {"request": {"method": "POST", "urlPath": "/soap", "bodyPatterns": [{"matchesXPath": "/Envelope/Body/order"}]}, "response": {"body": "soap"}},
              {"request": {"method": "POST", "urlPath": "/contains", "bodyPatterns": [{"matchesXPath": {"expression": "//item/text()", "contains": "wash"}}]}, "response": {"body": "contains"}},
              {"request": {"method": "POST", "urlPath": "/attribute", "bodyPatterns": [{"matchesXPath": {"expression": "/order/@id", "matches": "[0-9]+"}}]}, "response": {"body": "attribute"}},
              {"request": {"method": "POST", "urlPath": "/element", "bodyPatterns": [{"matchesXPath": {"expression": "//item", "equalToXml": "<item>Do the washing</item>"}}]}, "response": {"body": "element"}},
              {"request": {"method": "POST", "urlPath": "/rendered", "bodyPatterns": [{"matchesXPath": {"expression": "/order", "equalTo": "<order>\n  <item>tea</item>\n</order>\n"}}]}, "response": {"body": "rendered"}},
              {"request": {"method": "GET", "urlPath": "/header", "headers": {"X-Xml": {"matchesXPath": "/ping[@ok='true']"}}}, "response": {"body": "header"}}
            ]}
            """#,
            [
                ("/count", .POST, Self.xml, "<todo-list><todo-item/><todo-item/></todo-list>", 200),
                ("/count", .POST, Self.xml, "<todo-list><todo-item/></todo-list>", 404),
                ("/count", .POST, Self.xml, "todo-list", 404),
                ("/namespaces", .POST, Self.xml, #"<a:outer xmlns:a="urn:stuff"><b:inner xmlns:b="urn:more">111</b:inner></a:outer>"#, 200),
                ("/namespaces", .POST, Self.xml, #"<a:outer xmlns:a="urn:other"><b:inner xmlns:b="urn:more">111</b:inner></a:outer>"#, 404),
                ("/namespaces", .POST, Self.xml, "<outer><inner>111</inner></outer>", 404),
                ("/soap", .POST, Self.xml, #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><order xmlns="urn:o"/></soap:Body></soap:Envelope>"#, 200),
                ("/soap", .POST, Self.xml, #"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>"#, 404),
                ("/contains", .POST, Self.xml, "<list><item>cook</item><item>Do the washing</item></list>", 200),
                ("/contains", .POST, Self.xml, "<list><item>cook</item></list>", 404),
                ("/attribute", .POST, Self.xml, #"<order id="42"/>"#, 200),
                ("/attribute", .POST, Self.xml, #"<order id="x"/>"#, 404),
                ("/attribute", .POST, Self.xml, "<order/>", 404),
                ("/element", .POST, Self.xml, "<list><item>cook</item><item>Do the washing</item></list>", 200),
                ("/element", .POST, Self.xml, "<list><item>cook</item></list>", 404),
                ("/rendered", .POST, Self.xml, "<order><item>tea</item></order>", 200),
                ("/header", .GET, [("X-Xml", "<ping ok='true'/>")], nil, 200),
                ("/header", .GET, [("X-Xml", "<ping ok='false'/>")], nil, 404),
                ("/header", .GET, [], nil, 404),
            ]
        )
    }

    /// WireMock's own request-matching examples with XML matchers (the docs corpus) load.
    @Test func wireMockDocumentationsXMLExamplesLoad() throws {
        WireMockXML.install()
        let folder = WireMockCorpusTests.corpus.appendingPathComponent("wiremock-docs")
        for name in ["request-matching-01"] + (20...27).map({ "request-matching-\($0)" }) {
            let data = try Data(contentsOf: folder.appendingPathComponent("mappings/\(name).json"))
            let mappings = try WireMockMappings(data: data, source: name, rootDirectory: folder)
            #expect(mappings.mappingCount == 1, "\(name)")
        }
    }

    // MARK: matchesJsonSchema

    static let schema = #"{"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 1}, "tags": {"type": "array", "items": {"type": "string"}}}}"#

    @Test func matchesJsonSchemaChecksBodiesHeadersQueriesAndJSONPaths() async throws {
        try await check(
            #"""
            {"mappings": [
              {"request": {"method": "POST", "urlPath": "/body", "bodyPatterns": [{"matchesJsonSchema": \#(Self.schema)}]}, "response": {"body": "body"}},
              {"request": {"method": "POST", "urlPath": "/text", "bodyPatterns": [{"matchesJsonSchema": "{\"type\": \"array\", \"prefixItems\": [{\"const\": 1}], \"items\": false}"}]}, "response": {"body": "text"}},
              {"request": {"method": "GET", "urlPath": "/query", "queryParameters": {"n": {"matchesJsonSchema": {"type": "integer", "maximum": 10}}}, "headers": {"X-Name": {"matchesJsonSchema": {"type": "string", "pattern": "^[a-z]+$"}}}}, "response": {"body": "query"}},
              {"request": {"method": "POST", "urlPath": "/path", "bodyPatterns": [{"matchesJsonPath": {"expression": "$.order", "matchesJsonSchema": {"required": ["total"]}}}]}, "response": {"body": "path"}},
              {"request": {"method": "GET", "urlPath": "/draft4", "queryParameters": {"n": {"matchesJsonSchema": {"type": "number", "maximum": 10, "exclusiveMaximum": true}, "schemaVersion": "V4"}}}, "response": {"body": "draft4"}}
            ]}
            """#,
            [
                ("/body", .POST, [], #"{"id": 3, "tags": ["a"]}"#, 200),
                ("/body", .POST, [], #"{"id": 0}"#, 404),
                ("/body", .POST, [], #"{"tags": ["a"]}"#, 404),
                ("/body", .POST, [], #"{"id": 3, "tags": [1]}"#, 404),
                ("/body", .POST, [], "not json", 404),
                ("/text", .POST, [], "[1]", 200),
                ("/text", .POST, [], "[1, 2]", 404),
                // A value that is not JSON is checked as a string.
                ("/query?n=7", .GET, [("X-Name", "alice")], nil, 200),
                ("/query?n=11", .GET, [("X-Name", "alice")], nil, 404),
                ("/query?n=7", .GET, [("X-Name", "Alice")], nil, 404),
                ("/query?n=seven", .GET, [("X-Name", "alice")], nil, 404),
                ("/path", .POST, [], #"{"order": {"total": 5}}"#, 200),
                ("/path", .POST, [], #"{"order": {"sum": 5}}"#, 404),
                ("/draft4?n=9.5", .GET, [], nil, 200),
                ("/draft4?n=10", .GET, [], nil, 404),
            ]
        )
    }

    // MARK: Refusals

    @Test(arguments: [
        (#"{"equalToXml": "<a><b></a>"}"#, "bodyPatterns[0].equalToXml: is not an XML document WireMock reads"),
        (#"{"equalToXml": "<a>${xmlunit.isWhatever}</a>", "enablePlaceholders": true}"#, #"the placeholder "xmlunit.isWhatever", which XMLUnit does not know"#),
        (#"{"equalToXml": "<a/>", "exemptedComparisons": ["NAMESPACE_URL"]}"#, #"exemptedComparisons[0]: is "NAMESPACE_URL", which is not one of XMLUnit's comparison types; did you mean "NAMESPACE_URI"?"#),
        (#"{"equalToXml": "<a/>", "placeholderOpeningDelimiterRegex": "[["}"#, "placeholderOpeningDelimiterRegex: is not a valid regular expression"),
        (#"{"equalToXml": "<p:a/>", "namespaceAwareness": "STRICT"}"#, #"is not an XML document WireMock reads: "p:a" has a prefix no xmlns declares, which namespaceAwareness STRICT refuses"#),
        (#"{"equalToXml": "<a/>", "namespaceAwareness": "strict"}"#, #"namespaceAwareness: is "strict", which is not one of WireMock's namespace awareness values"#),
        (#"{"equalToXml": "<a/>", "ignoreOrderOfSameNode": "yes"}"#, "ignoreOrderOfSameNode"),
        (#"{"matchesXPath": "/a["}"#, #"bodyPatterns[0].matchesXPath: is the XPath "/a[", which is not an expression"#),
        (#"{"matchesXPath": "/soap:Envelope"}"#, #"which uses a prefix that "xPathNamespaces" does not bind"#),
        (#"{"matchesXPath": "count(//a)"}"#, "which gives a number, a string or a boolean, not nodes"),
        (#"{"matchesXPath": "//a[frobnicate()]"}"#, #"which calls "frobnicate()", a function XPath 1.0 does not have"#),
        (#"{"matchesXPath": "//a[p:f(.)]", "xPathNamespaces": {"p": "urn:p"}}"#, #"which calls "p:f()", a function XPath 1.0 does not have"#),
        (#"{"matchesXPath": "$x"}"#, "which refers to a variable"),
        (#"{"matchesXPath": {"contains": "x"}}"#, #"bodyPatterns[0].matchesXPath: has no "expression""#),
        (#"{"matchesXPath": "/a", "xPathNamespaces": {"a": 1}}"#, "xPathNamespaces.a"),
        (#"{"matchesJsonSchema": {"type": 5}}"#, "bodyPatterns[0].matchesJsonSchema: is a JSON Schema that cannot be applied"),
        (##"{"matchesJsonSchema": {"$ref": "#/$defs/missing"}}"##, "bodyPatterns[0].matchesJsonSchema: is a JSON Schema that cannot be applied"),
        (#"{"matchesJsonSchema": "{not json"}"#, "bodyPatterns[0].matchesJsonSchema: is a string that is not JSON"),
        (#"{"matchesJsonSchema": [1]}"#, "bodyPatterns[0].matchesJsonSchema"),
        (#"{"matchesJsonSchema": {}, "schemaVersion": "V7"}"#, #"schemaVersion: is "V7", a JSON Schema draft Airlock's validator does not implement"#),
        (#"{"matchesJsonSchema": {}, "schemaVersion": "V8"}"#, #"schemaVersion: is "V8", which is not one of WireMock's schema versions"#),
    ])
    func aMatcherThatCannotBeServedIsRefusedByItsPath(matcher: String, expected: String) throws {
        WireMockXML.install()
        let folder = try WireMockFolder(mappings: ["m.json": #"{"request": {"urlPath": "/x", "bodyPatterns": [\#(matcher)]}, "response": {}}"#])
        defer { folder.remove() }
        let error = #expect(throws: StubFileError.self) { try WireMockMappings(directory: folder.root) }
        let message = error?.description ?? ""
        #expect(message.contains("m.json") && message.contains("request.bodyPatterns[0]"), "\(message)")
        #expect(message.contains(expected), "\(message)")
    }

    /// HTTPMock links no XML engine: without `WireMockXML.install()`, an XML matcher is refused
    /// by its path, saying what to add (the task-local stands for a process that never installed it).
    @Test func withoutTheXMLEngineAnXMLMatcherIsRefusedWithTheLineToAdd() throws {
        let folder = try WireMockFolder(mappings: ["m.json": #"{"request": {"urlPath": "/x", "headers": {"X-Xml": {"matchesXPath": "/a"}}}, "response": {}}"#])
        defer { folder.remove() }
        try WireMockXMLSupport.$isHiddenForTesting.withValue(true) {
            let error = #expect(throws: StubFileError.self) { try WireMockMappings(directory: folder.root) }
            let message = error?.description ?? ""
            #expect(message.contains("request.headers.X-Xml.matchesXPath: is an XML matcher, and no XML engine is installed"), "\(message)")
            #expect(message.contains("\"AirlockWireMockXML\"") && message.contains("WireMockXML.install()"), "\(message)")
            // The JSON Schema matcher needs no engine.
            let schema = try WireMockFolder(mappings: ["m.json": #"{"request": {"urlPath": "/x", "headers": {"X-N": {"matchesJsonSchema": {"type": "integer"}}}}, "response": {}}"#])
            defer { schema.remove() }
            #expect(try WireMockMappings(directory: schema.root).mappingCount == 1)
        }
    }

    /// Through HTTPMock's URLSession, once installed.
    @Test func httpMockServesXMLMatchersOnceInstalled() async throws {
        WireMockXML.install()
        let folder = try WireMockFolder(mappings: ["m.json": #"{"request": {"method": "POST", "urlPath": "/x", "bodyPatterns": [{"matchesXPath": {"expression": "//id", "equalToXml": "<id>7</id>"}}]}, "response": {"body": "seven"}}"#])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        var request = URLRequest(url: URL(string: "https://api.example.com/x")!)
        request.httpMethod = "POST"
        request.httpBody = Data("<order><id>7</id></order>".utf8)
        let (data, _) = try await mock.urlSession.data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == "seven")
        request.httpBody = Data("<order><id>8</id></order>".utf8)
        let (_, response) = try await mock.urlSession.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
    }
}
