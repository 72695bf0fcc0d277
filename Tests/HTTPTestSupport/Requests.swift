import Foundation
import HTTPMock
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request through a mock's real URLSession came back with.
package struct Fetched: Sendable {
    package let status: Int
    package let headers: [String: String]
    package let data: Data

    package init(status: Int, headers: [String: String], data: Data) {
        self.status = status
        self.headers = headers
        self.data = data
    }

    package var text: String { String(decoding: data, as: UTF8.self) }

    package func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

extension HTTPMock {
    /// Sends a request through `urlSession`, the way code under test would; fails with
    /// ``TimedOut`` after ``hangGuard`` instead of waiting forever. `timeout` is the request's
    /// `timeoutInterval` (a test whose response is delayed far off sets it further off still, so
    /// that only the test's own cancellation can end the request, however slow the machine).
    package func fetch(_ address: String, method: String = "GET", headers: [String: String] = [:], timeout: TimeInterval? = nil) async throws -> Fetched {
        var request = URLRequest(url: URL(string: address)!)
        request.httpMethod = method
        if let timeout { request.timeoutInterval = timeout }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await urlSession.boundedData(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            fields["\(name)"] = "\(value)"
        }
        return Fetched(status: http.statusCode, headers: fields, data: data)
    }

    /// The bodies of `count` sequential GETs.
    package func texts(_ address: String, count: Int) async throws -> [String] {
        var texts: [String] = []
        for _ in 0..<count {
            texts.append(try await fetch(address).text)
        }
        return texts
    }
}

/// The `URLError` a request failed with.
package func urlError(_ body: () async throws -> Void) async -> URLError? {
    do {
        try await body()
        return nil
    } catch let error as URLError {
        return error
    } catch {
        Issue.record("expected a URLError, got \(error)")
        return nil
    }
}
