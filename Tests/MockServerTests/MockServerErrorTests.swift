import Foundation
import HTTPMock
import MockServer
import Testing

/// A server that cannot start throws a `MockServerError` whose code says why, beside the message
/// that says how to fix it.
struct MockServerErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let configuration: MockServer.Configuration
        let code: MockServerError.Code
        /// Text the message must contain.
        let says: String
        /// The input the error names.
        let input: String

        var testDescription: String { "\(code)" }
    }

    static let cases: [Case] = [
        Case(configuration: .init(host: "0.0.0.0"), code: .nonLoopbackBindingRefused, says: "allowsNonLoopbackBinding", input: "0.0.0.0"),
        Case(configuration: .init(host: "0.0.0.0", allowsNonLoopbackBinding: true), code: .adminTokenRequired, says: "set an adminToken", input: "0.0.0.0"),
        Case(configuration: .init(limits: .init(maxConnections: 0)), code: .invalidLimits, says: "the connection limit 0", input: "ConnectionLimits.maxConnections"),
        Case(configuration: .init(limits: .init(idleTimeout: 0)), code: .invalidLimits, says: "the idle timeout is 0 seconds", input: "ConnectionLimits.idleTimeout"),
        Case(configuration: trusting("/no/such/ca.pem"), code: .upstreamTrustUnusable, says: "cannot trust the certificates of /no/such/ca.pem for upstreams: it cannot be read", input: "/no/such/ca.pem"),
        // A file that is not PEM: this test's own source.
        Case(configuration: trusting(#filePath), code: .upstreamTrustUnusable, says: "it holds no PEM certificate (a block from -----BEGIN CERTIFICATE-----", input: #filePath),
    ]

    /// A configuration trusting the certificates of `file` for upstreams.
    static func trusting(_ file: String) -> MockServer.Configuration {
        var configuration = MockServer.Configuration()
        configuration.upstreamTrustedCertificates = [URL(fileURLWithPath: file)]
        return configuration
    }

    @Test(arguments: cases)
    func aServerThatCannotStartSaysWhyInItsCode(_ bad: Case) async throws {
        var configuration = bad.configuration
        configuration.eventLoopGroup = testEventLoops
        let server = MockServer(configuration: configuration)
        let error = await #expect(throws: MockServerError.self) { try await server.start() }
        #expect(error?.code == bad.code)
        #expect(error?.code.description == "\(bad.code)")
        #expect(error?.description.contains(bad.says) == true, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.input == bad.input)
    }

    @Test func aTakenPortIsAddressInUse() async throws {
        try await withServer(HTTPMock()) { running in
            let second = MockServer(configuration: .init(port: running.port, eventLoopGroup: testEventLoops))
            let error = await #expect(throws: MockServerError.self) { try await second.start() }
            #expect(error?.code == .addressInUse)
            #expect(error?.input == "127.0.0.1:\(running.port)")
            #expect(error?.description.contains("another process is using the port") == true)
        }
    }

    @Test func codesCompareAndNameThemselves() {
        #expect(MockServerError.Code.addressInUse == .addressInUse)
        #expect(MockServerError.Code.addressInUse != .bindFailed)
        #expect(MockServerError.Code.certificateAuthorityInvalid.description == "certificateAuthorityInvalid")
    }
}
