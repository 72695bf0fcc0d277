import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockGRPCCore
import Foundation
import GRPCCore

/// A grpc-swift 2 `ClientTransport` answered by a mock, in-process: a generated client's calls go
/// to the mock's stubs, with no socket, as `AirlockTransport` does for swift-openapi-generator
/// clients.
///
/// ```swift
/// let mock = HTTPMock()
/// mock.serveGRPC(try GRPCServices(descriptorSetAt: URL(fileURLWithPath: "Fixtures/orders.pb")))
/// mock.addResponses(forPath: "/shop.OrderService/GetOrder", host: "**") {
///     MockResponse.grpc(#"{"id": "42", "status": "STATUS_OPEN"}"#)
/// }
/// try await withGRPCClient(transport: AirlockGRPCTransport(mock: mock)) { client in
///     let order = try await Shop_OrderService.Client(wrapping: client).getOrder(.with { $0.id = "42" })
/// }
/// ```
///
/// Each call is one request to the mock — `POST` to `/package.Service/Method`, the metadata as
/// header fields, the messages framed as on the wire — decided, matched, delayed and journalled as
/// any other, and answered through the services the mock serves (`serveGRPC(_:)`): the
/// stub's metadata, each message (a stream's after its pause), then the status with the trailing
/// metadata. A call no stub answers ends with `NOT_FOUND` and the mock's near-miss text.
///
/// A call is answered once the client has sent all its messages: a bidirectional call whose client
/// waits for an answer before it finishes sending waits for ever. Nothing goes to the network: an
/// exchange the mock would forward (the `.passthrough` policy, a recording, a stub that proxies)
/// ends with `UNAVAILABLE`.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public final class AirlockGRPCTransport: ClientTransport {
    public typealias Bytes = [UInt8]

    private let registry: MockRegistry
    /// The authority the calls' URLs name (`http://<authority>/package.Service/Method`).
    private let authority: String
    /// Whether the transport is closing, and what ends ``connect()``.
    private let state: Locked<(isClosing: Bool, open: Int, connection: AsyncStream<Void>.Continuation?)>
    private let connection: AsyncStream<Void>

    /// A transport that asks `mock`.
    /// - Parameters:
    ///   - mock: The mock that answers: an `HTTPMock`, a `MockServer`, any `Mocking`; give it the
    ///     services with `serveGRPC(_:)` to write stubs in JSON.
    ///   - authority: The host the calls' URLs name, for stubs of one host. Defaults to `localhost`.
    public init(mock: some Mocking, authority: String = "localhost") {
        registry = mock.registry
        self.authority = authority
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        connection = stream
        state = Locked((false, 0, continuation))
    }

    /// No retry throttling: a mock answers every attempt.
    public var retryThrottle: RetryThrottle? { nil }

    /// Runs until ``beginGracefulShutdown()`` (once every open call has ended) or the task is
    /// cancelled.
    public func connect() async throws {
        for await _ in connection {}
    }

    /// Refuses new calls, and ends ``connect()`` once the open ones have ended.
    public func beginGracefulShutdown() {
        let finished = state.withLock { state -> AsyncStream<Void>.Continuation? in
            state.isClosing = true
            guard state.open == 0 else { return nil }
            defer { state.connection = nil }
            return state.connection
        }
        finished?.finish()
    }

    /// No configuration of its own per method: the client's defaults apply.
    public func config(forMethod descriptor: MethodDescriptor) -> MethodConfig? { nil }

    /// Opens one call: the client writes its metadata and messages, the mock answers once the
    /// client has finished, and the closure reads the answer.
    public func withStream<T: Sendable>(
        descriptor: MethodDescriptor,
        options: CallOptions,
        _ closure: (_ stream: RPCStream<Inbound, Outbound>, _ context: ClientContext) async throws -> T
    ) async throws -> T {
        let opened = state.withLock { state -> Bool in
            guard !state.isClosing else { return false }
            state.open += 1
            return true
        }
        guard opened else { throw RPCError(code: .failedPrecondition, message: "AirlockGRPCTransport is shutting down: it takes no more calls.") }
        defer { callEnded() }
        let (requests, requestWriter) = AsyncThrowingStream<RPCRequestPart<Bytes>, any Error>.makeStream()
        let (responses, responseWriter) = AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.makeStream()
        let call = Call(registry: registry, url: "http://\(authority)/\(descriptor.fullyQualifiedMethod)", responses: responseWriter)
        let stream = RPCStream(
            descriptor: descriptor,
            inbound: RPCAsyncSequence(wrapping: responses),
            outbound: RPCWriter.Closable(wrapping: RequestWriter(continuation: requestWriter))
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            // The request as the client sends it; answered once it has sent everything.
            group.addTask {
                var parts: [RPCRequestPart<Bytes>] = []
                do {
                    for try await part in requests { parts.append(part) }
                } catch {
                    return responseWriter.finish(throwing: error)
                }
                call.start(parts)
            }
            let context = ClientContext(descriptor: descriptor, remotePeer: "in-process:airlock", localPeer: "in-process:airlock")
            do {
                let result = try await closure(stream, context)
                requestWriter.finish()
                call.cancel()
                try await group.waitForAll()
                return result
            } catch {
                requestWriter.finish(throwing: error)
                call.cancel()
                group.cancelAll()
                throw error
            }
        }
    }

    private func callEnded() {
        let finished = state.withLock { state -> AsyncStream<Void>.Continuation? in
            state.open -= 1
            guard state.isClosing, state.open == 0 else { return nil }
            defer { state.connection = nil }
            return state.connection
        }
        finished?.finish()
    }
}

/// The writer a call's client sends its request parts into.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
private struct RequestWriter: ClosableRPCWriterProtocol {
    let continuation: AsyncThrowingStream<RPCRequestPart<[UInt8]>, any Error>.Continuation

    func write(_ element: RPCRequestPart<[UInt8]>) async throws {
        continuation.yield(element)
    }

    func write(contentsOf elements: some Sequence<RPCRequestPart<[UInt8]>>) async throws {
        for element in elements { continuation.yield(element) }
    }

    func finish() async {
        continuation.finish()
    }

    func finish(throwing error: any Error) async {
        continuation.finish(throwing: error)
    }
}
