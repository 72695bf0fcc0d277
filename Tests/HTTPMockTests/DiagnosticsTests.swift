import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The unmatched-request message, fixed to the letter.
struct DiagnosticsTests {
    @Test func theUnmatchedRequestMessageSnapshot() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/users/*") { MockResponse.plaintext("user") }
                Path("/user/1", query: ["page": "1", "sort": "asc"], matching: .contains) { MockResponse.plaintext("page") }
                Path("/user/1", requiring: .post && .json(#"{"name":"Bob"}"#)) { MockResponse.plaintext("bob") }
            }
            Host("*.other.org") {
                Path("/user/1") { MockResponse.plaintext("other") }
            }
        }
        var request = URLRequest(url: URL(string: "https://api.example.com/user/1?page=2&token=abc")!)
        request.httpMethod = "POST"
        request.setValue("Bearer s3cr3t", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"Alice","password":"pw"}"#.utf8)
        let (data, response) = try await mock.urlSession.boundedData(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        let expected = #"""
            Airlock: no stub for POST https://api.example.com/user/1?page=2&token=%5BREDACTED%5D
              Authorization: [REDACTED]
              Content-Type: application/json
              body (32 bytes): "{"name":"Alice","password":"[REDACTED]"}"

            To stub it, register:
                mock.registerResponses {
                    Host("api.example.com") {
                        Path("/user/1", query: ["page": "2", "token": "[REDACTED]"], requiring: .method("POST")) {
                            MockResponse.plaintext("…")
                        }
                    }
                }

            Nearest registered stubs:
              1. host "api.example.com", path "/user/1", query contains page=1&sort=asc
                 host ✓  path ✓  query page=2 vs 1, query missing sort
              2. host "api.example.com", path "/user/1", requiring method POST and JSON {"name":"Bob"}
                 host ✓  path ✓  JSON body differs: "{"name":"Alice","password":"[REDACTED]"}" vs {"name":"Bob"}
              3. host "api.example.com", path "/users/*"
                 host ✓  path ✗ /users/* vs /user/1

            """#
        #expect(String(decoding: data, as: UTF8.self) == expected)
    }

    @Test func aUsedUpStubIsNamedAsSuch() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/once", host: "a.test") { MockResponse.plaintext("once") }
        _ = try await mock.fetch("https://a.test/once")
        let second = try await mock.fetch("https://a.test/once")
        #expect(second.status == 404)
        #expect(second.text.contains("  1. host \"a.test\", path \"/once\"\n     host ✓  path ✓  used up (served 1)"))
    }
}
