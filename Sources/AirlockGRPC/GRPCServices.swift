@_spi(AirlockTransport) import AirlockCore
// GRPCStatusCode, the one public type of the codec, for the statuses stubs give.
@_exported import AirlockGRPCCore
import Foundation

/// The gRPC services a mock answers, read from their descriptor set: the file `protoc
/// --descriptor_set_out=services.pb --include_imports …` writes, the form WireMock's gRPC
/// extension and `grpcurl` read.
///
/// ```swift
/// let server = MockServer()
/// try server.serveGRPC(GRPCServices(descriptorSetAt: URL(fileURLWithPath: "Fixtures/orders.pb")))
/// ```
///
/// With the services installed, a gRPC call to one of their methods is matched and answered by
/// the mock's stubs in JSON: the request's message is read into proto3's JSON mapping, and a
/// stub's JSON body is written back as the method's response message. See <doc:MockingGRPC>.
public struct GRPCServices: Sendable {
    let codec: MessageCodec

    /// The services of the descriptor set at `url`.
    /// - Parameter url: A `FileDescriptorSet` in protobuf's binary form, with every import
    ///   included (`--include_imports`).
    /// - Throws: ``GRPCServicesError`` naming the file and what is wrong with it.
    public init(descriptorSetAt url: URL) throws {
        do {
            codec = MessageCodec(try DescriptorSet(contentsOf: url))
        } catch {
            throw GRPCServicesError(description: "\(error)")
        }
    }

    /// The services of a descriptor set held in memory.
    /// - Parameters:
    ///   - data: A `FileDescriptorSet` in protobuf's binary form, with every import included.
    ///   - source: How messages name the set.
    /// - Throws: ``GRPCServicesError`` saying what is wrong with it.
    public init(descriptorSet data: Data, source: String = "descriptor set") throws {
        do {
            codec = MessageCodec(try DescriptorSet(serializedBytes: data, source: source))
        } catch {
            throw GRPCServicesError(description: "\(error)")
        }
    }

    /// The path of every method, sorted: `/package.Service/Method`, the path a stub names.
    public var methodPaths: [String] { codec.descriptors.methods.keys.sorted() }
}

/// Why a descriptor set cannot be read: the file, and what is wrong with it.
public struct GRPCServicesError: Error, Sendable, CustomStringConvertible {
    /// The file (or source) and the problem.
    public let description: String
}

extension Mocking {
    /// Answers gRPC calls to the methods of `services` from this mock's stubs, written in JSON.
    ///
    /// A call (`Content-Type: application/grpc`, over HTTP/2) to one of the methods has its
    /// message read into proto3's JSON mapping before the stubs see it: match it with JSON
    /// matchers (`equalToJson`, `matchesJsonPath`, a stub file's `json`), its metadata with
    /// header matchers, its method with the path `/package.Service/Method`. A client stream's
    /// messages arrive as a JSON array. The stub's JSON body is written back as the method's
    /// response message (a server-streaming method's: each element of a JSON array, or each part
    /// of a stream with its pause), its other headers as metadata, its trailers as trailing
    /// metadata, and `grpc-status`/`grpc-message` (or WireMock's `grpc-status-name` and
    /// `grpc-status-reason`) in the trailers.
    ///
    /// A call no stub answers ends with `NOT_FOUND` and the mock's near-miss text in
    /// `grpc-message`; a call to a method the set does not have, with `UNIMPLEMENTED`.
    /// - Parameter services: The services, from their descriptor set.
    public func serveGRPC(_ services: GRPCServices) {
        registry.install(GRPCTranscoder(codec: services.codec, maximumMessageLength: 4 * 1024 * 1024))
    }
}
