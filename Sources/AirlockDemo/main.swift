// AirlockDemo: exercises HTTPMock through a real URLSession and prints what came back.
//
//     swift run AirlockDemo
import Foundation
import HTTPMock
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct User: Codable {
    let id: Int
    let name: String
}

let mock = HTTPMock()
mock.registerResponses {
    Host("api.example.com") {
        Headers(["X-Env": "Demo"], cascade: true)
        Path("/user") {
            MockResponse.encodable(User(id: 1, name: "Alice"))
            MockResponse.empty(status: .notFound)
        }
        Path("/search", query: ["q": "swift"], matching: .contains) {
            MockResponse.plaintext("results for swift", lifetime: .eternal)
        }
    }
    Host("*.cdn.example.com") {
        Path("/assets/**") {
            MockResponse.plaintext("any asset", lifetime: .multiple(2), delivery: .delayed(0.2))
        }
    }
}

let requests = [
    "https://api.example.com/user",
    "https://api.example.com/user",
    "https://api.example.com/search?q=swift&page=2",
    "https://eu.cdn.example.com/assets/img/logo.png",
    "https://api.example.com/unknown",
]

for address in requests {
    let started = Date()
    let (data, response) = try await mock.urlSession.data(from: URL(string: address)!)
    let http = response as! HTTPURLResponse
    let elapsed = Int(Date().timeIntervalSince(started) * 1000)
    let contentType = http.value(forHTTPHeaderField: "Content-Type") ?? "-"
    let env = http.value(forHTTPHeaderField: "X-Env") ?? "-"
    let body = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    print("GET \(address)")
    print("  → \(http.statusCode)  Content-Type: \(contentType)  X-Env: \(env)  (\(elapsed) ms)")
    print("  \(body.isEmpty ? "(empty body)" : body)")
}
