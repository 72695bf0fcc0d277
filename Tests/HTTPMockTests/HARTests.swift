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

    /// A HAR entry's `_end`: how its stream ended, read back as the stream's ending and written
    /// again as it was; a wait that cannot be waited is refused, naming the field.
    @Test(arguments: [
        (#"{"wait": 1500, "clientLeft": true}"#, ResponseStream.Ending.clientLeft(after: 1.5)),
        (#"{"wait": 250}"#, ResponseStream.Ending.closeAfter(0.25)),
    ])
    func aStreamsEndIsReadAndWrittenAgain(_ end: String, _ ending: ResponseStream.Ending) throws {
        let archive = try HTTPArchive(data: Data(Self.streamEntry(end: end).utf8), source: "end.har")
        let stream = try #require(archive.entries.first?.response?.stream)
        #expect(stream.ending == ending)
        #expect(stream.parts.isEmpty)
        let again = try HTTPArchive(data: archive.data(redaction: .none), source: "again.har")
        #expect(again.entries.first?.response?.stream?.ending == ending)
    }

    @Test(arguments: ["-1", "1e300", "90000000"])
    func anEndsWaitThatCannotBeWaitedIsRefusedByName(_ wait: String) {
        do {
            _ = try HTTPArchive(data: Data(Self.streamEntry(end: #"{"wait": \#(wait)}"#).utf8), source: "end.har")
            Issue.record("a stream ending \(wait) ms after its last part was read")
        } catch {
            #expect(error.location == "log.entries[0].response.content._end.wait", "\(error)")
            #expect(error.description.contains("the milliseconds from the last part to the stream's end"), "\(error)")
        }
    }

    /// A HAR file of one standing stream (no part) that ended as `end` says.
    static func streamEntry(end: String) -> String {
        """
        {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
          "startedDateTime": "2026-11-28T12:00:00.000Z", "time": 1,
          "request": {"method": "GET", "url": "https://api.example.com/mcp", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
          "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
            "content": {"size": 0, "mimeType": "text/event-stream", "_parts": [], "_end": \(end)},
            "redirectURL": "", "headersSize": -1, "bodySize": 0},
          "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}}
        """
    }
}
