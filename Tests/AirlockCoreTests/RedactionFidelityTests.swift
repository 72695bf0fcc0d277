@testable import AirlockBase
@testable import AirlockCassettes
@testable import AirlockStubFiles
@testable import AirlockWireMock
@testable import AirlockCore
import Foundation
import HTTPTypes
import Testing

/// Redaction removes secrets and nothing else: response fields with everyday names stay, a
/// request's secret value is replaced only where it stands as a whole token, and a redaction
/// rewrites only the secret value's own bytes.
struct RedactionFidelityTests {
    /// A body case: what goes in, what must come out.
    struct BodyCase: Sendable, CustomTestStringConvertible {
        let name: String
        let input: String
        let expected: String
        var contentType: String? = "application/json"

        var testDescription: String { name }
    }

    // MARK: Response fields

    static let everydayResponses: [BodyCase] = [
        BodyCase(
            name: "the issue's response",
            input: #"{"error": {"code": 404}, "key": 7, "auth": true, "pin": 1234}"#,
            expected: #"{"error": {"code": 404}, "key": 7, "auth": true, "pin": 1234}"#
        ),
        BodyCase(
            name: "generic words",
            input: #"{"token": "page-2", "sig": "abc", "otp": false, "code": "E_LIMIT", "secret": "plan", "jwt": null}"#,
            expected: #"{"token": "page-2", "sig": "abc", "otp": false, "code": "E_LIMIT", "secret": "plan", "jwt": null}"#
        ),
        BodyCase(name: "text", input: "code=42 key: k1 auth=yes", expected: "code=42 key: k1 auth=yes", contentType: "text/plain"),
        BodyCase(name: "form", input: "code=42&key=k1", expected: "code=42&key=k1", contentType: "application/x-www-form-urlencoded"),
    ]

    @Test(arguments: everydayResponses)
    func everydayResponseFieldsReplayAsRecorded(_ example: BodyCase) {
        let shown = Redaction.standard.apply(to: exchange(response: example.input, responseType: example.contentType))
        #expect(shown.response?.body == Data(example.expected.utf8))
    }

    static let credentialResponses: [BodyCase] = [
        BodyCase(
            name: "token endpoint",
            input: #"{"access_token": "eyJhbGciOi.x.y", "token_type": "bearer", "expires_in": 3600, "refresh_token": "r-1"}"#,
            expected: #"{"access_token": "[REDACTED]", "token_type": "bearer", "expires_in": 3600, "refresh_token": "[REDACTED]"}"#
        ),
        BodyCase(
            name: "nested, camelCase, non-string",
            input: #"{"data": [{"clientSecret": 12345}, {"apiKey": {"id": 1}}, {"password": null}]}"#,
            expected: #"{"data": [{"clientSecret": "[REDACTED]"}, {"apiKey": "[REDACTED]"}, {"password": null}]}"#
        ),
        BodyCase(
            name: "form token response",
            input: "access_token=gho_16C7e42F292c&scope=repo&token_type=bearer",
            expected: "access_token=%5BREDACTED%5D&scope=repo&token_type=bearer",
            contentType: "application/x-www-form-urlencoded"
        ),
        BodyCase(name: "text", input: "id_token=abc.def code=7", expected: "id_token=[REDACTED] code=7", contentType: "text/plain"),
    ]

    @Test(arguments: credentialResponses)
    func credentialResponseFieldsAreHidden(_ example: BodyCase) {
        let shown = Redaction.standard.apply(to: exchange(response: example.input, responseType: example.contentType))
        #expect(String(decoding: shown.response?.body ?? Data(), as: UTF8.self) == example.expected)
    }

    @Test(arguments: [
        ("code", true, false), ("key", true, false), ("auth", true, false), ("sig", true, false), ("pin", true, false),
        ("otp", true, false), ("token", true, false), ("access_token", true, true), ("clientSecret", true, true),
        ("Session-Token", false, true), ("secret_access_key", false, true), ("page", false, false),
    ])
    func requestAndResponseFieldListsDiffer(_ name: String, _ hiddenInRequests: Bool, _ hiddenInResponses: Bool) {
        #expect(Redaction.standard.hidesField(name) == hiddenInRequests)
        #expect(Redaction.standard.hidesResponseField(name) == hiddenInResponses)
        #expect(!Redaction.none.hidesField(name) && !Redaction.none.hidesResponseField(name))
    }

    @Test func aResponseFieldAddedToThePolicyIsHidden() {
        var redaction = Redaction.standard
        redaction.responseFields.insert("pin")
        let shown = redaction.apply(to: exchange(response: #"{"pin": 1234, "key": 7}"#))
        #expect(shown.response?.body == Data(#"{"pin": "[REDACTED]", "key": 7}"#.utf8))
        #expect(redaction.responseBody(Data(#"{"pin":1}"#.utf8), contentType: nil) == Data(#"{"pin":"[REDACTED]"}"#.utf8))
    }

    @Test func anOAuthFormBodysCodeIsHiddenInTheRequest() {
        let shown = Redaction.standard.apply(
            to: exchange(
                method: "POST",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&redirect_uri=https%3A%2F%2Fapp"
            )
        )
        #expect(shown.bodyText == "grant_type=authorization_code&code=%5BREDACTED%5D&redirect_uri=https%3A%2F%2Fapp")
    }

    // MARK: Secret values as whole tokens

    struct EchoCase: Sendable, CustomTestStringConvertible {
        let name: String
        var url = "https://api.example.com/items"
        var headers: [(String, String)] = []
        var requestBody: String?
        let response: String
        let expected: String
        var responseType = "application/json"

        var testDescription: String { name }
    }

    static let echoes: [EchoCase] = [
        EchoCase(
            name: "a query secret inside a key and a word",
            url: "https://api.example.com/items?key=date",
            response: #"{"updated_date": "2024-01-01", "date": "date"}"#,
            expected: #"{"updated_date": "2024-01-01", "date": "[REDACTED]"}"#
        ),
        EchoCase(
            name: "an API key inside a key",
            headers: [("X-Api-Key", "item")],
            response: #"{"items": ["item", "items"], "count": 2}"#,
            expected: #"{"items": ["[REDACTED]", "items"], "count": 2}"#
        ),
        EchoCase(
            name: "a numeric password and a number",
            headers: [("Content-Type", "application/json")],
            requestBody: #"{"password": "1234"}"#,
            response: #"{"pins": [1], "pin_count": 1234, "pin": 1234}"#,
            expected: #"{"pins": [1], "pin_count": 1234, "pin": 1234}"#
        ),
        EchoCase(
            name: "a bearer token echoed",
            headers: [("Authorization", "Bearer abcd1234")],
            response: #"{"echo": "Bearer abcd1234", "other": "xabcd1234", "n": "abcd1234-2"}"#,
            expected: #"{"echo": "Bearer [REDACTED]", "other": "xabcd1234", "n": "abcd1234-2"}"#
        ),
        EchoCase(
            name: "a short bearer token echoed with its scheme",
            headers: [("Authorization", "Bearer abc")],
            response: #"{"echo": "Bearer abc", "word": "abc"}"#,
            expected: #"{"echo": "[REDACTED]", "word": "abc"}"#
        ),
        EchoCase(
            name: "a token next to escapes",
            headers: [("Authorization", "Bearer abcd1234")],
            response: #"{"log": "sent\nabcd1234\t\u00e9abcd1234\u0021 \u0041abcd1234 abcd1234\u005f"}"#,
            expected: #"{"log": "sent\n[REDACTED]\t\u00e9[REDACTED]\u0021 \u0041abcd1234 abcd1234\u005f"}"#
        ),
        EchoCase(
            name: "a percent-encoded secret in text",
            url: "https://api.example.com/items?token=abc%2Fdef%2Bghi",
            response: "next=abc%2Fdef%2Bghi&raw=abc/def+ghi&x=abc%2Fdef%2Bghix",
            expected: "next=%5BREDACTED%5D&raw=[REDACTED]&x=abc%2Fdef%2Bghix",
            responseType: "text/plain"
        ),
        EchoCase(
            name: "a secret with quotes inside a JSON string",
            headers: [("Authorization", "Basic a\"b\\c1")],
            response: #"{"seen": "a\"b\\c1"}"#,
            expected: #"{"seen": "[REDACTED]"}"#
        ),
    ]

    @Test(arguments: echoes)
    func aRequestSecretIsReplacedOnlyAsAWholeToken(_ example: EchoCase) throws {
        let request = exchange(url: example.url, headers: example.headers, body: example.requestBody, response: example.response, responseType: example.responseType)
        let shown = Redaction.standard.apply(to: request)
        let body = try #require(shown.response?.body)
        #expect(String(decoding: body, as: UTF8.self) == example.expected)
        if example.responseType == "application/json" {
            #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: body) }
        }
    }

    @Test func responseHeadersKeepWordsThatContainASecret() {
        var request = exchange(url: "https://api.example.com/items?key=date", response: "{}")
        request.response = RecordedResponse(
            outcome: .response(status: 200),
            headers: HTTPFields(sortedDictionary: ["X-Updated-Date": "today", "X-Echo": "date", "Last-Modified-Date": "x-date-y"]),
            body: Data(),
            duration: 0
        )
        let headers = Redaction.standard.apply(to: request).response?.headers ?? [:]
        #expect(headers["X-Updated-Date"] == "today")
        #expect(headers["X-Echo"] == "[REDACTED]")
        #expect(headers["Last-Modified-Date"] == "x-date-y")
    }

    @Test func errorTextKeepsItsCodeAndHidesTheQuotedURLsSecrets() {
        var request = exchange(url: "http://127.0.0.1:9/x?token=abc&page=1", headers: [("Authorization", "Basic 1004")])
        let message = #"Error Domain=NSURLErrorDomain Code=-1004 "Could not connect" UserInfo={NSErrorFailingURLStringKey=http://127.0.0.1:9/x?token=abc&page=1, code=1004}"#
        request.response = RecordedResponse(outcome: .failure(.stubError(message)), headers: [:], body: Data(), duration: 0)
        let shown = Redaction.standard.apply(to: request)
        #expect(
            shown.response?.error
                == #"Error Domain=NSURLErrorDomain Code=-1004 "Could not connect" UserInfo={NSErrorFailingURLStringKey=http://127.0.0.1:9/x?token=%5BREDACTED%5D&page=1, code=[REDACTED]}"#
        )
    }

    @Test func aLogLineAboutAFailureReadsItsErrorLikeTheJournal() {
        let message = "Code=-1004 url=https://h.example/x?code=abc&page=1 password=pw1"
        #expect(Redaction.standard.errorText(message, secrets: ["1004"]) == "Code=-1004 url=https://h.example/x?code=%5BREDACTED%5D&page=1 password=[REDACTED]")
    }

    @Test func messageTextReplacesASecretOnlyAsAToken() {
        let text = Redaction.standard.text("updated_date=1 x-date (date) dates", secrets: ["date"])
        #expect(text == "updated_date=1 x-date ([REDACTED]) dates")
    }

    // MARK: URL-valued headers

    @Test(arguments: ["Referer", "Origin", "X-Return-To"])
    func aURLValuedRequestHeaderIsRedactedAndItsSecretsGoEverywhere(_ header: String) {
        let request = exchange(
            headers: [(header, "https://app.example.com/cb?state=1&access_token=REFTOKEN1#id_token=REFFRAGMENT")],
            response: #"{"echo": "REFTOKEN1", "f": "REFFRAGMENT"}"#
        )
        let shown = Redaction.standard.apply(to: request)
        #expect(shown.header(header) == "https://app.example.com/cb?state=1&access_token=%5BREDACTED%5D#id_token=%5BREDACTED%5D")
        #expect(shown.response?.body == Data(#"{"echo": "[REDACTED]", "f": "[REDACTED]"}"#.utf8))
        #expect(Set(Redaction.standard.secretValues(in: request)).isSuperset(of: ["REFTOKEN1", "REFFRAGMENT"]))
    }

    @Test(arguments: ["Location", "Content-Location", "X-Next"])
    func aURLValuedResponseHeaderIsRedacted(_ header: String) {
        var request = exchange()
        request.response = RecordedResponse(
            outcome: .response(status: 302),
            headers: HTTPFields(sortedDictionary: [header: "https://u:pw@app.example.com/cb?code=c0de&state=2"]),
            body: Data(),
            duration: 0
        )
        let shown = Redaction.standard.apply(to: request)
        #expect(shown.response?.headers[header] == "https://u:%5BREDACTED%5D@app.example.com/cb?code=%5BREDACTED%5D&state=2")
    }

    @Test(arguments: [
        (
            "https://u:PASSWORDSECRET@h.example/p?token=QUERYSECRET#access_token=FRAGMENTSECRET",
            "https://u:%5BREDACTED%5D@h.example/p?token=%5BREDACTED%5D#access_token=%5BREDACTED%5D"
        ),
        ("https://h.example/p?page=2&Access-Token=a%20b&sig=&x", "https://h.example/p?page=2&Access-Token=%5BREDACTED%5D&sig=%5BREDACTED%5D&x"),
        ("https://h.example/cb#state=1&id_token=t?x", "https://h.example/cb#state=1&id_token=%5BREDACTED%5D"),
        ("/relative?code=1#frag", "/relative?code=%5BREDACTED%5D#frag"),
        ("https://h.example/p?page=2", "https://h.example/p?page=2"),
    ])
    func aURLLosesItsPasswordAndSecretItems(_ url: String, _ expected: String) {
        #expect(Redaction.standard.url(url) == expected)
        #expect(Redaction.none.url(url) == url)
    }

    @Test func aPlainRequestHeaderIsNotReadAsAURL() {
        let shown = Redaction.standard.apply(to: exchange(headers: [("X-Note", "see ?token=abc")]))
        #expect(shown.header("X-Note") == "see ?token=abc")
    }

    // MARK: Byte fidelity

    static let untouched: [BodyCase] = [
        BodyCase(name: "key order", input: #"{"b": 1, "a": 2}"#, expected: ""),
        BodyCase(name: "odd spacing", input: "{ \"a\" :\t[ 1 ,2 ] ,\r\n \"b\":{}\n}  \n", expected: ""),
        BodyCase(name: "unicode escapes", input: #"{"n\u00e9": "caf\u00e9 \ud83d\ude00 \/ \"q\""}"#, expected: ""),
        BodyCase(name: "floats", input: #"[0.1, 3.0e0, -0.0, 1E+2, 2.50]"#, expected: ""),
        BodyCase(name: "integers beyond 2^53", input: #"{"id": 9007199254740993, "big": -123456789012345678901234567890}"#, expected: ""),
        BodyCase(name: "NDJSON", input: "{\"a\":1}\n{\"b\":[2]}\r\n\n{\"c\":\"3\"}\n", expected: "", contentType: "application/x-ndjson"),
        BodyCase(name: "byte-order mark", input: "\u{FEFF}{\"a\": 1}", expected: ""),
        BodyCase(name: "raw non-ASCII", input: #"{"name": "Zoë – 東京"}"#, expected: ""),
        BodyCase(name: "form", input: "a=1&b=two+words&c=%2F", expected: "", contentType: "application/x-www-form-urlencoded"),
        BodyCase(name: "text", input: "hello: world\nkey value", expected: "", contentType: "text/plain"),
        BodyCase(name: "invalid JSON", input: #"{"a": 1,,}"#, expected: ""),
    ]

    @Test(arguments: untouched)
    func aBodyWithoutSecretsKeepsEveryByte(_ example: BodyCase) {
        let data = Data(example.input.utf8)
        #expect(Redaction.standard.body(data, contentType: example.contentType) == data)
        #expect(Redaction.standard.responseBody(data, contentType: example.contentType) == data)
        let shown = Redaction.standard.apply(
            to: exchange(method: "POST", headers: [("Content-Type", example.contentType ?? "")], body: example.input, response: example.input, responseType: example.contentType)
        )
        #expect(shown.body == data)
        #expect(shown.response?.body == data)
    }

    @Test func aBodyWithoutSecretsIsTheSameBytesEvenWhenNotUTF8() {
        let data = Data([0xFF, 0xFE, 0x7B, 0x00, 0x22])
        #expect(Redaction.standard.body(data, contentType: "application/json") == data)
    }

    static let requestBodies: [BodyCase] = [
        BodyCase(
            name: "odd spacing",
            input: "{ \"password\" :  \"hunter2\" ,\n  \"b\":1 }",
            expected: "{ \"password\" :  \"[REDACTED]\" ,\n  \"b\":1 }"
        ),
        BodyCase(name: "escaped key", input: #"{"pass\u0077ord": "x", "p\u0061ge": 2}"#, expected: #"{"pass\u0077ord": "[REDACTED]", "p\u0061ge": 2}"#),
        BodyCase(name: "escaped value", input: #"{"token": "a\"b\u00e9\\", "z": "\""}"#, expected: #"{"token": "[REDACTED]", "z": "\""}"#),
        BodyCase(
            name: "nested secret object",
            input: #"{"credentials": {"user": "a", "password": "b", "list": [1, {"x": 2}]}, "n": 1.50}"#,
            expected: #"{"credentials": "[REDACTED]", "n": 1.50}"#
        ),
        BodyCase(name: "secret array", input: #"{"token": [1, "two"] , "keep": [3.0e0]}"#, expected: #"{"token": "[REDACTED]" , "keep": [3.0e0]}"#),
        BodyCase(
            name: "numbers and booleans",
            input: #"{"pin": 1234, "otp": -0.0, "cvv": 9007199254740993, "secret": true, "x": 0.1}"#,
            expected: #"{"pin": "[REDACTED]", "otp": "[REDACTED]", "cvv": "[REDACTED]", "secret": "[REDACTED]", "x": 0.1}"#
        ),
        BodyCase(name: "null stays", input: #"{"password": null, "token": ""}"#, expected: #"{"password": null, "token": ""}"#),
        BodyCase(
            name: "arrays of objects",
            input: #"[{"token": "a", "id": 1}, {"id": 2, "token": "b"}]"#,
            expected: #"[{"token": "[REDACTED]", "id": 1}, {"id": 2, "token": "[REDACTED]"}]"#
        ),
        BodyCase(
            name: "NDJSON",
            input: "{\"a\":1}\n{\"token\":\"x\"}\r\n{\"b\": [ ]}\n",
            expected: "{\"a\":1}\n{\"token\":\"[REDACTED]\"}\r\n{\"b\": [ ]}\n",
            contentType: "application/x-ndjson"
        ),
        BodyCase(name: "byte-order mark", input: "\u{FEFF}{\"password\": \"x\", \"b\": 2}", expected: "\u{FEFF}{\"password\": \"[REDACTED]\", \"b\": 2}"),
        BodyCase(
            name: "GraphQL string",
            input: #"{"query": "mutation { login(user: \"alice\", password: \"hunter2\") { token } }", "variables": {}}"#,
            expected: #"{"query": "mutation { login(user: \"alice\", password: \"[REDACTED]\") { token } }", "variables": {}}"#
        ),
        BodyCase(
            name: "GraphQL string with a unicode escape",
            input: #"{"query": "login(password: \"h\u00fcnter\") \u2014 ok"}"#,
            expected: #"{"query": "login(password: \"[REDACTED]\") \u2014 ok"}"#
        ),
        BodyCase(name: "a secret key's value, not the key", input: #"{"note": "token", "token": "token"}"#, expected: #"{"note": "token", "token": "[REDACTED]"}"#),
        BodyCase(name: "invalid JSON falls back to the text pass", input: #"{"password": "x", oops"#, expected: #"{"password": "[REDACTED]", oops"#),
        BodyCase(
            name: "form",
            input: "user=alice&passenger=no&pass+word=p%40ss&token=&page=2",
            expected: "user=alice&passenger=no&pass+word=%5BREDACTED%5D&token=&page=2",
            contentType: "application/x-www-form-urlencoded"
        ),
        BodyCase(
            name: "multipart",
            input: "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nalice\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nMULTI\r\nLINE\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"token\"\r\n\r\nkey: v\r\n--XyZ--\r\n",
            expected: "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nalice\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n[REDACTED]\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"token\"\r\n\r\nkey: [REDACTED]\r\n--XyZ--\r\n",
            contentType: "multipart/form-data; boundary=XyZ"
        ),
        BodyCase(
            name: "GraphQL text",
            input: #"mutation { login(user: "alice", password: "hunter2") { token } }"#,
            expected: #"mutation { login(user: "alice", password: "[REDACTED]") { token } }"#,
            contentType: "application/graphql"
        ),
    ]

    @Test(arguments: requestBodies)
    func aRequestBodyChangesOnlyInItsSecretValues(_ example: BodyCase) {
        let redacted = Redaction.standard.body(Data(example.input.utf8), contentType: example.contentType)
        #expect(String(decoding: redacted, as: UTF8.self) == example.expected)
    }

    @Test func aBinaryMultipartPartIsKeptAndASecretPartHidden() {
        var body = Data("--B\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".utf8)
        body.append(contentsOf: [0xFF, 0x00, 0xFE])
        body.append(Data("\r\n--B\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nt0k\r\n--B--\r\n".utf8))
        let redacted = Redaction.standard.body(body, contentType: "multipart/form-data; boundary=B")
        var expected = Data("--B\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".utf8)
        expected.append(contentsOf: [0xFF, 0x00, 0xFE])
        expected.append(Data("\r\n--B\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n[REDACTED]\r\n--B--\r\n".utf8))
        #expect(redacted == expected)
    }

    @Test func theReplacementIsEscapedInJSONAndStable() {
        var redaction = Redaction.standard
        redaction.replacement = #"<"hidden">"#
        let body = Data(#"{"password": "x", "pin": 1}"#.utf8)
        let once = redaction.body(body, contentType: "application/json")
        #expect(String(decoding: once, as: UTF8.self) == #"{"password": "<\"hidden\">", "pin": "<\"hidden\">"}"#)
        #expect(redaction.body(body, contentType: "application/json") == once)
        #expect(redaction.body(once, contentType: "application/json") == once)
    }

    @Test func theSecretValuesOfABodyAreItsSecretFieldsRawAndDecoded() {
        let request = exchange(
            method: "POST",
            headers: [("Content-Type", "application/json")],
            body: #"{"password": "p\u0040ss1", "pin": 98765, "otp": true, "query": "login(token: \"TEXTTOKEN\")", "other": "visible"}"#
        )
        let values = Set(Redaction.standard.secretValues(in: request))
        #expect(values.isSuperset(of: ["p@ss1", "98765", "TEXTTOKEN"]))
        #expect(!values.contains("visible") && !values.contains("true"))
    }

    // MARK: Policies and replay

    @Test func noneHidesNothing() {
        let request = exchange(
            url: "https://u:pw@api.example.com/x?token=abcd",
            headers: [("Authorization", "Bearer abcd1234"), ("Content-Type", "application/json")],
            body: #"{"password": "abcd1234"}"#,
            response: #"{"access_token": "abcd1234"}"#
        )
        let shown = Redaction.none.apply(to: request)
        #expect(shown.url == request.url && shown.headers == request.headers && shown.body == request.body)
        #expect(shown.response?.body == request.response?.body)
    }

    @Test func aHiddenNumberStillMatchesOnReplay() throws {
        let recorded = Redaction.standard.apply(
            to: exchange(method: "POST", headers: [("Content-Type", "application/json")], body: #"{"pin": 1234, "user": "a", "otp": {"v": 1}}"#)
        )
        #expect(recorded.bodyText == #"{"pin": "[REDACTED]", "user": "a", "otp": "[REDACTED]"}"#)
        let comparison = EntryComparison(recorded, matching: Cassette.Matching(), placeholders: Redaction.standard.placeholders)
        let again = exchange(method: "POST", headers: [("Content-Type", "application/json")], body: #"{"user":"a","pin":5678,"otp":{"v":2}}"#)
        #expect(comparison.differences(from: again).isEmpty)
        let other = exchange(method: "POST", headers: [("Content-Type", "application/json")], body: #"{"user":"b","pin":5678,"otp":{"v":2}}"#)
        #expect(!comparison.differences(from: other).isEmpty)
    }

    // MARK: Cost

    @Test func deepNestingIsReadWithoutRecursion() {
        let depth = 200_000
        let body = Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        #expect(Redaction.standard.body(body, contentType: "application/json") == body)
        let secret = Data((#"{"token": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}").utf8)
        #expect(Redaction.standard.body(secret, contentType: "application/json") == Data(#"{"token": "[REDACTED]"}"#.utf8))
    }

    @Test func aLargeBodyIsRedactedInOnePass() {
        // About 10 MB: 100,000 records, each with a secret, an echoed token and plain text.
        let record = #"{"id": 123456, "password": "pw", "note": "Bearer abcd1234 and more text here", "list": [1.5, 2, 3], "name": "updated_date"},"#
        let count = 100_000
        let body = Data(("[" + String(repeating: record, count: count) + #"{"end": true}]"#).utf8)
        let redacted = Redaction.standard.apply(
            to: exchange(headers: [("Authorization", "Bearer abcd1234"), ("X-Api-Key", "date")], response: String(decoding: body, as: UTF8.self))
        ).response?.body ?? Data()
        let expectedRecord = #"{"id": 123456, "password": "[REDACTED]", "note": "Bearer [REDACTED] and more text here", "list": [1.5, 2, 3], "name": "updated_date"},"#
        let expected = Data(("[" + String(repeating: expectedRecord, count: count) + #"{"end": true}]"#).utf8)
        // Compared outside #expect: a failure would otherwise diff two 10 MB collections.
        let same = redacted == expected
        #expect(same, "\(redacted.count) vs \(expected.count) bytes, first difference at \(same ? -1 : zip(redacted, expected).prefix { $0 == $1 }.count)")
    }

    // MARK: Streams

    /// A stream whose parts cut a secret in two: what the parts are, what they become.
    struct StreamCase: Sendable, CustomTestStringConvertible {
        let name: String
        var headers: [(String, String)] = []
        let parts: [String]
        let expected: [String]
        var contentType = "text/event-stream"

        var testDescription: String { name }
    }

    static let splitSecrets: [StreamCase] = [
        StreamCase(
            name: "a request's token, half in each event part",
            headers: [("Authorization", "Bearer abcd1234")],
            parts: [#"data: {"echo": "abcd"#, "1234\"}\n\n"],
            expected: [#"data: {"echo": "[REDACTED]"#, "\"}\n\n"]
        ),
        StreamCase(
            name: "a secret-named JSON field's value, half in each NDJSON part",
            parts: [#"{"access_token": "eyJh"#, #"bGci", "n": 1}"# + "\n", #"{"n": 2}"# + "\n"],
            expected: [#"{"access_token": "[REDACTED]"#, #"", "n": 1}"# + "\n", #"{"n": 2}"# + "\n"],
            contentType: "application/x-ndjson"
        ),
        StreamCase(
            name: "a secret-named field in an event, its name in one part and its value in the next",
            parts: ["data: access_", "token=gho_16C7e42F", "292c scope=repo\n\n"],
            expected: ["data: access_", "token=[REDACTED]", " scope=repo\n\n"]
        ),
        StreamCase(
            name: "a token across three parts",
            headers: [("X-Api-Key", "abcd1234")],
            parts: ["seen abc", "d12", "34 twice: abcd1234\n"],
            expected: ["seen [REDACTED]", "", " twice: [REDACTED]\n"],
            contentType: "text/plain"
        ),
    ]

    @Test(arguments: splitSecrets)
    func aSecretSplitAcrossStreamPartsIsHiddenInThePartsAndTheBody(_ example: StreamCase) throws {
        let delays = example.parts.indices.map { Double($0) * 0.25 }
        var request = exchange(headers: example.headers, response: "")
        let stream = ResponseStream(kind: ResponseStream.Kind(contentType: example.contentType), parts: zip(example.parts, delays).map { StreamPart($0, after: $1) })
        request.response = RecordedResponse(
            outcome: .response(status: 200),
            headers: HTTPFields(sortedDictionary: ["Content-Type": example.contentType]),
            body: Data(),
            duration: 0,
            stream: stream
        )
        let shown = try #require(Redaction.standard.apply(to: request).response)
        let parts = try #require(shown.stream?.parts)
        #expect(parts.map { String(decoding: $0.bytes, as: UTF8.self) } == example.expected)
        #expect(parts.map(\.delay) == delays)
        // The recording's `content.text` (the parts one after the other) is the whole body redacted.
        var whole = request
        whole.response = RecordedResponse(
            outcome: .response(status: 200),
            headers: HTTPFields(sortedDictionary: ["Content-Type": example.contentType]),
            body: Data(example.parts.joined().utf8),
            duration: 0
        )
        #expect(shown.body == Redaction.standard.apply(to: whole).response?.body)
        #expect(String(decoding: shown.body, as: UTF8.self) == example.expected.joined())
    }

    // MARK: Helpers

    /// A recorded exchange; the response is JSON (or `responseType`) with status 200.
    private func exchange(
        url: String = "https://api.example.com/items",
        method: String = "GET",
        headers: [(String, String)] = [],
        body: String? = nil,
        response: String? = nil,
        responseType: String? = "application/json"
    ) -> RecordedRequest {
        var incoming = IncomingRequest(method: method, absoluteURL: url)!
        incoming.headerFields = .list(headers.map { (name: $0.0, value: $0.1) })
        incoming.body = body.map { Data($0.utf8) }
        var recorded = RecordedRequest(sequence: 1, request: incoming, date: Date(timeIntervalSince1970: 0))
        if let response {
            recorded.response = RecordedResponse(
                outcome: .response(status: 200),
                headers: HTTPFields(sortedDictionary: responseType.map { ["Content-Type": $0] } ?? [:]),
                body: Data(response.utf8),
                duration: 0
            )
        }
        return recorded
    }
}
