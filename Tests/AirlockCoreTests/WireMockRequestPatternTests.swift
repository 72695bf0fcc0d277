@testable import AirlockCassettes
@testable import AirlockStubFiles
@testable import AirlockWireMock
@testable import AirlockBase
@testable import AirlockCore
import Foundation
import Testing

/// WireMock's `request` object: each field and operator against requests that must match and
/// requests that must not, every refusal with its message, the JSONPath subset, and near-miss
/// distances.
struct WireMockRequestPatternTests {
    /// A request to try: method, absolute URL, header fields and body.
    struct Probe: Sendable, CustomStringConvertible {
        var method = "GET"
        var url: String
        var headers: [(String, String)] = []
        var body: Data?

        init(_ url: String, headers: [(String, String)] = [], body: String? = nil) {
            self.init("GET", url, headers: headers, body: body)
        }

        init(_ method: String, _ url: String, headers: [(String, String)] = [], body: String? = nil) {
            self.method = method
            self.url = url.hasPrefix("http") ? url : "http://localhost:8080" + url
            self.headers = headers
            self.body = body.map { Data($0.utf8) }
        }

        init(_ method: String, _ url: String, headers: [(String, String)] = [], bytes: Data) {
            self.init(method, url, headers: headers)
            body = bytes
        }

        var recorded: RecordedRequest {
            var incoming = IncomingRequest(method: method, absoluteURL: url)!
            incoming.headers = headers.map { (name: $0.0, value: $0.1) }
            incoming.body = body
            return RecordedRequest(sequence: 1, request: incoming, date: Date(timeIntervalSince1970: 0))
        }

        var description: String { "\(method) \(url) \(headers) \(body.map { String(decoding: $0, as: UTF8.self) } ?? "")" }
    }

    /// A request object with requests it must match and requests it must not.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let request: String
        let matching: [Probe]
        let notMatching: [Probe]

        var testDescription: String { name }
    }

    static func pattern(_ json: String) throws -> WireMockRequestPattern {
        try WireMockRequestPattern(JSONNode.parse(Data(json.utf8), source: "mappings/a.json", expected: "a request"))
    }

    static let cases: [Case] = [
        // MARK: What WireMock 2.35.1 drops when it loads (checked against its jar; a load warning names it)
        Case(name: "url before urlPath", request: #"{"url": "/a?x=1", "urlPath": "/b"}"#, matching: [Probe("/a?x=1")], notMatching: [Probe("/b")]),
        Case(name: "urlPattern before urlPath", request: #"{"urlPath": "/b", "urlPattern": "/c.*"}"#, matching: [Probe("/cd")], notMatching: [Probe("/b")]),
        Case(
            name: "the first matcher",
            request: #"{"headers": {"X": {"contains": "1", "equalTo": "2"}}}"#,
            matching: [Probe("/", headers: [("X", "212")])],
            notMatching: [Probe("/", headers: [("X", "2")])]
        ),
        Case(
            name: "caseInsensitive with equalTo, after an option",
            request: #"{"headers": {"X": {"caseInsensitive": true, "equalTo": "A", "matches": "b+"}}}"#,
            matching: [Probe("/", headers: [("X", "a")])],
            notMatching: [Probe("/", headers: [("X", "bb")])]
        ),
        Case(
            name: "absent false is absent",
            request: #"{"headers": {"X": {"equalTo": "1", "absent": false}}}"#,
            matching: [Probe("/")],
            notMatching: [Probe("/", headers: [("X", "1")])]
        ),
        // MARK: Method and URL
        Case(name: "method", request: #"{"method": "POST", "urlPath": "/a"}"#, matching: [Probe("POST", "/a")], notMatching: [Probe("GET", "/a"), Probe("POST", "/b")]),
        Case(name: "method ANY", request: #"{"method": "ANY", "url": "/a"}"#, matching: [Probe("GET", "/a"), Probe("DELETE", "/a")], notMatching: [Probe("/a/b")]),
        Case(name: "no method, no url", request: #"{}"#, matching: [Probe("PUT", "/x?y=1")], notMatching: []),
        Case(
            name: "method oneOf",
            request: #"{"method": {"oneOf": ["GET", "HEAD"]}, "urlPath": "/a"}"#,
            matching: [Probe("GET", "/a"), Probe("HEAD", "/a")],
            notMatching: [Probe("POST", "/a")]
        ),
        Case(name: "method noneOf", request: #"{"method": {"noneOf": ["GET"]}}"#, matching: [Probe("POST", "/a")], notMatching: [Probe("GET", "/a")]),
        Case(
            name: "url is the path and query exactly, as sent",
            request: #"{"url": "/things?a=1&b=2"}"#,
            matching: [Probe("/things?a=1&b=2")],
            notMatching: [Probe("/things?b=2&a=1"), Probe("/things"), Probe("/things?a=1&b=2&c=3"), Probe("/things/?a=1&b=2")]
        ),
        Case(name: "url without a query wants none", request: #"{"url": "/things"}"#, matching: [Probe("/things"), Probe("/things#top")], notMatching: [Probe("/things?x=1")]),
        Case(name: "url compares encoded", request: #"{"url": "/a%20b"}"#, matching: [Probe("/a%20b")], notMatching: [Probe("/a%2520b")]),
        Case(name: "urlPath ignores the query", request: #"{"urlPath": "/things"}"#, matching: [Probe("/things"), Probe("/things?x=1")], notMatching: [Probe("/things/1"), Probe("/thing")]),
        Case(
            name: "urlPattern matches the whole path and query",
            request: #"{"urlPattern": "/things/[0-9]+(\\?.*)?"}"#,
            matching: [Probe("/things/12"), Probe("/things/12?x=1")],
            notMatching: [Probe("/things/12/more"), Probe("/prefix/things/12"), Probe("/things/ab")]
        ),
        Case(
            name: "urlPathPattern matches the whole path",
            request: #"{"urlPathPattern": "/api/.*/items"}"#,
            matching: [Probe("/api/v1/items?page=2"), Probe("/api/v1/v2/items")],
            notMatching: [Probe("/api/v1/items/3")]
        ),
        Case(
            name: "urlPathTemplate",
            request: #"{"urlPathTemplate": "/contacts/{contactId}/addresses/{addressId}"}"#,
            matching: [Probe("/contacts/12/addresses/99"), Probe("/contacts/a-b/addresses/c?x=1")],
            notMatching: [Probe("/contacts/12/addresses"), Probe("/contacts//addresses/1"), Probe("/contacts/1/2/addresses/3")]
        ),
        Case(
            name: "urlPathTemplate with pathParameters",
            request: #"{"urlPathTemplate": "/contacts/{contactId}/addresses/{addressId}", "pathParameters": {"contactId": {"equalTo": "12345"}, "addressId": {"or": [{"equalTo": "1"}, {"equalTo": "2"}]}}}"#,
            matching: [Probe("/contacts/12345/addresses/1"), Probe("/contacts/12345/addresses/2")],
            notMatching: [Probe("/contacts/12346/addresses/1"), Probe("/contacts/12345/addresses/3")]
        ),
        Case(
            name: "urlPathTemplate with a variable inside a segment",
            request: #"{"urlPathTemplate": "/files/{name}.json"}"#,
            matching: [Probe("/files/report.json")],
            notMatching: [Probe("/files/report.xml"), Probe("/files/.json")]
        ),

        // MARK: Query parameters
        Case(
            name: "query equalTo, any of several values",
            request: #"{"urlPath": "/s", "queryParameters": {"search_term": {"equalTo": "WireMock"}}}"#,
            matching: [Probe("/s?search_term=WireMock"), Probe("/s?search_term=x&search_term=WireMock"), Probe("/s?other=1&search_term=WireMock")],
            notMatching: [Probe("/s?search_term=wiremock"), Probe("/s"), Probe("/s?search_term=WireMock2")]
        ),
        Case(
            name: "query values are percent-decoded",
            request: #"{"queryParameters": {"q": {"equalTo": "a b/c"}}}"#,
            matching: [Probe("/s?q=a%20b%2Fc")],
            notMatching: [Probe("/s?q=a%2520b")]
        ),
        Case(
            name: "query absent",
            request: #"{"queryParameters": {"debug": {"absent": true}}}"#,
            matching: [Probe("/s"), Probe("/s?x=1")],
            notMatching: [Probe("/s?debug=1"), Probe("/s?debug")]
        ),
        Case(
            name: "query hasExactly",
            request: #"{"queryParameters": {"id": {"hasExactly": [{"equalTo": "1"}, {"equalTo": "2"}]}}}"#,
            matching: [Probe("/s?id=1&id=2"), Probe("/s?id=2&id=1")],
            notMatching: [Probe("/s?id=1"), Probe("/s?id=1&id=2&id=3"), Probe("/s")]
        ),
        Case(
            name: "query includes",
            request: #"{"queryParameters": {"id": {"includes": [{"equalTo": "1"}, {"matches": "[a-z]+"}]}}}"#,
            matching: [Probe("/s?id=1&id=abc"), Probe("/s?id=9&id=abc&id=1")],
            notMatching: [Probe("/s?id=1"), Probe("/s")]
        ),

        // MARK: Headers and string operators
        Case(
            name: "header names are case-insensitive",
            request: #"{"headers": {"Content-Type": {"equalTo": "application/json"}}}"#,
            matching: [Probe("/", headers: [("content-type", "application/json")])],
            notMatching: [Probe("/", headers: [("Content-Type", "application/JSON")]), Probe("/")]
        ),
        Case(
            name: "equalTo caseInsensitive",
            request: #"{"headers": {"Accept": {"equalTo": "TEXT/plain", "caseInsensitive": true}}}"#,
            matching: [Probe("/", headers: [("Accept", "text/PLAIN")])],
            notMatching: [Probe("/", headers: [("Accept", "text/html")]), Probe("/")]
        ),
        Case(
            name: "contains",
            request: #"{"headers": {"Accept": {"contains": "xml"}}}"#,
            matching: [Probe("/", headers: [("Accept", "text/xml")])],
            notMatching: [Probe("/", headers: [("Accept", "text/json")]), Probe("/")]
        ),
        Case(
            name: "doesNotContain, which a missing header satisfies",
            request: #"{"headers": {"Accept": {"doesNotContain": "xml"}}}"#,
            matching: [Probe("/", headers: [("Accept", "text/json")]), Probe("/")],
            notMatching: [Probe("/", headers: [("Accept", "text/xml")])]
        ),
        Case(
            name: "matches is anchored to the whole value",
            request: #"{"headers": {"X-Id": {"matches": "[0-9]+"}}}"#,
            matching: [Probe("/", headers: [("X-Id", "123")])],
            notMatching: [Probe("/", headers: [("X-Id", "a123")]), Probe("/", headers: [("X-Id", "123a")]), Probe("/")]
        ),
        Case(
            name: "matches lets the dot cross lines (DOTALL)",
            request: #"{"bodyPatterns": [{"matches": "a.*z"}]}"#,
            matching: [Probe("POST", "/", body: "a\nz")],
            notMatching: [Probe("POST", "/", body: "a\nzz!")]
        ),
        Case(
            name: "doesNotMatch, which a missing header satisfies",
            request: #"{"headers": {"X-Id": {"doesNotMatch": "[0-9]+"}}}"#,
            matching: [Probe("/", headers: [("X-Id", "abc")]), Probe("/")],
            notMatching: [Probe("/", headers: [("X-Id", "12")])]
        ),
        Case(
            name: "header absent",
            request: #"{"headers": {"X-Debug": {"absent": true}}}"#,
            matching: [Probe("/")],
            notMatching: [Probe("/", headers: [("x-debug", "")])]
        ),
        Case(
            name: "any of a repeated header's values",
            request: #"{"headers": {"X-Tag": {"equalTo": "b"}}}"#,
            matching: [Probe("/", headers: [("X-Tag", "a"), ("X-Tag", "b")])],
            notMatching: [Probe("/", headers: [("X-Tag", "a"), ("X-Tag", "c")])]
        ),
        Case(
            name: "and",
            request: #"{"headers": {"X": {"and": [{"contains": "a"}, {"contains": "b"}]}}}"#,
            matching: [Probe("/", headers: [("X", "ab")])],
            notMatching: [Probe("/", headers: [("X", "a")]), Probe("/", headers: [("X", "b")])]
        ),
        Case(
            name: "or with absent",
            request: #"{"headers": {"X": {"or": [{"equalTo": "1"}, {"absent": true}]}}}"#,
            matching: [Probe("/", headers: [("X", "1")]), Probe("/")],
            notMatching: [Probe("/", headers: [("X", "2")])]
        ),
        Case(
            name: "not",
            request: #"{"headers": {"X": {"not": {"equalTo": "1"}}}}"#,
            matching: [Probe("/", headers: [("X", "2")]), Probe("/")],
            notMatching: [Probe("/", headers: [("X", "1")])]
        ),
        Case(
            name: "anything",
            request: #"{"headers": {"X": {"anything": "anything"}}}"#,
            matching: [Probe("/", headers: [("X", "2")]), Probe("/")],
            notMatching: []
        ),
        Case(
            name: "number comparisons",
            request: #"{"queryParameters": {"n": {"greaterThanNumber": 5}, "m": {"lessThanEqualNumber": "2.5"}}}"#,
            matching: [Probe("/?n=6&m=2.5"), Probe("/?n=5.1&m=-1")],
            notMatching: [Probe("/?n=5&m=1"), Probe("/?n=x&m=1"), Probe("/?n=6")]
        ),

        // MARK: Cookies, basic auth, form, address
        Case(
            name: "cookies",
            request: #"{"cookies": {"session": {"matches": ".*12345.*"}, "tracking": {"absent": true}}}"#,
            matching: [Probe("/", headers: [("Cookie", "a=1; session=ab12345cd")])],
            notMatching: [Probe("/", headers: [("Cookie", "session=ab123")]), Probe("/"), Probe("/", headers: [("Cookie", "session=12345; tracking=1")])]
        ),
        Case(
            name: "a cookie not sent satisfies only absent",
            request: #"{"cookies": {"session": {"doesNotMatch": "x"}}}"#,
            matching: [Probe("/", headers: [("Cookie", "session=y")])],
            notMatching: [Probe("/"), Probe("/", headers: [("Cookie", "session=x")])]
        ),
        Case(
            name: "basicAuthCredentials",
            request: #"{"basicAuthCredentials": {"username": "jeff@example.com", "password": "jeffteenjefftyjeff"}}"#,
            matching: [
                Probe("/", headers: [("Authorization", "Basic amVmZkBleGFtcGxlLmNvbTpqZWZmdGVlbmplZmZ0eWplZmY=")]),
                Probe("/", headers: [("authorization", "basic amVmZkBleGFtcGxlLmNvbTpqZWZmdGVlbmplZmZ0eWplZmY=")]),
            ],
            notMatching: [Probe("/", headers: [("Authorization", "Basic amVmZjp3cm9uZw==")]), Probe("/")]
        ),
        Case(
            name: "formParameters",
            request: #"{"formParameters": {"grant_type": {"equalTo": "client credentials"}}}"#,
            matching: [Probe("POST", "/", body: "grant_type=client+credentials&scope=a")],
            notMatching: [Probe("POST", "/", body: "grant_type=password"), Probe("POST", "/")]
        ),
        Case(
            name: "host, port and scheme",
            request: #"{"host": {"equalTo": "api.example.com"}, "port": 8443, "scheme": "https"}"#,
            matching: [Probe("https://api.example.com:8443/x")],
            notMatching: [Probe("http://api.example.com:8443/x"), Probe("https://api.example.com/x"), Probe("https://web.example.com:8443/x")]
        ),

        // MARK: Bodies
        Case(
            name: "body equalTo",
            request: #"{"bodyPatterns": [{"equalTo": "hello"}]}"#,
            matching: [Probe("POST", "/", body: "hello")],
            notMatching: [Probe("POST", "/", body: "hello!"), Probe("POST", "/")]
        ),
        Case(
            name: "body contains and matches together",
            request: #"{"bodyPatterns": [{"contains": "order"}, {"matches": ".*[0-9]{3}.*"}]}"#,
            matching: [Probe("POST", "/", body: "order 123")],
            notMatching: [Probe("POST", "/", body: "order 12"), Probe("POST", "/", body: "item 123")]
        ),
        Case(
            name: "body absent means empty",
            request: #"{"bodyPatterns": [{"absent": true}]}"#,
            matching: [Probe("POST", "/"), Probe("POST", "/", body: "")],
            notMatching: [Probe("POST", "/", body: "x")]
        ),
        Case(
            name: "equalToJson as a string: key order and 1 vs 1.0 do not matter",
            request: #"{"bodyPatterns": [{"equalToJson": "{ \"total\": 1, \"items\": [1, 2] }"}]}"#,
            matching: [Probe("POST", "/", body: #"{"items":[1,2],"total":1.0}"#)],
            notMatching: [Probe("POST", "/", body: #"{"items":[2,1],"total":1}"#), Probe("POST", "/", body: #"{"items":[1,2],"total":1,"x":0}"#), Probe("POST", "/", body: "not json")]
        ),
        Case(
            name: "equalToJson as a value, ignoreArrayOrder",
            request: #"{"bodyPatterns": [{"equalToJson": {"tags": ["a", "b", "a"]}, "ignoreArrayOrder": true}]}"#,
            matching: [Probe("POST", "/", body: #"{"tags":["a","a","b"]}"#)],
            notMatching: [Probe("POST", "/", body: #"{"tags":["a","b","b"]}"#), Probe("POST", "/", body: #"{"tags":["a","b"]}"#)]
        ),
        Case(
            name: "equalToJson ignoreExtraElements",
            request: #"{"bodyPatterns": [{"equalToJson": {"user": {"name": "Alice"}, "ids": [1]}, "ignoreExtraElements": true}]}"#,
            matching: [Probe("POST", "/", body: #"{"user":{"name":"Alice","age":3},"ids":[1,2],"more":true}"#)],
            notMatching: [Probe("POST", "/", body: #"{"user":{"name":"Bob"},"ids":[1]}"#), Probe("POST", "/", body: #"{"user":{"name":"Alice"},"ids":[2,1]}"#)]
        ),
        Case(
            name: "equalToJson placeholders",
            request: #"{"bodyPatterns": [{"equalToJson": {"id": "${json-unit.any-number}", "name": "${json-unit.any-string}", "at": "${json-unit.ignore}", "code": "${json-unit.regex}[A-Z]{3}"}}]}"#,
            matching: [Probe("POST", "/", body: #"{"id": 7, "name": "x", "at": null, "code": "ABC"}"#)],
            notMatching: [Probe("POST", "/", body: #"{"id": "7", "name": "x", "at": 1, "code": "ABC"}"#), Probe("POST", "/", body: #"{"id": 7, "name": "x", "code": "ABC"}"#), Probe("POST", "/", body: #"{"id": 7, "name": "x", "at": 1, "code": "ABCD"}"#)]
        ),
        Case(
            name: "matchesJsonPath: a value is there",
            request: #"{"bodyPatterns": [{"matchesJsonPath": "$.name"}]}"#,
            matching: [Probe("POST", "/", body: #"{"name": "x"}"#), Probe("POST", "/", body: #"{"name": {}}"#)],
            notMatching: [Probe("POST", "/", body: #"{"name": null}"#), Probe("POST", "/", body: #"{"other": 1}"#), Probe("POST", "/", body: "<xml/>"), Probe("POST", "/")]
        ),
        Case(
            name: "matchesJsonPath with a filter (WireMock's docs)",
            request: #"{"bodyPatterns": [{"matchesJsonPath": "$.things[?(@.name == 'RequiredThing')]"}]}"#,
            matching: [Probe("POST", "/", body: #"{"things": [{"name": "RequiredThing"}, {"name": "Wiremock"}]}"#), Probe("POST", "/", body: #"{"things": {"name": "RequiredThing"}}"#)],
            notMatching: [Probe("POST", "/", body: #"{"price": 15}"#), Probe("POST", "/", body: #"{"things": {"name": "Wiremock"}}"#)]
        ),
        Case(
            name: "matchesJsonPath with a nested matcher",
            request: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$..todoItem", "contains": "wash"}}]}"#,
            matching: [Probe("POST", "/", body: #"{"list": [{"todoItem": "buy milk"}, {"todoItem": "wash car"}]}"#)],
            notMatching: [Probe("POST", "/", body: #"{"list": [{"todoItem": "buy milk"}]}"#), Probe("POST", "/", body: #"{}"#)]
        ),
        Case(
            name: "matchesJsonPath nested absent",
            request: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$.deleted", "absent": true}}]}"#,
            matching: [Probe("POST", "/", body: #"{"id": 1}"#), Probe("POST", "/", body: #"{"deleted": null}"#)],
            notMatching: [Probe("POST", "/", body: #"{"deleted": false}"#)]
        ),
        Case(
            name: "matchesJsonPath nested equalToJson on a definite array",
            request: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$.items", "equalToJson": "[1, 2]"}}]}"#,
            matching: [Probe("POST", "/", body: #"{"items": [1, 2]}"#)],
            notMatching: [Probe("POST", "/", body: #"{"items": [1]}"#)]
        ),
        Case(
            name: "matchesJsonPath nested on a definite array compares each element",
            request: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$.tags", "equalTo": "b"}}]}"#,
            matching: [Probe("POST", "/", body: #"{"tags": ["a", "b"]}"#)],
            notMatching: [Probe("POST", "/", body: #"{"tags": ["a", "c"]}"#)]
        ),
        Case(
            name: "matchesJsonPath numbers as text",
            request: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$.total", "equalTo": "10"}}]}"#,
            matching: [Probe("POST", "/", body: #"{"total": 10}"#)],
            notMatching: [Probe("POST", "/", body: #"{"total": 11}"#)]
        ),
        Case(
            name: "binaryEqualTo",
            request: #"{"bodyPatterns": [{"binaryEqualTo": "AQID"}]}"#,
            matching: [Probe("POST", "/", bytes: Data([1, 2, 3]))],
            notMatching: [Probe("POST", "/", bytes: Data([1, 2])), Probe("POST", "/")]
        ),

        // MARK: Real-world shapes
        Case(
            name: "WireMock docs: everything",
            request: #"""
                {"urlPath": "/everything", "method": "ANY",
                 "headers": {"Accept": {"contains": "json"}},
                 "queryParameters": {"search_term": {"equalTo": "WireMock"}},
                 "cookies": {"session": {"matches": ".*12345.*"}},
                 "basicAuthCredentials": {"username": "jeff@example.com", "password": "jeffteenjefftyjeff"},
                 "bodyPatterns": [{"equalToJson": {"total_results": 4}}, {"matchesJsonPath": "$.total_results"}]}
                """#,
            matching: [
                Probe(
                    "PUT",
                    "/everything?search_term=WireMock",
                    headers: [("Accept", "application/json"), ("Cookie", "session=x12345y"), ("Authorization", "Basic amVmZkBleGFtcGxlLmNvbTpqZWZmdGVlbmplZmZ0eWplZmY=")],
                    body: #"{"total_results": 4}"#
                )
            ],
            notMatching: [
                Probe(
                    "PUT",
                    "/everything?search_term=WireMock",
                    headers: [("Accept", "application/json"), ("Cookie", "session=x12345y")],
                    body: #"{"total_results": 4}"#
                )
            ]
        ),
        Case(
            name: "WireMock docs: charges",
            request: #"{"urlPath": "/charges", "method": "POST", "headers": {"Content-Type": {"equalTo": "application/json"}}}"#,
            matching: [Probe("POST", "/charges", headers: [("Content-Type", "application/json")])],
            notMatching: [Probe("POST", "/charges", headers: [("Content-Type", "text/plain")])]
        ),
        // MARK: Date-times
        Case(
            name: "truncations, each in the value's own zone",
            request: #"{"headers": {"A": {"equalToDateTime": "2021-12-31T00:00:00Z", "truncateActual": "last day of year"}, "B": {"equalToDateTime": "2022-01-01T00:00:00+01:00", "truncateActual": "first day of next month"}, "C": {"equalToDateTime": "2021-06-01T00:00:00-04:00[America/New_York]", "truncateActual": "first day of month"}}}"#,
            matching: [Probe("/", headers: [("A", "2021-03-04T05:06:07Z"), ("B", "2021-12-15T23:30:00+01:00"), ("C", "2021-06-30T23:00:00-04:00[America/New_York]")])],
            notMatching: [
                Probe("/", headers: [("A", "2022-03-04T05:06:07Z"), ("B", "2021-12-15T23:30:00+01:00"), ("C", "2021-06-30T23:00:00-04:00[America/New_York]")]),
                // 2021-07-01T03:00Z is still June in New York, but the value is read in UTC.
                Probe("/", headers: [("A", "2021-03-04T05:06:07Z"), ("B", "2021-12-15T23:30:00+01:00"), ("C", "2021-07-01T03:00:00Z")]),
            ]
        ),
        Case(
            name: "Java patterns: two-digit years from 2000, 12-hour clocks, literals, full names",
            request: #"{"headers": {"D": {"equalToDateTime": "2021-06-24T13:05:00Z", "actualFormat": "EEEE d MMMM yy 'at' hh:mm a, VV"}}}"#,
            matching: [Probe("/", headers: [("D", "Thursday 24 June 21 at 01:05 PM, UTC")]), Probe("/", headers: [("D", "Thursday 24 June 21 at 03:05 PM, Europe/Paris")])],
            notMatching: [
                Probe("/", headers: [("D", "Thursday 24 June 21 at 01:05 AM, UTC")]),
                Probe("/", headers: [("D", "thursday 24 June 21 at 01:05 PM, UTC")]),
                Probe("/", headers: [("D", "Thursday 24 June 21 at 1:05 PM, UTC")]),
                Probe("/", headers: [("D", "Thursday 24 June 21 at 01:05 PM")]),
                Probe("/"),
            ]
        ),
        Case(
            name: "a day past the month's end: the last day with a pattern, refused in ISO",
            request: #"{"headers": {"P": {"equalToDateTime": "2021-04-30", "actualFormat": "dd/MM/yyyy"}, "I": {"after": "2021-01-01"}}}"#,
            matching: [Probe("/", headers: [("P", "31/04/2021"), ("I", "2021-04-30")])],
            notMatching: [Probe("/", headers: [("P", "32/04/2021"), ("I", "2021-04-30")]), Probe("/", headers: [("P", "30/04/2021"), ("I", "2021-04-31")])]
        ),
        Case(
            name: "adjacent numbers keep the widths that follow",
            request: #"{"headers": {"D": {"equalToDateTime": "2021-06-24T10:15:00", "actualFormat": "yyyyMMddHHmm"}}}"#,
            matching: [Probe("/", headers: [("D", "202106241015")])],
            notMatching: [Probe("/", headers: [("D", "20210624101")]), Probe("/", headers: [("D", "2021062410150")])]
        ),
        // MARK: Multipart
        Case(
            name: "multipart: a part's body as JSON, binary bytes, and parts without a name left out",
            request: #"{"multipartPatterns": [{"bodyPatterns": [{"equalToJson": {"a": 1}}]}, {"matchingType": "ALL", "headers": {"Content-Disposition": {"matches": "form-data; name=\"[a-z]+\".*"}}}]}"#,
            matching: [
                Probe("POST", "/", headers: [("Content-Type", "multipart/form-data; boundary=\"q q\"")], body: "--q q\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n{\"a\": 1}\r\n--q q\r\nContent-Type: text/plain\r\n\r\nignored: no disposition\r\n--q q--\r\n"),
            ],
            notMatching: [
                Probe("POST", "/", headers: [("Content-Type", "multipart/form-data; boundary=q")], body: "--q\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n{\"a\": 2}\r\n--q--\r\n"),
                Probe("POST", "/", headers: [("Content-Type", "multipart/form-data; boundary=q")], body: "--q\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n{\"a\": 1}\r\n--q\r\nContent-Disposition: form-data; name=\"Y1\"\r\n\r\n\r\n--q--\r\n"),
                Probe("POST", "/", headers: [("Content-Type", "application/json")], body: "{\"a\": 1}"),
            ]
        ),
    ]

    @Test(arguments: cases)
    func matchesWhatWireMockMatches(_ example: Case) throws {
        let pattern = try Self.pattern(example.request)
        for probe in example.matching {
            #expect(pattern.matches(probe.recorded), "should match: \(probe)")
            #expect(pattern.distance(to: probe.recorded) == 0, "distance of a match: \(probe)")
        }
        for probe in example.notMatching {
            #expect(!pattern.matches(probe.recorded), "should not match: \(probe)")
            let distance = pattern.distance(to: probe.recorded)
            #expect(distance > 0 && distance <= 1, "distance of a miss: \(probe)")
            if let matcher = pattern.matcher, try PathPattern(pattern.pathPattern).matches(probe.recorded.path) {
                #expect(!matcher.mismatches(probe.recorded).isEmpty, "a miss names its failed rules: \(probe)")
            }
        }
    }

    // MARK: What the registry gets

    @Test(arguments: [
        (#"{"urlPath": "/users"}"#, "/users", true),
        (#"{"url": "/users?page=2"}"#, "/users", false),
        (#"{"url": "/users"}"#, "/users", false),
        (#"{"urlPath": "/files/*"}"#, "/**", false),
        (#"{"urlPath": "/caf%C3%A9"}"#, "/**", false),
        (#"{"urlPathTemplate": "/users/{id}/posts/{postId}"}"#, "/users/*/posts/*", true),
        (#"{"urlPathTemplate": "/files/{name}.json"}"#, "/**", false),
        (#"{"urlPathTemplate": "/files/**"}"#, "/**", false),
        (#"{"urlPattern": "/users/.*"}"#, "/**", false),
        (#"{"urlPathPattern": "/users/.*"}"#, "/**", false),
        (#"{"method": "GET"}"#, "/**", false),
        (#"{}"#, "/**", true),
    ])
    func givesTheRegistryAPathPattern(request: String, pathPattern: String, decidesAlone: Bool) throws {
        let pattern = try Self.pattern(request)
        #expect(pattern.pathPattern == pathPattern)
        #expect((pattern.matcher == nil) == decidesAlone)
    }

    @Test func methodIsUppercasedAndAnyIsNone() throws {
        #expect(try Self.pattern(#"{"method": "post"}"#).method == "POST")
        #expect(try Self.pattern(#"{"method": "ANY"}"#).method == nil)
        #expect(try Self.pattern(#"{"urlPath": "/a"}"#).method == nil)
        #expect(try Self.pattern(#"{"method": {"oneOf": ["GET", "PUT"]}}"#).method == nil)
    }

    // MARK: Messages

    @Test func theMatcherDescribesItselfInWireMocksWords() throws {
        let pattern = try Self.pattern(#"{"method": "POST", "urlPath": "/users", "headers": {"Content-Type": {"contains": "json"}}}"#)
        #expect(pattern.matcher?.description == #"method POST and urlPath /users and header Content-Type contains "json""#)
        let miss = Probe("POST", "/users", headers: [("Content-Type", "text/plain")]).recorded
        #expect(pattern.matcher?.mismatches(miss) == [#"header Content-Type contains "json": was "text/plain""#])
        let missing = Probe("GET", "/users").recorded
        #expect(pattern.matcher?.mismatches(missing) == [#"method POST: was GET"#, #"header Content-Type contains "json": missing"#])
    }

    @Test func everyRuleReadsAsWireMockWritesIt() throws {
        let pattern = try Self.pattern(
            #"""
            {"method": {"oneOf": ["GET", "HEAD"]}, "urlPathTemplate": "/u/{id}", "pathParameters": {"id": {"matches": "[0-9]+"}},
             "scheme": "https", "host": {"equalTo": "api.test"}, "port": 443,
             "queryParameters": {"q": {"hasExactly": [{"equalTo": "a"}, {"absent": true}]}},
             "headers": {"X": {"not": {"equalTo": "1", "caseInsensitive": true}}},
             "cookies": {"c": {"or": [{"contains": "a"}, {"doesNotMatch": "b"}]}},
             "formParameters": {"f": {"includes": [{"equalTo": "1"}]}},
             "bodyPatterns": [{"equalToJson": {"a": [1, 2]}, "ignoreArrayOrder": true}, {"matchesJsonPath": {"expression": "$.a[0]", "greaterThanNumber": 0}}, {"binaryEqualTo": "AQID"}]}
            """#
        )
        let expected = [
            "method oneOf [GET, HEAD]", "urlPathTemplate /u/{id}", #"pathParameter id matches "[0-9]+""#, "scheme https", #"host equalTo "api.test""#, "port 443",
            #"queryParameter q hasExactly [equalTo "a", absent]"#, #"header X not (equalTo "1" (caseInsensitive))"#, #"cookie c (contains "[REDACTED]" or doesNotMatch "[REDACTED]")"#,
            #"formParameter f includes [equalTo "1"]"#, #"body equalToJson {"a":[1,2]} (ignoreArrayOrder)"#, #"body matchesJsonPath "$.a[0]" greaterThanNumber 0"#,
            "body binaryEqualTo 3 bytes",
        ]
        #expect(pattern.matcher?.description == expected.joined(separator: " and "))
    }

    @Test func credentialsStayHiddenInDescriptionsAndMismatches() throws {
        let pattern = try Self.pattern(
            #"""
            {"urlPath": "/a", "basicAuthCredentials": {"username": "jeff", "password": "s3cret"},
             "headers": {"Authorization": {"equalTo": "Bearer abc"}}, "queryParameters": {"token": {"equalTo": "t0ken"}},
             "bodyPatterns": [{"equalToJson": {"password": "hunter2", "user": "jeff"}}, {"matchesJsonPath": {"expression": "$.password", "equalTo": "hunter2"}}]}
            """#
        )
        let description = try #require(pattern.matcher?.description)
        for secret in ["s3cret", "Bearer abc", "t0ken", "hunter2"] {
            #expect(!description.contains(secret), "\(secret) in \(description)")
        }
        #expect(description.contains(#""user":"jeff""#))
        let miss = Probe("/a?token=wrong1", headers: [("Authorization", "Bearer xyz")], body: #"{"password": "wrong2", "user": "jeff"}"#).recorded
        let mismatches = try #require(pattern.matcher?.mismatches(miss))
        #expect(mismatches.count == 5)
        for secret in ["wrong1", "Bearer xyz", "wrong2"] {
            #expect(!mismatches.joined().contains(secret), "\(secret) in \(mismatches)")
        }
        #expect(mismatches.contains("body matchesJsonPath \"$.password\" equalTo \"[REDACTED]\": found \"[REDACTED]\""))
        #expect(mismatches.contains(#"body equalToJson {"password":[REDACTED],"user":"jeff"}: $.password is [REDACTED], expected [REDACTED]"#))
        // Redaction.none shows them all: the values are only marked, not lost.
        #expect(Redaction.none.render(pattern.matcher!.template).contains("s3cret"))
    }

    @Test func urlQueryValuesAreMarkedByName() throws {
        let pattern = try Self.pattern(#"{"method": "GET", "url": "/cb?code=abc&state=1"}"#)
        #expect(pattern.matcher?.description == "method GET and url /cb?code=[REDACTED]&state=1")
        #expect(pattern.matcher?.mismatches(Probe("/cb?code=xyz&state=1").recorded) == ["url /cb?code=[REDACTED]&state=1: was /cb?code=[REDACTED]&state=1"])
    }

    // MARK: Refusals

    /// A request object that must be refused, and the whole message.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let request: String
        let message: String
        var testDescription: String { message }
    }

    static let refusals: [Refusal] = [
        Refusal(
            request: #"{"urlPath": "/a", "bodyPatterns": [{"equalToXml": "<a/>"}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].equalToXml: is an XML matcher, and no XML engine is installed in this process (HTTPMock leaves it out so that its users never link an XML library); expected the product "AirlockWireMockXML" in this target's dependencies and one line before reading mappings: WireMockXML.install() (MockServer and airlock serve install it themselves; Linux only for now)"#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"matchesXPath": "//a"}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].matchesXPath: is an XML matcher, and no XML engine is installed in this process (HTTPMock leaves it out so that its users never link an XML library); expected the product "AirlockWireMockXML" in this target's dependencies and one line before reading mappings: WireMockXML.install() (MockServer and airlock serve install it themselves; Linux only for now)"#
        ),
        Refusal(
            request: #"{"headers": {"Date": {"before": "now +1 fortnights"}}}"#,
            message: #"mappings/a.json, headers.Date.before: is "now +1 fortnights", whose unit "fortnights" is not one of WireMock's; expected a unit: "seconds", "minutes", "hours", "days", "months", "years""#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"matchesJsonSchema": {}, "schemaVersion": "V201909"}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].schemaVersion: is "V201909", a JSON Schema draft Airlock's validator does not implement; expected "V4" (draft 4) or "V202012" (draft 2020-12, the default): Airlock's validator implements those two"#
        ),
        Refusal(
            request: #"{"customMatcher": {"name": "x"}}"#,
            message: #"mappings/a.json, customMatcher: is not supported by Airlock; expected a mapping without "customMatcher" (extensions do not run in Airlock; use the built-in matchers)"#
        ),
        Refusal(
            request: #"{"multipartPatterns": [{"matchingType": "EVERY"}]}"#,
            message: #"mappings/a.json, multipartPatterns[0].matchingType: is "EVERY"; expected "ANY" (some part matches) or "ALL" (every part matches)"#
        ),
        Refusal(
            request: #"{"clientIp": "1.2.3.4"}"#,
            message: #"mappings/a.json, clientIp: has the wrong type; expected a JSON object with a matcher: "equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "absent", "anything", "not", "and", "or", "equalToJson", "matchesJsonPath", "equalToXml", "matchesXPath", "matchesJsonSchema", "equalToNumber", "greaterThanNumber", "greaterThanEqualNumber", "lessThanNumber", "lessThanEqualNumber", "before", "after", "equalToDateTime""#
        ),
        Refusal(
            request: #"{"urlpath": "/a"}"#,
            message: #"mappings/a.json, urlpath: is not a field of a WireMock request; did you mean "urlPath"?; expected one of "basicAuthCredentials", "bodyPatterns", "clientIp", "cookies", "formParameters", "headers", "host", "method", "multipartPatterns", "pathParameters", "port", "queryParameters", "scheme", "url", "urlPath", "urlPathPattern", "urlPathTemplate", "urlPattern""#
        ),
        Refusal(
            request: #"{"headers": {"X": {"equalsTo": "1"}}}"#,
            message: #"mappings/a.json, headers.X.equalsTo: is not a matcher; did you mean "equalTo"?; expected a matcher: "equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "absent", "anything", "not", "and", "or", "equalToJson", "matchesJsonPath", "equalToXml", "matchesXPath", "matchesJsonSchema", "equalToNumber", "greaterThanNumber", "greaterThanEqualNumber", "lessThanNumber", "lessThanEqualNumber", "before", "after", "equalToDateTime""#
        ),
        Refusal(
            request: #"{"queryParameters": {"q": {"matches": "([a-z]"}}}"#,
            message: #"mappings/a.json, queryParameters.q.matches: is not a valid regular expression"#
        ),
        Refusal(
            request: #"{"headers": {"X": {"or": [{"equalTo": "1"}]}}}"#,
            message: #"mappings/a.json, headers.X.or: has 1 matcher; expected at least two matchers"#
        ),
        Refusal(
            request: #"{"urlPath": "a"}"#,
            message: #"mappings/a.json, urlPath: is "a", which does not start with "/"; expected a path such as "/users""#
        ),
        Refusal(
            request: #"{"urlPath": "/a", "pathParameters": {"id": {"equalTo": "1"}}}"#,
            message: #"mappings/a.json, pathParameters: is given without "urlPathTemplate"; expected a "urlPathTemplate" such as "/users/{id}" naming the parameters"#
        ),
        Refusal(
            request: #"{"urlPathTemplate": "/u/{id}", "pathParameters": {"userId": {"equalTo": "1"}}}"#,
            message: #"mappings/a.json, pathParameters.userId: is not a variable of "/u/{id}"; expected one of "id""#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"equalToJson": "{not json"}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].equalToJson: is not valid JSON; expected a JSON document, as a string or as the JSON value itself"#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"equalToJson": {"a": "${json-unit.matches:isDate}"}}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].equalToJson: uses the placeholder "${json-unit.matches:isDate}", which Airlock does not support; expected a literal value or one of ${json-unit.any-string}, ${json-unit.any-number}, ${json-unit.any-boolean}, ${json-unit.ignore}, ${json-unit.ignore-element}, ${json-unit.regex}…"#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"matchesJsonPath": "$.a[0,1]"}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].matchesJsonPath: is the JSON path "$.a[0,1]", which selects several elements at once (a union), which Airlock does not support; expected a JSON path in the subset Airlock reads: $.a.b, $['a'], [0], [*], ..name, [?(@.x == 'y')], [?(@.x)], comparisons < <= > >= != and =~"#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$.a[?(@.b in ['x'])]", "equalTo": "1"}}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].matchesJsonPath.expression: is the JSON path "$.a[?(@.b in ['x'])]", which uses the filter operator "in", which Airlock does not support (only ==, !=, <, <=, >, >=, =~); expected a JSON path in the subset Airlock reads: $.a.b, $['a'], [0], [*], ..name, [?(@.x == 'y')], [?(@.x)], comparisons < <= > >= != and =~"#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"matchesJsonPath": {"expression": "$.a"}}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].matchesJsonPath: has no matcher; expected a matcher: "equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "absent", "anything", "not", "and", "or", "equalToJson", "matchesJsonPath", "equalToXml", "matchesXPath", "matchesJsonSchema", "equalToNumber", "greaterThanNumber", "greaterThanEqualNumber", "lessThanNumber", "lessThanEqualNumber", "before", "after", "equalToDateTime""#
        ),
        Refusal(
            request: #"{"bodyPatterns": [{"binaryEqualTo": "***"}]}"#,
            message: #"mappings/a.json, bodyPatterns[0].binaryEqualTo: is not valid base64; expected the body's bytes in base64"#
        ),
        Refusal(
            request: #"{"headers": {"X": {"binaryEqualTo": "AQID"}}}"#,
            message: #"mappings/a.json, headers.X.binaryEqualTo: is a body matcher, read only in "bodyPatterns"; expected a string matcher such as "equalTo" here"#
        ),
        Refusal(
            request: #"{"method": 1}"#,
            message: #"mappings/a.json, method: has the wrong type; expected a method such as "GET", "ANY", or {"oneOf": [...]} / {"noneOf": [...]}"#
        ),
        Refusal(request: #"{"port": 0}"#, message: #"mappings/a.json, port: is 0; expected a port from 1 to 65535"#),
        Refusal(request: #"{"scheme": "ftp"}"#, message: #"mappings/a.json, scheme: is "ftp"; expected "http" or "https""#),
        Refusal(
            request: #"{"headers": {"X": "1"}}"#,
            message: #"mappings/a.json, headers.X: has the wrong type; expected a JSON object with a matcher: "equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "absent", "anything", "not", "and", "or", "equalToJson", "matchesJsonPath", "equalToXml", "matchesXPath", "matchesJsonSchema", "equalToNumber", "greaterThanNumber", "greaterThanEqualNumber", "lessThanNumber", "lessThanEqualNumber", "before", "after", "equalToDateTime""#
        ),
        Refusal(
            request: #"{"basicAuthCredentials": {"username": "a"}}"#,
            message: #"mappings/a.json, basicAuthCredentials.password: is missing; expected a "password" field"#
        ),
    ]

    @Test(arguments: refusals)
    func refusesWhatItDoesNotSupportByName(_ refusal: Refusal) {
        // As in a process without the XML engine (HTTPMock's), whatever other tests installed.
        WireMockXMLSupport.$isHiddenForTesting.withValue(true) {
            refuses(refusal)
        }
    }

    private func refuses(_ refusal: Refusal) {
        #expect {
            _ = try Self.pattern(refusal.request)
        } throws: { error in
            guard let error = error as? StubFileError else { return false }
            // A regex's own complaint varies by platform: compare up to it.
            return refusal.message.hasSuffix("regular expression") ? error.description.hasPrefix(refusal.message) : error.description == refusal.message
        }
    }

    @Test func aNestedRequestObjectNamesItsFullPath() throws {
        let document = try JSONNode.parse(Data(#"{"request": {"headers": {"X": {"matchesPathTemplate": "/a/{b}"}}}}"#.utf8), source: "mappings/b.json", expected: "a mapping")
        let request = try #require(try document.object("a mapping", fields: ["request"])["request"])
        #expect(throws: StubFileError.self) { try WireMockRequestPattern(request) }
        do {
            _ = try WireMockRequestPattern(request)
        } catch {
            #expect(error.location == "request.headers.X.matchesPathTemplate")
            #expect(error.file == "mappings/b.json")
        }
    }

    // MARK: Distance

    @Test func closerRequestsAreNearer() throws {
        let pattern = try Self.pattern(
            #"{"method": "POST", "urlPath": "/users", "headers": {"Content-Type": {"equalTo": "application/json"}}, "bodyPatterns": [{"equalToJson": {"name": "Alice", "age": 30}}]}"#
        )
        let match = Probe("POST", "/users", headers: [("Content-Type", "application/json")], body: #"{"name": "Alice", "age": 30}"#)
        let bodyOff = Probe("POST", "/users", headers: [("Content-Type", "application/json")], body: #"{"name": "Alice", "age": 31}"#)
        let bodyFar = Probe("POST", "/users", headers: [("Content-Type", "application/json")], body: #"{"x": 1}"#)
        let headerAndBodyOff = Probe("POST", "/users", headers: [("Content-Type", "text/plain")], body: #"{"x": 1}"#)
        let methodOff = Probe("PUT", "/users", headers: [("Content-Type", "application/json")], body: #"{"name": "Alice", "age": 30}"#)
        let pathNear = Probe("POST", "/user", headers: [("Content-Type", "application/json")], body: #"{"name": "Alice", "age": 30}"#)
        let pathFar = Probe("POST", "/orders/123/items", headers: [("Content-Type", "application/json")], body: #"{"name": "Alice", "age": 30}"#)
        let everythingOff = Probe("GET", "/orders/123/items")
        // WireMock weighs the address first: a path one letter off is nearer than the wrong method.
        let ordered = [match, bodyOff, bodyFar, headerAndBodyOff, pathNear, methodOff, pathFar, everythingOff].map { pattern.distance(to: $0.recorded) }
        #expect(ordered[0] == 0)
        for index in 1..<ordered.count {
            #expect(ordered[index - 1] < ordered[index], "\(ordered)")
        }
        #expect(ordered.last! <= 1)
    }

    @Test func equalToDistanceGrowsWithTheEdit() throws {
        let pattern = try Self.pattern(#"{"headers": {"X-Version": {"equalTo": "2024-01-01"}}}"#)
        let near = pattern.distance(to: Probe("/", headers: [("X-Version", "2024-01-02")]).recorded)
        let far = pattern.distance(to: Probe("/", headers: [("X-Version", "1999")]).recorded)
        let missing = pattern.distance(to: Probe("/").recorded)
        #expect(0 < near && near < far && far < missing)
    }

    // MARK: JSONLocation

    static let document = #"""
        {"store": {"book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings", "price": 8.95},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword", "price": 12.99, "isbn": "0-553"},
            {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "price": "8.99", "isbn": "0-395"}
          ], "bicycle": {"color": "red", "price": 19.95}},
         "numbers": [1, 2, 3], "empty": [], "nothing": null, "a b": {"c": true}}
        """#

    @Test(arguments: [
        ("$.store.bicycle.color", #"["red"]"#),
        ("$['store']['bicycle']['color']", #"["red"]"#),
        ("$[\"a b\"].c", "[true]"),
        ("$.store.book[0].title", #"["Sayings"]"#),
        ("$.store.book[-1].title", #"["Moby Dick"]"#),
        ("$.store.book[*].author", #"["Nigel Rees","Evelyn Waugh","Herman Melville"]"#),
        ("$.store.book.length()", "[3]"),
        ("$.numbers.size()", "[3]"),
        ("$..color", #"["red"]"#),
        ("$..isbn", #"["0-553","0-395"]"#),
        ("$.store.*.color", #"["red"]"#),
        ("$.numbers.*", "[1,2,3]"),
        ("$.store.book[?(@.isbn)].title", #"["Sword","Moby Dick"]"#),
        ("$.store.book[?(!@.isbn)].title", #"["Sayings"]"#),
        ("$.store.book[?(@.price < 10)].title", #"["Sayings","Moby Dick"]"#),
        ("$.store.book[?(@.price >= 12.99)].title", #"["Sword"]"#),
        ("$.store.book[?(@.price > 9 && @.category == 'fiction')].title", #"["Sword"]"#),
        ("$.store.book[?(@.category != 'fiction' || @.price == '8.99')].title", #"["Sayings","Moby Dick"]"#),
        ("$.store.book[?(@.author =~ /.*melville/i)].title", #"["Moby Dick"]"#),
        ("$.store.book[?(@.author =~ /melville/i)].title", "[]"),
        ("$.store.book[?(@.price <= $.store.bicycle.price)].title", #"["Sayings","Sword","Moby Dick"]"#),
        ("$.store.book[?(@.category == \"reference\")].author", #"["Nigel Rees"]"#),
        ("$[?(@.numbers.size() == 3)].empty", "[[]]"),
        ("$.numbers[?(@ > 1)]", "[2,3]"),
        ("$..book[?(@.isbn == '0-553')].price", "[12.99]"),
        ("$..[?(@.color)].price", "[19.95]"),
        ("$.missing", "[]"),
        ("$.empty", "[[]]"),
        ("$.nothing", "[null]"),
        ("store.bicycle.color", #"["red"]"#),
    ])
    func evaluatesTheJSONPathSubset(expression: String, expected: String) throws {
        let path = try JSONPathExpression(expression)
        let document = try JSONValue.parse(Data(Self.document.utf8))
        #expect(JSONText.json(.array(path.evaluate(document))) == JSONText.json(try JSONValue.parse(Data(expected.utf8))))
    }

    @Test(arguments: [
        ("$.a[0:2]", "uses an array slice, which Airlock does not support"),
        ("$.a['x','y']", "selects several members at once (a union), which Airlock does not support"),
        ("$.a[(@.length-1)]", "uses a script expression [(…)], which Airlock does not support"),
        ("$.a.min()", "calls the function min(), which Airlock does not support (only length() and size())"),
        ("$.a[?(@.b anyof [1])]", #"uses the filter operator "anyof", which Airlock does not support (only ==, !=, <, <=, >, >=, =~)"#),
        ("$.a[?(@.b =~ /x/g)]", #"uses the regex flag "g", which Airlock does not support (only i, m, s and x)"#),
        ("$.a[?(@.b == 'x')", #"ends too early"#),
        ("#a", #"does not start with "$""#),
        ("", "is empty"),
    ])
    func refusesJSONPathsOutsideTheSubset(expression: String, problem: String) {
        #expect {
            _ = try JSONPathExpression(expression)
        } throws: { error in
            (error as? JSONPathError)?.problem == problem
        }
    }

    @Test(arguments: [
        ("$.a", true), ("$['a'][0]", true), ("$.a.length()", true), ("$.a[*]", false), ("$..a", false), ("$.a[?(@.b)]", false),
    ])
    func tellsDefinitePathsFromIndefiniteOnes(expression: String, definite: Bool) throws {
        #expect(try JSONPathExpression(expression).isDefinite == definite)
    }
}
