import AirlockGRPC
import Foundation
import MockServer
import Testing

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run: the
// gRPC serving tests (Tests/AirlockGRPCTests) run the same calls with a real gRPC client.

// AirlockGRPC's Mocking gRPC Services: serve it from a test.
@Suite(.disabled("a documentation sample: compiled, not run"))
struct GRPCSample {
    @Test func showsTheShippedOrder() async throws {
        let server = MockServer()
        server.serveGRPC(try GRPCServices(descriptorSetAt: URL(fileURLWithPath: "Fixtures/orders.pb")))
        server.addResponses(forPath: "/shop.OrderService/GetOrder", host: "**") {
            MockResponse.grpc(#"{"id": "42", "status": "STATUS_SHIPPED"}"#, metadata: ["x-request-id": "r-1"])
        }
        try await server.start()
        // The app's gRPC client connects to 127.0.0.1:\(server.port) over plaintext HTTP/2.
        try await server.shutdown()
    }

    // AirlockGRPC's landing page.
    func landingPage() throws {
        let server = MockServer()
        server.serveGRPC(try GRPCServices(descriptorSetAt: URL(fileURLWithPath: "Fixtures/orders.pb")))
        server.addResponses(forPath: "/shop.OrderService/GetOrder", host: "**") {
            MockResponse.grpc(#"{"id": "42", "status": "STATUS_OPEN"}"#)
            MockResponse.grpcStatus(.notFound, message: "no order 42")
        }
    }
}
