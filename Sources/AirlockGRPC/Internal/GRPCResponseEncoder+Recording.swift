import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockGRPCCore
import Foundation
import HTTPTypes

extension GRPCResponseEncoder {
    /// A response as the wire had it — a real server's, relayed by `airlock record`, or a stub's
    /// answer — in the stubs' form, as the journal and a recording keep it: the messages as JSON
    /// (a server stream's each a part after its pause), `grpc-status` and `grpc-message` among the
    /// fields, the trailing metadata as trailers. ``encode(_:)`` sends that form back as the wire
    /// had it. A response that is not gRPC's, or whose messages cannot be read, is kept as it came.
    func kept(_ wire: RecordedResponse) -> RecordedResponse {
        guard let method, wire.status == 200, let type = wire.headerFields[.contentType]?.lowercased(), type.hasPrefix("application/grpc") else { return wire }
        // The status: in the trailers, or in the head of a trailers-only answer.
        let statusFields = wire.trailerFields.first(named: "grpc-status") != nil ? wire.trailerFields : wire.headerFields
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let own: Set<String> = ["content-type", "content-length", "grpc-status", "grpc-message", "grpc-encoding"]
        for field in wire.headerFields where !own.contains(field.name.canonicalName) { headers.append(field) }
        if let status = statusFields.first(named: "grpc-status") { headers[HTTPField.Name("grpc-status")!] = status }
        if let message = statusFields.first(named: "grpc-message"), !message.isEmpty {
            headers[HTTPField.Name("grpc-message")!] = GRPCStatusMessage.decode(message)
        }
        let trailers = wire.trailerFields.removing(names: ["grpc-status", "grpc-message"])
        let encoding = wire.headerFields.first(named: "grpc-encoding").map(GRPCMessageEncoding.init) ?? .identity
        var reader = GRPCMessageReader(configuration: .init(encoding: encoding))
        if let stream = wire.stream {
            // Each message after the pause before the piece that completed it.
            var parts: [StreamPart] = []
            var pause: TimeInterval = 0
            for part in stream.parts {
                pause += part.delay
                reader.append(part.bytes)
                guard let messages = readMessages(&reader, as: method.outputType) else { return wire }
                for message in messages {
                    parts.append(StreamPart(bytes: message, after: pause))
                    pause = 0
                }
            }
            guard case .finished = reader.end() else { return wire }
            return RecordedResponse(
                outcome: wire.outcome, headers: headers, body: Data(), duration: wire.duration,
                stream: ResponseStream(kind: .chunks, parts: parts, ending: stream.ending), trailers: trailers, httpVersion: wire.httpVersion
            )
        }
        reader.append(wire.body)
        guard let messages = readMessages(&reader, as: method.outputType), case .finished = reader.end() else { return wire }
        let body: Data
        if method.isServerStreaming {
            let values = messages.compactMap { try? JSONValue.parse($0) }
            body = (try? JSONValue.array(values).compactData()) ?? Data("[]".utf8)
        } else {
            body = messages.first ?? Data()
        }
        return RecordedResponse(outcome: wire.outcome, headers: headers, body: body, duration: wire.duration, trailers: trailers, httpVersion: wire.httpVersion)
    }

    /// The whole messages the reader holds, each as compact JSON; `nil` when one cannot be read.
    private func readMessages(_ reader: inout GRPCMessageReader, as typeName: String) -> [Data]? {
        var messages: [Data] = []
        while true {
            switch reader.next() {
            case .message(let bytes):
                guard let json = try? codec.decodeToJSONData(bytes, as: typeName) else { return nil }
                messages.append(json)
            case .needMoreBytes:
                return messages
            case .fail:
                return nil
            }
        }
    }
}
