import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOHTTP1
import ProcessSupport
import Testing

/// WireMock's date-time matchers (`before`, `after`, `equalToDateTime`), `clientIp` and
/// `multipartPatterns`, served by `airlock serve` and `MockServer` from mapping folders and
/// asked over a loopback socket: requests that match and requests that do not.
struct WireMockBuiltInMatcherTests {
    // MARK: Side by side with WireMock

    /// A probe of `Tests/Fixtures/WireMockBuiltIns/side-by-side-probes.json`: a request and
    /// WireMock 2.35.1's answer to it (`Benchmarks/wiremock-side-by-side.py` sends the same
    /// requests to WireMock and checks the file).
    struct Probe: Decodable, CustomStringConvertible {
        let method: String
        let target: String
        let headers: [String: String]
        let body: String?
        let status: Int
        let answer: String?

        var description: String { "\(method) \(target) \(headers)" }
    }

    static let builtIns = Repository.fixture("WireMockBuiltIns")

    @Test func airlockServeAnswersTheBuiltInProbesAsWireMockDid() async throws {
        struct File: Decodable { let probes: [Probe] }
        let probes = try JSONDecoder().decode(File.self, from: Data(contentsOf: Self.builtIns.appendingPathComponent("side-by-side-probes.json"))).probes
        #expect(probes.count >= 40)
        #expect(probes.contains { $0.status == 200 } && probes.contains { $0.status == 404 })
        let airlock = try LaunchedAirlock(["serve", "--wiremock", Self.builtIns.path, "--port", "0", "--quiet"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        try await withClient { client in
            for probe in probes {
                let answer = try await send(client, base + probe.target, method: HTTPMethod(rawValue: probe.method), headers: probe.headers.map { ($0.key, $0.value) }, body: probe.body)
                #expect(answer.status == probe.status, "\(probe): \(answer.text)")
                if let expected = probe.answer { #expect(answer.text == expected, "\(probe)") }
            }
        }
    }

    // MARK: Date-times

    /// An ISO 8601 date-time with an offset, `days` from now.
    static func iso(daysFromNow days: Double) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date().addingTimeInterval(days * 86_400))
    }

    @Test func nowExpressionsAreTakenWhenEachRequestIsMatched() async throws {
        let folder = try WireMockFolder(mappings: [
            "now.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/soon", "headers": {"X-Date": {"after": "now +3 days"}}}, "response": {"body": "later than in three days"}},
                  {"request": {"urlPath": "/recent", "headers": {"X-Date": {"after": "-1 hours"}}}, "response": {"body": "in the last hour or later"}},
                  {"request": {"urlPath": "/window", "headers": {"X-Date": {"and": [{"after": "NOW -2 days"}, {"before": "now", "expectedOffset": 2, "expectedOffsetUnit": "days"}]}}}, "response": {"body": "within two days"}},
                  {"request": {"urlPath": "/next-month", "headers": {"X-Date": {"after": "now +1 months", "truncateExpected": "first day of month", "applyTruncationLast": true}}}, "response": {"body": "after the start of next month"}}
                ]}
                """#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        let cases: [(path: String, date: String, status: Int)] = [
            ("/soon", Self.iso(daysFromNow: 5), 200),
            ("/soon", Self.iso(daysFromNow: 1), 404),
            ("/recent", Self.iso(daysFromNow: 0), 200),
            ("/recent", Self.iso(daysFromNow: -1), 404),
            ("/window", Self.iso(daysFromNow: 1), 200),
            ("/window", Self.iso(daysFromNow: -1), 200),
            ("/window", Self.iso(daysFromNow: 3), 404),
            ("/window", Self.iso(daysFromNow: -3), 404),
            ("/next-month", Self.iso(daysFromNow: 70), 200),
            ("/next-month", Self.iso(daysFromNow: -1), 404),
        ]
        try await withServer(mock) { server in
            try await withClient { client in
                for item in cases {
                    let answer = try await send(client, server.baseURL.absoluteString + item.path, headers: [("X-Date", item.date)])
                    #expect(answer.status == item.status, "\(item): \(answer.text)")
                }
            }
        }
    }

    @Test func formatsTruncationsAndWireMock3sLocalForms() async throws {
        let folder = try WireMockFolder(mappings: [
            "dates.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/month", "headers": {"X-Date": {"equalToDateTime": "2021-06"}}}, "response": {"body": "june 2021"}},
                  {"request": {"urlPath": "/hour", "headers": {"X-Date": {"equalToDateTime": "2021-06-24T10:00:00Z", "truncateActual": "first minute of hour"}}}, "response": {"body": "that hour"}},
                  {"request": {"urlPath": "/pattern", "headers": {"X-Date": {"before": "2021-06-24T12:00:00Z", "actualFormat": "EEE, d MMM yyyy h:mm a XXX"}}}, "response": {"body": "pattern"}},
                  {"request": {"urlPath": "/epoch", "headers": {"X-Date": {"equalToDateTime": "2021-06-24T10:00:00.250Z", "actualFormat": "epoch"}}}, "response": {"body": "epoch"}},
                  {"request": {"urlPath": "/optional", "headers": {"X-Date": {"equalToDateTime": "2021-06-24T00:00:00", "actualFormat": "yyyy-MM-dd['T'HH:mm]"}}}, "response": {"body": "optional"}}
                ]}
                """#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        let cases: [(path: String, date: String, status: Int)] = [
            ("/month", "2021-06-01T00:00:00", 200),
            ("/month", "2021-06", 200),
            ("/month", "2021-06-02", 404),
            ("/hour", "2021-06-24T10:59:59.999Z", 200),
            ("/hour", "2021-06-24T12:30:00+02:00", 200),
            ("/hour", "2021-06-24T11:00:00Z", 404),
            ("/pattern", "Thu, 24 Jun 2021 11:59 AM Z", 200),
            ("/pattern", "Thu, 24 Jun 2021 1:00 PM +02:00", 200),
            ("/pattern", "Thu, 24 Jun 2021 1:00 PM Z", 404),
            // The day of the week must be the date's.
            ("/pattern", "Fri, 24 Jun 2021 11:59 AM Z", 404),
            ("/epoch", "1624528800250", 200),
            ("/epoch", "1624528800000", 404),
            ("/epoch", "yesterday", 404),
            ("/optional", "2021-06-24", 200),
            ("/optional", "2021-06-24T00:00", 200),
            ("/optional", "2021-06-24T00:01", 404),
        ]
        try await withServer(mock) { server in
            try await withClient { client in
                for item in cases {
                    let answer = try await send(client, server.baseURL.absoluteString + item.path, headers: [("X-Date", item.date)])
                    #expect(answer.status == item.status, "\(item): \(answer.text)")
                }
                // Not sent: no date to compare.
                #expect(try await send(client, server.baseURL.absoluteString + "/month").status == 404)
            }
        }
    }

    @Test(arguments: [
        (#"{"before": "now +3 weeks"}"#, #"whose unit "weeks" is not one of WireMock's; expected a unit: "seconds", "minutes", "hours", "days", "months", "years""#),
        (#"{"after": "yesterday"}"#, #"is "yesterday", which is not a date-time WireMock reads"#),
        (#"{"after": "now", "truncateExpected": "first week of month"}"#, #"truncateExpected: is "first week of month", which is not one of WireMock's truncations"#),
        (#"{"equalToDateTime": "2021-06-24", "actualFormat": "dd/MM/yyyy G"}"#, #"actualFormat: is the date-time format "dd/MM/yyyy G", which has the pattern letter "G""#),
        (#"{"equalToDateTime": "2021-06-24", "actualFormat": "dd/MM/yyyy 'T"}"#, "which has a quote (') that is not closed"),
        (#"{"after": "now", "expectedOffset": 1, "expectedOffsetUnit": "fortnights"}"#, #"expectedOffsetUnit: is "fortnights", which is not one of WireMock's units"#),
        (#"{"after": "now", "actualFormats": "unix"}"#, #"actualFormats"#),
    ])
    func aWrongDateTimeMatcherIsRefusedByItsPath(matcher: String, expected: String) throws {
        let folder = try WireMockFolder(mappings: ["m.json": #"{"request": {"urlPath": "/d", "headers": {"X-Date": \#(matcher)}}, "response": {}}"#])
        defer { folder.remove() }
        let error = #expect(throws: StubFileError.self) { try WireMockMappings(directory: folder.root) }
        let message = error?.description ?? ""
        #expect(message.contains("request.headers.X-Date"), "\(message)")
        #expect(message.contains(expected), "\(message)")
    }

    // MARK: Through the admin API

    @Test func theAdminAPIAcceptsTheBuiltInsItRefusedWith422() async throws {
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let created = try await send(client, base + "/__admin/mappings", method: .POST, headers: [("Content-Type", "application/json")], body: #"""
                    {"request": {"method": "POST", "urlPath": "/built-ins", "clientIp": {"equalTo": "127.0.0.1"},
                                 "headers": {"X-Date": {"after": "now -1 days", "truncateExpected": "first hour of day"}},
                                 "multipartPatterns": [{"matchingType": "ALL", "bodyPatterns": [{"contains": "ok"}]}]},
                     "response": {"status": 200, "body": "all three"}}
                    """#)
                #expect(created.status == 201, "\(created.text)")
                let form = [("Content-Type", "multipart/form-data; boundary=b"), ("X-Date", Self.iso(daysFromNow: 0))]
                let body = Self.multipart("b", [(["Content-Disposition: form-data; name=\"a\""], "ok")])
                #expect(try await send(client, base + "/built-ins", method: .POST, headers: form, body: body).text == "all three")
                let yesterday = [("Content-Type", "multipart/form-data; boundary=b"), ("X-Date", Self.iso(daysFromNow: -3))]
                #expect(try await send(client, base + "/built-ins", method: .POST, headers: yesterday, body: body).status == 404)
                let notOK = Self.multipart("b", [(["Content-Disposition: form-data; name=\"a\""], "ok"), (["Content-Disposition: form-data; name=\"b\""], "no")])
                #expect(try await send(client, base + "/built-ins", method: .POST, headers: form, body: notOK).status == 404)
                #expect(try await send(client, base + "/built-ins", method: .POST, headers: form + [("X-Forwarded-For", "10.0.0.1")], body: body).status == 404)
                let refused = try await send(client, base + "/__admin/mappings", method: .POST, headers: [("Content-Type", "application/json")], body: #"{"request": {"headers": {"X-Date": {"before": "soon"}}}, "response": {}}"#)
                #expect(refused.status == 422 && refused.text.contains("request.headers.X-Date.before"), "\(refused.text)")
            }
        }
    }

    // MARK: clientIp

    @Test func clientIpMatchesTheConnectionsAddressOrXForwardedFor() async throws {
        let folder = try WireMockFolder(mappings: [
            "ip.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/local", "clientIp": {"equalTo": "127.0.0.1"}}, "response": {"body": "from this machine"}},
                  {"request": {"urlPath": "/office", "clientIp": {"matches": "10\\.1\\.[0-9]+\\.[0-9]+"}}, "response": {"body": "from the office"}},
                  {"request": {"urlPath": "/elsewhere", "clientIp": {"not": {"equalTo": "127.0.0.1"}}}, "response": {"body": "from elsewhere"}}
                ]}
                """#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        try await withServer(mock) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                #expect(try await send(client, base + "/local").text == "from this machine")
                #expect(try await send(client, base + "/local", headers: [("X-Forwarded-For", "10.1.2.3")]).status == 404)
                #expect(try await send(client, base + "/office", headers: [("X-Forwarded-For", "10.1.2.3")]).text == "from the office")
                #expect(try await send(client, base + "/office").status == 404)
                #expect(try await send(client, base + "/office", headers: [("X-Forwarded-For", "10.2.2.3")]).status == 404)
                #expect(try await send(client, base + "/elsewhere").status == 404)
                #expect(try await send(client, base + "/elsewhere", headers: [("X-Forwarded-For", "192.0.2.7")]).text == "from elsewhere")
                // An empty X-Forwarded-For is not an address: the connection's is used.
                #expect(try await send(client, base + "/local", headers: [("X-Forwarded-For", "")]).text == "from this machine")
                // WireMock's request journal gives the connection's address.
                let journal = try await send(client, base + "/__admin/requests").text
                let requests = (try JSONSerialization.jsonObject(with: Data(journal.utf8)) as? [String: Any])?["requests"] as? [[String: Any]]
                let addresses = Set((requests ?? []).compactMap { ($0["request"] as? [String: Any])?["clientIp"] as? String })
                #expect(addresses == ["127.0.0.1"], "\(journal.prefix(400))")
            }
        }
    }

    // MARK: Multipart

    static func multipart(_ boundary: String, _ parts: [(headers: [String], body: String)]) -> String {
        parts.map { "--\(boundary)\r\n" + $0.headers.map { $0 + "\r\n" }.joined() + "\r\n" + $0.body + "\r\n" }.joined() + "--\(boundary)--\r\n"
    }

    @Test func multipartPatternsReadPartsAsWireMocksFileUploadDoes() async throws {
        let folder = try WireMockFolder(mappings: [
            "parts.json": #"""
                {"mappings": [
                  {"request": {"method": "POST", "urlPath": "/upload", "multipartPatterns": [{"name": "file", "fileName": "report.csv", "headers": {"Content-Type": {"equalTo": "text/csv"}}, "bodyPatterns": [{"contains": "total"}]}]}, "response": {"body": "report"}},
                  {"request": {"method": "POST", "urlPath": "/json-part", "multipartPatterns": [{"matchingType": "ANY", "bodyPatterns": [{"matchesJsonPath": "$.id"}]}]}, "response": {"body": "json"}},
                  {"request": {"method": "POST", "urlPath": "/every", "multipartPatterns": [{"matchingType": "ALL", "headers": {"Content-Disposition": {"contains": "form-data"}}}]}, "response": {"body": "every"}}
                ]}
                """#,
        ])
        defer { folder.remove() }
        let mock = HTTPMock()
        #expect(mock.registerStubs(try WireMockMappings(directory: folder.root)).isEmpty)
        let b = "XyZ"
        let form = "multipart/form-data; boundary=\(b)"
        let report = ["Content-Disposition: form-data; name=\"file\"; filename=\"report.csv\"", "Content-Type: text/csv"]
        let cases: [(path: String, contentType: String, body: String, status: Int)] = [
            ("/upload", form, Self.multipart(b, [(report, "a,b\ntotal,3")]), 200),
            // WireMock 3 compares the file name.
            ("/upload", form, Self.multipart(b, [(["Content-Disposition: form-data; name=\"file\"; filename=\"other.csv\"", "Content-Type: text/csv"], "total")]), 404),
            // Header names ignore case; `name` is only a label.
            ("/upload", form, Self.multipart(b, [(["content-disposition: form-data; name=\"other\"; filename=\"report.csv\"", "CONTENT-TYPE: text/csv"], "total")]), 200),
            ("/upload", form, Self.multipart(b, [(report, "no sum")]), 404),
            // Files inside a multipart/mixed part count as parts.
            (
                "/upload", form,
                Self.multipart(b, [(["Content-Disposition: form-data; name=\"files\"", "Content-Type: multipart/mixed; boundary=inner"], Self.multipart("inner", [(["Content-Disposition: attachment; filename=\"report.csv\"", "Content-Type: text/csv"], "total")]))]),
                200
            ),
            ("/upload", "text/csv", "total", 404),
            ("/upload", "multipart/form-data", Self.multipart(b, [(report, "total")]), 404),
            ("/json-part", form, Self.multipart(b, [(["Content-Disposition: form-data; name=\"meta\""], #"{"id": 7}"#)]), 200),
            ("/json-part", form, Self.multipart(b, [(["Content-Disposition: form-data; name=\"meta\""], #"{"name": 7}"#)]), 404),
            // Parts without a form-data name are not read: nothing is left to match.
            ("/json-part", form, Self.multipart(b, [(["Content-Type: application/json"], #"{"id": 7}"#)]), 404),
            ("/every", form, Self.multipart(b, [(["Content-Disposition: form-data; name=\"a\""], "1"), (["Content-Disposition: form-data; name=\"b\""], "2")]), 200),
            ("/every", form, Self.multipart(b, [(["Content-Disposition: form-data; name=\"a\""], "1")]) + "epilogue", 200),
            // Cut short: the part never ends.
            ("/every", form, "--\(b)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1", 404),
        ]
        try await withServer(mock) { server in
            try await withClient { client in
                for item in cases {
                    let answer = try await send(client, server.baseURL.absoluteString + item.path, method: .POST, headers: [("Content-Type", item.contentType)], body: item.body)
                    #expect(answer.status == item.status, "\(item.path) \(item.body.debugDescription.prefix(120)): \(answer.text)")
                }
            }
        }
    }

    @Test(arguments: [
        (#"[{"matchingType": "SOME"}]"#, #"multipartPatterns[0].matchingType: is "SOME"; expected "ANY" (some part matches) or "ALL" (every part matches)"#),
        (#"[{"header": {}}]"#, "multipartPatterns[0].header"),
        (#"{"matchingType": "ANY"}"#, "multipartPatterns:"),
    ])
    func aWrongMultipartPatternIsRefusedByItsPath(patterns: String, expected: String) throws {
        let folder = try WireMockFolder(mappings: ["m.json": #"{"request": {"urlPath": "/m", "multipartPatterns": \#(patterns)}, "response": {}}"#])
        defer { folder.remove() }
        let error = #expect(throws: StubFileError.self) { try WireMockMappings(directory: folder.root) }
        #expect(error?.description.contains("request." + expected) == true, "\(error?.description ?? "")")
    }
}
