import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct MockResponseTests {
    @Test func encodableIsJSON() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/u", host: "a.test") {
            MockResponse.encodable(["b": 2, "a": 1], status: .created, headers: ["X-Id": "7"])
        }
        let fetched = try await mock.fetch("https://a.test/u")
        #expect(fetched.status == 201)
        #expect(fetched.header("Content-Type") == "application/json")
        #expect(fetched.header("X-Id") == "7")
        #expect(fetched.text == #"{"a":1,"b":2}"#)
    }

    @Test func dictionaryIsJSON() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/e", host: "a.test") {
            MockResponse.dictionary(["error": "endpoint_not_found", "code": 404], status: .notFound, headers: ["X-Error-Source": "HTTPMock"])
        }
        let fetched = try await mock.fetch("https://a.test/e")
        #expect(fetched.status == 404)
        #expect(fetched.header("Content-Type") == "application/json")
        #expect(fetched.header("X-Error-Source") == "HTTPMock")
        let object = try #require(try JSONSerialization.jsonObject(with: fetched.data) as? [String: Any])
        #expect(object["error"] as? String == "endpoint_not_found")
        #expect(object["code"] as? Int == 404)
    }

    @Test func plaintextIsTextPlain() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/t", host: "a.test") { MockResponse.plaintext("héllo") }
        let fetched = try await mock.fetch("https://a.test/t")
        #expect(fetched.header("Content-Type") == "text/plain")
        #expect(fetched.text == "héllo")
    }

    @Test func emptyHasNoBodyAndNoContentType() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/e", host: "a.test") { MockResponse.empty(status: .noContent) }
        let fetched = try await mock.fetch("https://a.test/e")
        #expect(fetched.status == 204)
        #expect(fetched.data.isEmpty)
        #expect(fetched.header("Content-Type") == nil)
    }

    @Test func explicitContentTypeOverridesTheDefault() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/p", host: "a.test") {
            MockResponse.encodable(["a": 1], headers: ["content-type": "application/problem+json"])
        }
        let fetched = try await mock.fetch("https://a.test/p")
        #expect(fetched.header("Content-Type") == "application/problem+json")
        #expect(fetched.headers.keys.filter { $0.lowercased() == "content-type" }.count == 1)
    }

    @Test func fileFromBundle() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/data") {
                    MockResponse.file(named: "user", extension: "json", in: Bundle.module)
                }
            }
        }
        let fetched = try await mock.fetch("https://api.example.com/data")
        #expect(fetched.header("Content-Type") == "application/json")
        #expect(fetched.text == "{\"fixture\": true}\n")
    }

    @Test func fileFromURLWithItsOptions() async throws {
        let url = try #require(Bundle.module.url(forResource: "greeting", withExtension: "txt"))
        let mock = HTTPMock()
        mock.addResponses(forPath: "/g", host: "a.test") {
            MockResponse.file(url: url)
            MockResponse.file(url: url, status: .accepted, contentType: "text/x-greeting")
        }
        let first = try await mock.fetch("https://a.test/g")
        #expect(first.text == "hello from a file\n")
        #expect(first.header("Content-Type") == "text/plain")
        let second = try await mock.fetch("https://a.test/g")
        #expect(second.status == 202)
        #expect(second.header("Content-Type") == "text/x-greeting")
        #expect(second.text == "hello from a file\n")
    }

    @Test func relativeFilePathsResolveAgainstTheWorkingDirectory() async throws {
        let name = "airlock-relative-\(UUID().uuidString).csv"
        let absolute = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(name)
        try Data("a,b\n".utf8).write(to: absolute)
        defer { try? FileManager.default.removeItem(at: absolute) }

        let mock = HTTPMock()
        mock.addResponses(forPath: "/r", host: "a.test") { MockResponse.file(url: URL(fileURLWithPath: name)) }
        let fetched = try await mock.fetch("https://a.test/r")
        #expect(fetched.text == "a,b\n")
        #expect(fetched.header("Content-Type") == "text/csv")
    }

    @Test(arguments: [
        ("json", "application/json"), ("txt", "text/plain"), ("html", "text/html"), ("PNG", "image/png"),
        ("jpg", "image/jpeg"), ("svg", "image/svg+xml"), ("pdf", "application/pdf"), ("xml", "application/xml"),
        ("css", "text/css"), ("js", "text/javascript"), ("yaml", "application/yaml"), ("unknownext", "application/octet-stream"),
    ])
    func fileContentTypeIsInferredFromTheExtension(fileExtension: String, expected: String) async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-\(UUID().uuidString).\(fileExtension)")
        try Data("x".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        let mock = HTTPMock()
        mock.addResponses(forPath: "/f", host: "a.test") { MockResponse.file(url: url) }
        #expect(try await mock.fetch("https://a.test/f").header("Content-Type") == expected)
    }

    @Test(arguments: [
        (MockResponse.Status.ok, 200), (.created, 201), (.accepted, 202), (.noContent, 204), (.movedPermanently, 301),
        (.notModified, 304), (.badRequest, 400), (.unauthorized, 401), (.forbidden, 403), (.notFound, 404),
        (.conflict, 409), (.unprocessableEntity, 422), (.tooManyRequests, 429), (.internalServerError, 500),
        (.badGateway, 502), (.serviceUnavailable, 503), (.gatewayTimeout, 504), (.other(418), 418), (299, 299),
    ])
    func statusReachesTheClient(status: MockResponse.Status, code: Int) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/s", host: "a.test") { MockResponse.plaintext("s", status: status) }
        #expect(try await mock.fetch("https://a.test/s").status == code)
        #expect(status.code == code)
    }

    @Test func statusesCompareByCode() {
        #expect(MockResponse.Status.other(404) == .notFound)
        #expect(MockResponse.Status(code: 503) == .serviceUnavailable)
        #expect(Set<MockResponse.Status>([.other(200), .ok]).count == 1)
    }
}
