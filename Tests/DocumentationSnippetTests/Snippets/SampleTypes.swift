import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The app types and helpers the documentation samples refer to, defined just enough for the
// samples to compile. Nothing here runs.

struct User: Codable, Sendable {
    let id: Int
    let name: String
}

struct NewUser: Codable, Sendable {
    var name: String
    var age = 0
}

struct Order: Codable, Sendable {
    var items: [String]
}

struct Receipt: Codable, Sendable {
    var items: Int
}

struct Profile: Codable, Sendable {
    var name = "Alice"
}

struct Audit: Codable, Sendable {
    var entries: [String] = []
}

enum MyServiceError: Error {
    case maintenance
}

/// Another library's mock `URLProtocol`, for `Airgap.passthroughProtocols`.
final class MyMockURLProtocol: URLProtocol {}

/// A test's own network work, allowed through the guard for a moment.
func refreshFixtures() async throws {}

/// Checks that may still reach for the network, run in warn mode.
func runLegacyChecks() {}

/// Stand-ins for what swift-openapi-generator generates from a document (`Client`, `Servers`),
/// for the samples of AirlockOpenAPI; AirlockOpenAPITests drives a real generated client.
struct Client {
    init(serverURL: URL, transport: any Sendable) {}
}

enum Servers {
    enum Server1 {
        static func url() throws -> URL { URL(string: "https://petstore.swagger.io/v1")! }
    }
}
