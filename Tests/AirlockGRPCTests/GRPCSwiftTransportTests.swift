import AirlockGRPC
import AirlockGRPCInProcess
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import HTTPMock
import MockServer
import ProcessSupport
import Testing

/// A grpc-swift 2 client (the generated code of Generated/) answered by stubs written in JSON: over
/// its own HTTP/2 transport to a MockServer, and in-process through ``AirlockGRPCTransport``. The
/// same calls, the same answers.
struct GRPCSwiftTransportTests {
    /// The stubs both ways serve: an order, a paced stream, a status, and a client stream matched
    /// on its second message.
    static func addStubs(to mock: some Mocking) throws {
        mock.serveGRPC(try GRPCServices(descriptorSetAt: GRPCIOClient.descriptorSet))
        mock.addResponses(forPath: "/airlock.test.orders.OrderService/GetOrder", host: "**") {
            MockResponse.grpc(
                #"{"id": "42", "status": "STATUS_SHIPPED", "items": [{"sku": "A-1", "quantity": 2}], "createdAt": "2026-11-29T08:00:00Z"}"#,
                metadata: ["x-request-id": "r-1"], trailingMetadata: ["x-cost": "3"]
            )
            MockResponse.grpcStatus(.notFound, message: "no order 7")
        }
        mock.addResponses(forPath: "/airlock.test.orders.OrderService/WatchOrders", host: "**") {
            MockResponse.grpcStream([
                StreamPart(#"{"orderId": "42", "status": "STATUS_OPEN"}"#),
                StreamPart(#"{"orderId": "42", "status": "STATUS_SHIPPED"}"#, after: 0.3),
            ])
        }
        mock.addResponses(forPath: "/airlock.test.orders.OrderService/UploadItems", host: "**") {
            MockResponse.grpc(#"{"count": 2, "total": {"currencyCode": "EUR", "units": "12"}}"#)
        }
    }

    /// What the calls got, for both ways to compare.
    struct Seen: Sendable, Equatable {
        var order: String
        var requestID: String?
        var cost: String?
        var notFound: String
        var events: [String]
        var pause: Double
        var summary: Int32
        var miss: RPCError.Code?
        var missMessage: String
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func calls(_ client: GRPCClient<some ClientTransport>) async throws -> Seen {
        let orders = Airlock_Test_Orders_OrderService.Client(wrapping: client)
        let (order, requestID, cost) = try await orders.getOrder(.with { $0.id = "42" }) { response in
            (try response.message, response.metadata[stringValues: "x-request-id"].first(where: { _ in true }), response.trailingMetadata[stringValues: "x-cost"].first(where: { _ in true }))
        }
        var notFound = ""
        do {
            _ = try await orders.getOrder(.with { $0.id = "7" })
        } catch let error as RPCError {
            notFound = "\(error.code) \(error.message)"
        }
        // From the call's start to the second message: at least the stub's pause (a client read
        // late has both at once, never one early).
        let started = ContinuousClock.now
        let (events, pause) = try await orders.watchOrders(.with { $0.id = "42" }) { response in
            var events: [String] = []
            var arrivals: [ContinuousClock.Instant] = []
            for try await event in response.messages {
                events.append("\(event.orderID) \(event.status)")
                arrivals.append(.now)
            }
            let pause = arrivals.count == 2 ? started.duration(to: arrivals[1]) : .zero
            return (events, Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
        }
        let summary = try await orders.uploadItems(requestProducer: { writer in
            try await writer.write(.with { $0.sku = "A" })
            try await writer.write(.with { $0.sku = "B" })
        })
        // No stub for Chat: a miss, with the mock's near-miss text.
        var miss: RPCError.Code?
        var missMessage = ""
        do {
            try await orders.chat(requestProducer: { writer in try await writer.write(.with { $0.orderID = "1" }) }) { response in
                for try await _ in response.messages {}
            }
        } catch let error as RPCError {
            miss = error.code
            missMessage = error.message
        }
        return Seen(
            order: "\(order.id) \(order.status) \(order.items.first?.sku ?? "") \(order.createdAt.seconds)", requestID: requestID, cost: cost, notFound: notFound,
            events: events, pause: pause, summary: summary.count, miss: miss, missMessage: missMessage
        )
    }

    /// What both ways must see.
    static func expect(_ seen: Seen, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(seen.order == "42 shipped A-1 1795939200", sourceLocation: sourceLocation)
        #expect(seen.requestID == "r-1", sourceLocation: sourceLocation)
        #expect(seen.cost == "3", sourceLocation: sourceLocation)
        #expect(seen.notFound == "notFound no order 7", sourceLocation: sourceLocation)
        #expect(seen.events == ["42 open", "42 shipped"], sourceLocation: sourceLocation)
        // A lower bound only: the stub's pause, never less.
        #expect(seen.pause >= 0.25, "\(seen.pause)", sourceLocation: sourceLocation)
        #expect(seen.summary == 2, sourceLocation: sourceLocation)
        #expect(seen.miss == .notFound, sourceLocation: sourceLocation)
        #expect(seen.missMessage.contains("/airlock.test.orders.OrderService/Chat"), "\(seen.missMessage)", sourceLocation: sourceLocation)
    }

    @Test func overHTTP2ToAMockServer() async throws {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
        let server = MockServer(configuration: .init(limits: .init(headerTimeout: 3_600, idleTimeout: 3_600)))
        try Self.addStubs(to: server)
        try await server.start()
        do {
            let port = server.port
            let seen = try await withTimeout("grpc-swift calls to 127.0.0.1:\(port)") {
                let transport = try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
                return try await withGRPCClient(transport: transport) { client in try await Self.calls(client) }
            }
            Self.expect(seen)
            // The journal keeps each call's messages as JSON; the client stream's as an array.
            let upload = server.requests.first { $0.path == "/airlock.test.orders.OrderService/UploadItems" }
            #expect(upload.map { String(decoding: $0.body ?? Data(), as: UTF8.self) } == #"[{"sku":"A"},{"sku":"B"}]"#)
            #expect(upload?.httpVersion == "HTTP/2")
            try await server.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    @Test func inProcessThroughAirlockGRPCTransport() async throws {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
        let mock = HTTPMock()
        try Self.addStubs(to: mock)
        let seen = try await withTimeout("grpc-swift calls in-process") {
            try await withGRPCClient(transport: AirlockGRPCTransport(mock: mock)) { client in try await Self.calls(client) }
        }
        Self.expect(seen)
        let get = mock.requests.first { $0.path == "/airlock.test.orders.OrderService/GetOrder" }
        #expect(get.map { String(decoding: $0.body ?? Data(), as: UTF8.self) } == #"{"id":"42"}"#)
        #expect(get?.httpVersion == nil)
    }

    /// Without the services a call is answered from raw stubs; a miss is UNIMPLEMENTED, as a
    /// gRPC client maps a `404`; and a transport shut down takes no more calls.
    @Test func inProcessWithoutTheServicesAndAfterShutdown() async throws {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
        let mock = HTTPMock()
        let transport = AirlockGRPCTransport(mock: mock)
        let code = try await withTimeout("a call with no services") { () -> RPCError.Code? in
            try await withGRPCClient(transport: transport) { client in
                do {
                    _ = try await Airlock_Test_Orders_OrderService.Client(wrapping: client).getOrder(.with { $0.id = "1" })
                    return nil
                } catch let error as RPCError {
                    return error.code
                }
            }
        }
        #expect(code == .unimplemented)
        await #expect(throws: RPCError.self) {
            try await transport.withStream(descriptor: MethodDescriptor(fullyQualifiedService: "airlock.test.orders.OrderService", method: "GetOrder"), options: .defaults) { _, _ in }
        }
    }
}
