import AirlockBase
import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPMock
import HTTPTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import ProcessSupport
#endif

/// The OpenAPI Initiative's example documents (`Tests/Fixtures/OpenAPIExamples`).
enum Examples {
    static let folder = Repository.openAPIExamples

    static func contract(_ relativePath: String) throws -> OpenAPIContract {
        let url = folder.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MissingExample(path: url.path)
        }
        return try OpenAPIContract(contentsOf: url)
    }

    struct MissingExample: Error, CustomStringConvertible {
        let path: String
        var description: String { "The OpenAPI example \(path) is missing: the tests expect the shared folder beside the clone." }
    }
}

/// Collects the violations a validation reports, for tests to read.
final class Violations: Sendable {
    private let found = Locked<[ContractViolation]>([])

    var all: [ContractViolation] { found.withLock { $0 } }
    var messages: [String] { all.map(\.description) }

    @Sendable func record(_ violation: ContractViolation) {
        found.withLock { $0.append(violation) }
    }
}

extension HTTPMock {
    /// Sends a request with a method, fields and body through the mock's `URLSession`.
    @discardableResult
    func send(_ method: String, _ address: String, headers: [String: String] = [:], body: String? = nil) async throws -> (status: Int, data: Data) {
        var request = URLRequest(url: URL(string: address)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await urlSession.boundedData(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
