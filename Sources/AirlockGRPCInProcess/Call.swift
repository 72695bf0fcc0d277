import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockGRPCCore
import Foundation
import GRPCCore
import HTTPTypes
import URLProtocolSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One call of an ``AirlockGRPCTransport``: the client's request parts as one request to the mock,
/// and the core's exchange carried onto the stream of response parts the client reads — the
/// stub's metadata, each message as the stream's framing delivers it, the status with the
/// trailing metadata.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class Call: ExchangeSink, Sendable {
    typealias Kind = URLSessionTransport
    typealias Machine = ExchangeStateMachine<URLSessionTransport>

    private let registry: MockRegistry
    private let url: String
    private let responses: AsyncThrowingStream<RPCResponsePart<[UInt8]>, any Error>.Continuation
    private let machine = Locked<Machine?>(nil)
    /// The messages read from the answer's pieces, whether its head went, and whether it is over.
    private let answer = Locked<(reader: GRPCMessageReader, head: HTTPFields?, isOver: Bool)>((GRPCMessageReader(), nil, false))
    /// Webhooks of the stub still waiting for their delay.
    private static let waitingWebhooks = WaitingWebhooks(notSent: "not sent: the process ended before its delay had passed")
    private static let webhookSession = URLSession(configuration: .ephemeral)

    /// The field names a gRPC client never sees as metadata: HTTP's and gRPC's own.
    private static let reservedNames: Set<String> = ["content-type", "content-length", "te", "grpc-status", "grpc-message", "grpc-encoding", "grpc-accept-encoding", "transfer-encoding"]

    init(registry: MockRegistry, url: String, responses: AsyncThrowingStream<RPCResponsePart<[UInt8]>, any Error>.Continuation) {
        self.registry = registry
        self.url = url
        self.responses = responses
    }

    /// The client has sent everything: its request goes to the mock.
    func start(_ parts: [RPCRequestPart<[UInt8]>]) {
        var fields: [(name: String, value: String)] = [("content-type", "application/grpc"), ("te", "trailers")]
        var body = Data()
        for part in parts {
            switch part {
            case .metadata(let metadata):
                for (key, value) in metadata {
                    switch value {
                    case .string(let text): fields.append((key, text))
                    // Binary metadata travels in base64, as on the wire (its key ends in `-bin`).
                    case .binary(let bytes): fields.append((key, Data(bytes).base64EncodedString()))
                    }
                }
            case .message(let message):
                body.append(contentsOf: GRPCMessageWriter.prefixed(message, compressed: false))
            }
        }
        guard var incoming = IncomingRequest(method: "POST", absoluteURL: url) else {
            return end(Status(code: .internalError, message: "AirlockGRPCTransport: \(url) is not a URL"), metadata: [:])
        }
        incoming.headerFields = .list(fields)
        incoming.body = body
        var exchange = registry.resolve(incoming, for: .urlSession)
        let action = exchange.start(idleTimeout: nil, takesBodyInPieces: true)
        machine.withLock { $0 = exchange }
        run(action)
    }

    /// The client is done with the call: nothing more is sent, nothing scheduled runs.
    func cancel() {
        answer.withLock { $0.isOver = true }
        machine.withLock { $0?.clientLeft() }
    }

    private var isOver: Bool { answer.withLock { $0.isOver } }

    // MARK: ExchangeSink

    func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + max(seconds, 0)) { [weak self] in
            guard let self, !self.isOver else { return }
            work()
        }
    }

    func withMachine(_ event: (inout Machine) -> Machine.Action) -> Machine.Action {
        machine.withLock { machine in
            guard var exchange = machine else { return .none }
            defer { machine = exchange }
            return event(&exchange)
        }
    }

    func carry(_ delivery: Machine.Delivery) {
        switch delivery {
        case .write(let write):
            if let (response, _) = write.head { head(response) }
            write.pieces.forEach { piece($0, of: write.response) }
            if write.ends {
                finish(write.response)
                send(write.webhooks)
            }
        case .fail(let failure):
            end(Status(code: .internalError, message: failure.description), metadata: [:])
        case .failCarrying(let error):
            let carried = error.error
            if let rpc = carried as? RPCError {
                end(Status(code: Status.Code(rpc.code), message: rpc.message), metadata: rpc.metadata)
            } else {
                end(Status(code: .unknown, message: "\(carried)"), metadata: [:])
            }
        case .fault(let fault, let webhooks):
            end(Status(code: .unavailable, message: "AirlockGRPCTransport: the stub's fault \(fault) broke the call"), metadata: [:])
            send(webhooks)
        case .forward(_, let target, _, let webhooks, _):
            let problem = "AirlockGRPCTransport answers from the mock alone and reaches no network; the mock would forward this call to \(target?.url ?? url)"
            machine.withLock { $0?.recorder }?.record(.failure(.forwardFailed(target: target?.url ?? url, error: problem)))
            end(Status(code: .unavailable, message: problem), metadata: [:])
            send(webhooks)
        case .stop(let message):
            fatalError(message)
        case .openWebSocket, .follow:
            end(Status(code: .internalError, message: "AirlockGRPCTransport: a gRPC call cannot open a WebSocket or follow a redirect"), metadata: [:])
        }
    }

    // MARK: Answer

    /// The head: its fields are the call's metadata (unless it is a trailers-only answer, which
    /// ends the call at once when its end comes).
    private func head(_ response: MockResponse) {
        let fields = response.headerFields
        guard response.status.code == 200, fields.first(named: "grpc-status") == nil else {
            answer.withLock { $0.head = fields }
            return
        }
        answer.withLock { $0.head = fields }
        responses.yield(.metadata(Self.metadata(fields)))
    }

    /// Messages read from a piece of the body as they complete.
    private func piece(_ piece: Data, of response: MockResponse) {
        guard response.status.code == 200 else { return }
        var messages: [[UInt8]] = []
        var failure: GRPCFramingError?
        answer.withLock { answer in
            answer.reader.append(piece)
            reading: while true {
                switch answer.reader.next() {
                case .message(let message): messages.append(message)
                case .needMoreBytes: break reading
                case .fail(let error):
                    failure = error
                    break reading
                }
            }
        }
        for message in messages { responses.yield(.message(message)) }
        if let failure { end(Status(code: .internalError, message: "AirlockGRPCTransport could not read the stub's messages: \(failure)"), metadata: [:]) }
    }

    /// The end: the status and trailing metadata from the trailers, or from the head of a
    /// trailers-only answer; an answer that is not gRPC's by its HTTP status.
    private func finish(_ response: MockResponse) {
        let status = response.status.code
        guard status == 200 else {
            let text = String(decoding: response.body.bytesInMemory ?? Data(), as: UTF8.self)
            return end(Status(code: Status(httpStatusCode: status).code, message: text), metadata: [:])
        }
        let trailers = response.trailerFields.isEmpty ? (answer.withLock { $0.head } ?? HTTPFields()) : response.trailerFields
        let code = trailers.first(named: "grpc-status").flatMap { Int($0) }.flatMap(Status.Code.init(rawValue:)) ?? .unknown
        let message = trailers.first(named: "grpc-message").map(GRPCStatusMessage.decode) ?? ""
        let missing = trailers.first(named: "grpc-status") == nil ? "AirlockGRPCTransport: the answer has no grpc-status" : message
        end(Status(code: code, message: missing), metadata: Self.metadata(response.trailerFields.isEmpty ? trailers : response.trailerFields))
    }

    /// Ends the call with a status, once.
    private func end(_ status: Status, metadata: Metadata) {
        let first = answer.withLock { answer -> Bool in
            defer { answer.isOver = true }
            return !answer.isOver
        }
        guard first else { return }
        responses.yield(.status(status, metadata))
        responses.finish()
    }

    private func send(_ webhooks: [WebhookRequest]) {
        guard !webhooks.isEmpty, let recorder = machine.withLock({ $0?.recorder }) else { return }
        WebhookSending.send(webhooks, through: Self.webhookSession, recorder: recorder, redaction: registry.journal.redaction, waiting: Self.waitingWebhooks)
    }

    /// Fields as metadata: HTTP's and gRPC's own left out; `-bin` values from base64.
    private static func metadata(_ fields: HTTPFields) -> Metadata {
        var metadata = Metadata()
        for field in fields {
            let key = field.name.canonicalName
            guard !reservedNames.contains(key), !key.hasPrefix(":") else { continue }
            if key.hasSuffix("-bin"), let bytes = Data(base64Encoded: field.value) {
                metadata.addBinary(Array(bytes), forKey: key)
            } else {
                metadata.addString(field.value, forKey: key)
            }
        }
        return metadata
    }
}
