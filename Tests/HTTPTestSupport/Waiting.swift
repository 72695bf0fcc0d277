import Foundation
@_exported import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The bounded waits (`withTimeout`, `waitUntil`, `hangGuard`) are ProcessSupport's, re-exported.

/// A request's answer, carried out of the task that awaited it.
package struct Answer: @unchecked Sendable {
    // @unchecked Sendable: `URLResponse` is an immutable value object once a task hands it over;
    // swift-corelibs-foundation just does not annotate it.
    package let data: Data
    package let response: URLResponse
}

extension URLSession {
    /// `data(for:)`, failing with ``TimedOut`` after ``hangGuard`` instead of waiting forever.
    package func boundedData(for request: URLRequest) async throws -> (Data, URLResponse) {
        let answer = try await withTimeout("\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")") {
            let (data, response) = try await self.data(for: request)
            return Answer(data: data, response: response)
        }
        return (answer.data, answer.response)
    }

    /// `data(from:)`, failing with ``TimedOut`` after ``hangGuard`` instead of waiting forever.
    package func boundedData(from url: URL) async throws -> (Data, URLResponse) {
        try await boundedData(for: URLRequest(url: url))
    }

    /// `upload(for:from:)`, failing with ``TimedOut`` after ``hangGuard`` instead of waiting forever.
    package func boundedUpload(for request: URLRequest, from body: Data) async throws -> (Data, URLResponse) {
        let answer = try await withTimeout("upload to \(request.url?.absoluteString ?? "?")") {
            let (data, response) = try await self.upload(for: request, from: body)
            return Answer(data: data, response: response)
        }
        return (answer.data, answer.response)
    }

    /// `upload(for:fromFile:)`, failing with ``TimedOut`` after ``hangGuard`` instead of waiting forever.
    package func boundedUpload(for request: URLRequest, fromFile file: URL) async throws -> (Data, URLResponse) {
        let answer = try await withTimeout("upload of \(file.lastPathComponent) to \(request.url?.absoluteString ?? "?")") {
            let (data, response) = try await self.upload(for: request, fromFile: file)
            return Answer(data: data, response: response)
        }
        return (answer.data, answer.response)
    }
}
