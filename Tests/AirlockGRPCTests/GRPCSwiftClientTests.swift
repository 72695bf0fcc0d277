import GRPCCore
import GRPCNIOTransportHTTP2Posix
import MockServer
import ProcessSupport
import XCTest

/// A gRPC client no one here wrote (grpc-swift 2 over its HTTP/2 transport, with the code its
/// plugins generated from Tests/Fixtures/GRPC's protos, committed in Generated/) calling MockServer
/// on its plain port (h2c with prior knowledge).
final class GRPCSwiftClientTests: XCTestCase {
    /// A server given no gRPC services (no `serveGRPC`) answers a call as any miss, `404`, which
    /// grpc-swift maps to UNIMPLEMENTED (gRPC's HTTP-to-status mapping). The journal has the request as the client
    /// sent it, over HTTP/2 on the method's path. It proves the generated client and its HTTP/2
    /// reach the server and come back.
    func testAUnaryCallTheServerCannotAnswerIsUnimplemented() async throws {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else {
            throw XCTSkip("grpc-swift 2 needs macOS 15, iOS 18, watchOS 11, tvOS 18 or visionOS 2")
        }
        let server = MockServer()
        try await server.start()
        do {
            let port = server.port
            let outcome = try await withTimeout("GetOrder to 127.0.0.1:\(port)") { () -> Result<Airlock_Test_Orders_Order, RPCError> in
                let transport = try HTTP2ClientTransport.Posix(
                    target: .ipv4(address: "127.0.0.1", port: port),
                    transportSecurity: .plaintext
                )
                // The client runs its connections until the closure returns, then shuts down
                // gracefully; withGRPCClient returns once they have closed.
                return try await withGRPCClient(transport: transport) { client in
                    let orders = Airlock_Test_Orders_OrderService.Client(wrapping: client)
                    do {
                        return .success(try await orders.getOrder(.with { $0.id = "A-1" }))
                    } catch let error as RPCError {
                        return .failure(error)
                    }
                }
            }
            switch outcome {
            case .success(let order):
                XCTFail("the call succeeded: \(order)")
            case .failure(let error):
                XCTAssertEqual(error.code, .unimplemented, "\(error)")
            }
            let requests = server.requests
            XCTAssertEqual(requests.count, 1, "\(requests)")
            XCTAssertEqual(requests.first?.method, "POST")
            XCTAssertEqual(requests.first?.path, "/airlock.test.orders.OrderService/GetOrder")
            XCTAssertEqual(requests.first?.httpVersion, "HTTP/2")
            try await server.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}
