import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockGRPCCore
import Foundation
import HTTPTypes

/// gRPC calls to the methods of a descriptor set, transcoded for the core: each request message
/// read into proto3's JSON (stubs match it with their JSON matchers, templates read it, the
/// journal keeps it), and each response written in JSON turned into framed protobuf messages
/// with the call's status in the trailers.
///
/// A call to a method the set does not have is left as it came; its answer still speaks gRPC: a
/// miss is `UNIMPLEMENTED`, with the core's message.
struct GRPCTranscoder: BodyTranscoder {
    let codec: MessageCodec
    /// The longest message read or written.
    let maximumMessageLength: Int

    func transcode(_ request: IncomingRequest) -> Transcoding? {
        guard request.method == "POST", let contentType = Self.contentType(of: request) else { return nil }
        guard let method = try? codec.descriptors.method(path: request.path) else {
            let encoder = GRPCResponseEncoder(codec: codec, method: nil, contentType: contentType)
            return Transcoding(request: request, encode: { encoder.encode($0) })
        }
        let encoder = GRPCResponseEncoder(codec: codec, method: method, contentType: contentType)
        var transcoded = request
        let refusal: MockResponse?
        switch readMessages(of: request, for: method) {
        case .success(let json):
            transcoded.body = json
            refusal = nil
        case .failure(let problem):
            refusal = GRPCResponseEncoder.status(problem.code, message: problem.message)
        }
        return Transcoding(request: transcoded, encode: { encoder.encode($0) }, refusal: refusal, record: { encoder.kept($0) })
    }

    /// Why a request's messages cannot be read: the status to answer with, and what to say.
    struct Problem: Error {
        let code: GRPCStatusCode
        let message: String
    }

    /// The request's messages as JSON text: one message (unary and server-streaming methods) as
    /// itself, the messages of a client stream as an array.
    private func readMessages(of request: IncomingRequest, for method: MethodSchema) -> Result<Data, Problem> {
        let encoding = request.headers.first { $0.name.lowercased() == "grpc-encoding" }.map { GRPCMessageEncoding($0.value) } ?? .identity
        var reader = GRPCMessageReader(configuration: .init(maximumMessageLength: maximumMessageLength, encoding: encoding))
        reader.append(request.body ?? Data())
        var messages: [JSONValue] = []
        reading: while true {
            switch reader.next() {
            case .message(let bytes):
                do {
                    messages.append(try codec.decode(bytes, as: method.inputType).json)
                } catch {
                    return .failure(Problem(code: .internalError, message: "Airlock could not read message \(messages.count + 1) of \(method.path) as \(method.inputType): \(error). Check that the descriptor set (\(codec.descriptors.source)) is the one the client was built from."))
                }
            case .needMoreBytes:
                break reading
            case .fail(let error):
                return .failure(Problem(code: error.status, message: "Airlock could not read the messages of \(method.path): \(error)"))
            }
        }
        if case .fail(let error) = reader.end() {
            return .failure(Problem(code: error.status, message: "Airlock could not read the messages of \(method.path): \(error)"))
        }
        if method.isClientStreaming {
            return .success((try? JSONValue.array(messages).compactData()) ?? Data("[]".utf8))
        }
        guard messages.count == 1, let message = messages.first else {
            return .failure(Problem(code: .internalError, message: "\(method.path) takes one request message; the call sent \(messages.count)."))
        }
        return .success((try? message.compactData()) ?? Data("{}".utf8))
    }

    /// The request's `Content-Type` when it is gRPC's (`application/grpc`, `application/grpc+proto`).
    private static func contentType(of request: IncomingRequest) -> String? {
        guard let value = request.headers.first(where: { $0.name.lowercased() == "content-type" })?.value else { return nil }
        let type = value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type == "application/grpc" || type == "application/grpc+proto" ? value : nil
    }
}
