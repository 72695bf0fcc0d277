import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPMock
import HTTPMockTesting
import Testing

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this).

// MockingCodeYouDontControl.md: code that knows only URLSession.shared, answered per test. Run,
// not only compiled: its expectations are this suite's.
@Suite struct SharedSessionGuideSample {
/// The code under test: it knows only URLSession.shared.
struct WeatherClient {
    func forecast(for city: String) async throws -> String {
        let url = URL(string: "https://weather.example.com/forecast?city=\(city)")!
        let (data, _) = try await URLSession.shared.data(from: url)
        return String(decoding: data, as: UTF8.self)
    }
}

@Test(.httpMock, arguments: ["Oslo", "Lima"]) func showsTheForecast(city: String) async throws {
    let mock = try #require(HTTPMock.current)   // this test case's own mock
    mock.addResponses(forPath: "/forecast", host: "weather.example.com", queryItems: ["city": city]) {
        MockResponse.plaintext("Sunny in \(city)")
    }
    #expect(try await WeatherClient().forecast(for: city) == "Sunny in \(city)")
    #expect(mock.requests.count == 1)
}
}

// README.md: the quick start, with nothing injected. Run, not only compiled.
@Suite struct SharedSessionQuickStartSample {
struct User: Codable { let id: Int; let name: String }

/// The code under test: an API client that calls URLSession.shared.
struct UserClient {
    func user(id: Int) async throws -> User {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "https://api.example.com/users/\(id)")!)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
        return try JSONDecoder().decode(User.self, from: data)
    }
}

@Test(.httpMock) func loadsTheUser() async throws {
    let mock = try #require(HTTPMock.current)   // this test's own: tests run in parallel

    // 1) Queue responses for a host + path
    mock.addResponses(forPath: "/users/1", host: "api.example.com") {
        MockResponse.encodable(User(id: 1, name: "Alice"))   // 200, application/json
        MockResponse.empty(status: .notFound)                // the second call gets 404
    }

    // 2) Call the code under test: its URLSession.shared requests reach this test's mock
    let client = UserClient()
    #expect(try await client.user(id: 1).name == "Alice")
    await #expect(throws: URLError.self) { try await client.user(id: 1) }
}
}
