import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct HARTests {
    @Test func theJournalExportsAsRedactedHAR() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "api.example.com") {
            MockResponse.encodable(["id": 1], status: .created, headers: ["Set-Cookie": "session=xyz"])
        }
        var request = URLRequest(url: URL(string: "https://api.example.com/users?page=2")!)
        request.httpMethod = "POST"
        request.setValue("Bearer s3cr3t", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"Alice"}"#.utf8)
        _ = try await mock.urlSession.boundedData(for: request)
        _ = try await mock.fetch("https://api.example.com/missing")

        let har = mock.exportHAR()
        #expect(!String(decoding: har, as: UTF8.self).contains("s3cr3t"))
        #expect(!String(decoding: har, as: UTF8.self).contains("xyz"))
        let document = try #require(try JSONSerialization.jsonObject(with: har) as? [String: Any])
        let log = try #require(document["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 2)

        let first = entries[0]
        #expect(first["startedDateTime"] is String)
        #expect(first["time"] is Double || first["time"] is Int)
        #expect(first["timings"] is [String: Any])
        let harRequest = try #require(first["request"] as? [String: Any])
        #expect(harRequest["method"] as? String == "POST")
        #expect(harRequest["url"] as? String == "https://api.example.com/users?page=2")
        let headers = try #require(harRequest["headers"] as? [[String: String]])
        #expect(headers.contains(["name": "Authorization", "value": "[REDACTED]"]))
        #expect((harRequest["queryString"] as? [[String: String]]) == [["name": "page", "value": "2"]])
        let postData = try #require(harRequest["postData"] as? [String: Any])
        #expect(postData["mimeType"] as? String == "application/json")
        #expect(postData["text"] as? String == #"{"name":"Alice"}"#)
        let harResponse = try #require(first["response"] as? [String: Any])
        #expect(harResponse["status"] as? Int == 201)
        #expect(harResponse["statusText"] as? String == "Created")
        let content = try #require(harResponse["content"] as? [String: Any])
        #expect(content["mimeType"] as? String == "application/json")
        #expect(content["text"] as? String == #"{"id":1}"#)
        #expect((harResponse["headers"] as? [[String: String]])?.contains(["name": "Set-Cookie", "value": "session=[REDACTED]"]) == true)

        let second = try #require(entries[1]["response"] as? [String: Any])
        #expect(second["status"] as? Int == 404)
    }
}
