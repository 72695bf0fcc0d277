import AirlockGRPC
import AirlockGRPCInProcess
import Foundation
import GRPCCore
import HTTPMock
import Testing

// AirlockGRPCInProcess's landing page. Compiled, not run: the gRPC tests
// (Tests/AirlockGRPCTests/GRPCSwiftTransportTests.swift) run a generated client through it.
@Suite(.disabled("a documentation sample: compiled, not run"))
struct GRPCInProcessSample {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func landingPage() async throws {
        let mock = HTTPMock()
        mock.serveGRPC(try GRPCServices(descriptorSetAt: URL(fileURLWithPath: "Fixtures/orders.pb")))
        mock.addResponses(forPath: "/shop.OrderService/GetOrder", host: "**") {
            MockResponse.grpc(#"{"id": "42", "status": "STATUS_OPEN"}"#)
        }
        try await withGRPCClient(transport: AirlockGRPCTransport(mock: mock)) { client in
            // Shop_OrderService.Client(wrapping: client) — the app's generated client — calls the mock.
        }
    }
}
