import Foundation
import Testing

/// gRPC's own Python client (PyPI's grpcio, `Tests/Tools/grpc_client.py`) calling a server: each
/// call with its messages as JSON, its status, its metadata and when each response arrived.
package enum GRPCIOClient {
    /// One call to make.
    package struct Call: Encodable {
        package var name: String
        package var method: String
        /// The request messages as JSON (one for unary and server-streaming methods).
        package var requests: [String] = ["{}"]
        package var metadata: [[String]] = []
        /// `"gzip"` compresses the request messages.
        package var compression: String?
        /// Hex bytes sent as the request message as they are (not JSON).
        package var raw: String?

        /// A call of `method` with these messages.
        package init(name: String, method: String, requests: [String] = ["{}"], metadata: [[String]] = [], compression: String? = nil, raw: String? = nil) {
            self.name = name
            self.method = method
            self.requests = requests
            self.metadata = metadata
            self.compression = compression
            self.raw = raw
        }
    }

    /// What a call got.
    package struct Result: Decodable {
        package var name: String
        package var code: String
        package var details: String
        package var messages: [String]
        /// Seconds from the call's start to each response message.
        package var arrivals: [Double]
        package var initial_metadata: [[String]]
        package var trailing_metadata: [[String]]

        /// The first value of a metadata key, in the initial or the trailing metadata.
        package func metadata(_ key: String, trailing: Bool = false) -> String? {
            (trailing ? trailing_metadata : initial_metadata).first { $0.first == key }?.last
        }

        /// The response messages, parsed.
        package var objects: [[String: Any]] {
            messages.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        }
    }

    package static let descriptorSet = Repository.fixture("GRPC/orders.pb")

    /// Makes `calls` one after the other on one channel to `127.0.0.1:port`, with the fixture's
    /// descriptor set — over TLS (h2 by ALPN) when given the CA file to trust; fails the test when
    /// the client could not make them.
    package static func call(port: Int, trusting caFile: String? = nil, _ calls: [Call], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Result] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-calls-\(UUID().uuidString).json")
        try JSONEncoder().encode(calls).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let tls = caFile.map { ["--tls-ca", $0] } ?? []
        let run = try await ToolRun.run("grpc_client.py", ["call", "--target", "127.0.0.1:\(port)", "--descriptor-set", descriptorSet.path, "--calls", file.path] + tls)
        #expect(run.ok, "grpc_client.py \(run.failureReport)", sourceLocation: sourceLocation)
        struct Line: Decodable { var calls: [Result]? }
        let results = try JSONDecoder().decode(Line.self, from: Data((run.resultText ?? "{}").utf8)).calls ?? []
        return Dictionary(results.map { ($0.name, $0) }) { first, _ in first }
    }
}
