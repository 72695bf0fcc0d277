import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockGRPCCore
import Foundation
import HTTPTypes

/// A response written in the stubs' form — JSON messages, headers naming the status — as a gRPC
/// server sends it: `200` with the call's `Content-Type` and the stub's other headers as
/// metadata, the messages framed, then trailers with `grpc-status`, `grpc-message` and the stub's
/// trailers as trailing metadata.
///
/// The status is the stub's `grpc-status` (a number or a name) or `grpc-status-name` (WireMock's
/// gRPC extension), its message `grpc-message` or `grpc-status-reason`; a stub that gives none
/// gets one from its HTTP status (`200`: `OK`; `404`: `NOT_FOUND`, or `UNIMPLEMENTED` for a method
/// the descriptor set does not have; the others as `google.rpc.Code` maps them), with its body as
/// the message. A response whose `Content-Type` is gRPC's already (a recording kept as bytes) is
/// sent as it is.
struct GRPCResponseEncoder: Sendable {
    let codec: MessageCodec
    /// The method called, when the descriptor set has it.
    let method: MethodSchema?
    /// The request's `Content-Type`, which the response repeats.
    let contentType: String

    /// The longest `grpc-message` sent, in characters: a near-miss text can be long, and clients
    /// refuse metadata over their limit (8 KiB by default for gRPC's C core).
    static let maximumStatusMessageLength = 2_000

    /// The fields a stub gives that say the status, or frame the body: not sent as metadata.
    private static let statusFieldNames: Set<String> = [
        "grpc-status", "grpc-status-name", "grpc-message", "grpc-status-reason", "content-type", "content-length", "transfer-encoding", "connection",
        "keep-alive",
    ]

    /// A response in the stubs' form that ends the call with `code` and `message`, no message sent.
    static func status(_ code: GRPCStatusCode, message: String) -> MockResponse {
        var fields = HTTPFields()
        fields[HTTPField.Name("grpc-status")!] = String(code.rawValue)
        fields[HTTPField.Name("grpc-message")!] = message
        return MockResponse(data: Data(), headerFields: fields)
    }

    func encode(_ response: MockResponse) -> MockResponse {
        // Already on the wire's form — a recording of a real server, kept as its bytes — and sent
        // as it is: its framed messages, its fields and trailers as recorded.
        if let type = response.headerFields[.contentType]?.lowercased(), type.hasPrefix("application/grpc") {
            return response
        }
        let body: Data
        switch response.body {
        case .data(let data):
            body = data
        case .file(let url):
            // A stub's JSON file, read when served (small, as stub files are).
            guard let data = try? Data(contentsOf: url) else {
                return wire(response, status: .internalError, message: "Airlock could not read the stub's body file \(url.path).", messages: .none)
            }
            body = data
        case .failure(let problem):
            return wire(response, status: .internalError, message: problem, messages: .none)
        case .stream(let stream):
            return encodeStream(stream, of: response)
        case .error, .fault, .computed, .proxy, .webSocket:
            return response
        }
        let (code, message) = status(of: response, body: body)
        guard code == .ok else { return wire(response, status: code, message: message, messages: .none) }
        guard let method else {
            // A method the set does not have: the stub's bytes are the framed messages.
            return wire(response, status: .ok, message: nil, messages: .data(body))
        }
        do {
            return wire(response, status: .ok, message: nil, messages: .data(try frame(body, for: method)))
        } catch {
            return wire(response, status: .internalError, message: "\(error)", messages: .none)
        }
    }

    /// The stub's JSON body as framed messages: one message, or — for a server-streaming method —
    /// each element of a JSON array; an empty body is one empty message (none for a stream).
    private func frame(_ body: Data, for method: MethodSchema) throws -> Data {
        let text = body.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if text.isEmpty { return method.isServerStreaming ? Data() : Data(GRPCMessageWriter.prefixed([], compressed: false)) }
        if method.isServerStreaming, text.first == UInt8(ascii: "["), method.outputType != "google.protobuf.ListValue" {
            let (value, longIntegers) = try JSONValue.parseKeepingLongIntegers(Data(text))
            guard case .array(let messages) = value else { return Data() }
            var framed = Data()
            for (index, message) in messages.enumerated() {
                // Each element's long integers, by their path inside the element.
                var own: [[String]: String] = [:]
                for (path, digits) in longIntegers where path.first == String(index) { own[Array(path.dropFirst())] = digits }
                let bytes = try encodeMessage(for: method, index: index + 1) { try codec.encode(message, as: method.outputType, longIntegers: own) }
                framed.append(contentsOf: GRPCMessageWriter.prefixed(bytes, compressed: false))
            }
            return framed
        }
        return Data(GRPCMessageWriter.prefixed(try encodeMessage(body, for: method, index: nil), compressed: false))
    }

    private func encodeMessage(_ json: Data, for method: MethodSchema, index: Int?) throws -> [UInt8] {
        try encodeMessage(for: method, index: index) { try codec.encode(json: json, as: method.outputType) }
    }

    /// Runs `encode`, turning its error into one that names the message, the method and the type.
    private func encodeMessage(for method: MethodSchema, index: Int?, _ encode: () throws -> [UInt8]) throws -> [UInt8] {
        do {
            return try encode()
        } catch {
            let which = index.map { "message \($0) of the stub's response" } ?? "the stub's response"
            throw EncodingProblem(description: "Airlock could not encode \(which) to \(method.path) as \(method.outputType): \(error). Fix the stub's JSON.")
        }
    }

    private struct EncodingProblem: Error, CustomStringConvertible {
        let description: String
    }

    /// A stream's parts as messages, each part one message after its pause; the ending kept.
    private func encodeStream(_ stream: ResponseStream, of response: MockResponse) -> MockResponse {
        let (code, message) = status(of: response, body: Data())
        guard let method else { return wire(response, status: code, message: message, messages: .stream(stream)) }
        do {
            var parts: [StreamPart] = []
            for (index, part) in stream.parts.enumerated() {
                parts.append(StreamPart(bytes: Data(GRPCMessageWriter.prefixed(try encodeMessage(part.bytes, for: method, index: index + 1), compressed: false)), after: part.delay))
            }
            return wire(response, status: code, message: message, messages: .stream(ResponseStream(kind: .chunks, parts: parts, ending: stream.ending)))
        } catch {
            return wire(response, status: .internalError, message: "\(error)", messages: .none)
        }
    }

    private enum Messages {
        case none
        case data(Data)
        case stream(ResponseStream)
    }

    /// The response as it goes on the wire.
    private func wire(_ response: MockResponse, status code: GRPCStatusCode, message: String?, messages: Messages) -> MockResponse {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        for field in response.headerFields where !Self.statusFieldNames.contains(field.name.canonicalName) {
            fields.append(field)
        }
        var trailers = HTTPFields()
        trailers[HTTPField.Name("grpc-status")!] = String(code.rawValue)
        if let message, !message.isEmpty {
            let shown = message.count > Self.maximumStatusMessageLength ? String(message.prefix(Self.maximumStatusMessageLength)) + "…" : message
            trailers[HTTPField.Name("grpc-message")!] = GRPCStatusMessage.encode(shown)
        }
        trailers.append(contentsOf: response.trailerFields.removing(names: Self.statusFieldNames))
        let body: MockResponse.Body =
            switch messages {
            case .none: .data(Data())
            case .data(let data): .data(data)
            case .stream(let stream): .stream(stream)
            }
        return response.with(body: body).with(headerFields: fields, status: .ok).with(trailerFields: trailers)
    }

    /// The call's status as the stub says it: its `grpc-status` or `grpc-status-name`, else its
    /// HTTP status; the message from `grpc-message` or `grpc-status-reason`, else the body of a
    /// response that is not a success.
    private func status(of response: MockResponse, body: Data) -> (GRPCStatusCode, String?) {
        let fields = response.headerFields
        let named = fields.first(named: "grpc-status") ?? fields.first(named: "grpc-status-name")
        let message = fields.first(named: "grpc-message") ?? fields.first(named: "grpc-status-reason")
        if let named {
            return (GRPCStatusCode(name: named.trimmingCharacters(in: .whitespaces)) ?? .unknown, message)
        }
        let code = response.status.code
        if (200..<300).contains(code) { return (.ok, message) }
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return (Self.code(forHTTPStatus: code, methodIsKnown: method != nil), message ?? (text.isEmpty ? nil : text))
    }

    /// The gRPC code of an HTTP status, as `google.rpc.Code` documents the pairs; `404` for a
    /// method the descriptor set does not have is `UNIMPLEMENTED`.
    static func code(forHTTPStatus status: Int, methodIsKnown: Bool) -> GRPCStatusCode {
        switch status {
        case 400: .invalidArgument
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: methodIsKnown ? .notFound : .unimplemented
        case 409: .alreadyExists
        case 429: .resourceExhausted
        case 499: .cancelled
        case 501: .unimplemented
        case 502, 503: .unavailable
        case 504: .deadlineExceeded
        case 500..<600: .internalError
        default: .unknown
        }
    }
}
