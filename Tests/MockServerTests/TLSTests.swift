#if HTTPS
import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import MockServerHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SwiftASN1
import Testing
import X509

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// HTTPS through the real path: real TLS handshakes against a generated CA, with certificate
/// verification on in every client (no test turns it off).
struct TLSTests {
    /// A fresh CA folder for one test, removed afterwards.
    static func withCAFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-ca-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    /// A mock with one stub for `api.example.test/users`, served with TLS on.
    static func withTLSServer(caFolder: URL, _ body: (MockServer, HTTPMock) async throws -> Void) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "api.example.test") { MockResponse.plaintext("secure users", lifetime: .eternal) }
        try await withServer(mock, configuration: .init(tls: .init(certificateAuthorityDirectory: caFolder))) { server in
            try await body(server, mock)
        }
    }

    /// An AsyncHTTPClient on the test event loops; always shut down.
    static func withClient(_ configuration: HTTPClient.Configuration, _ body: (HTTPClient) async throws -> Void) async throws {
        var configuration = configuration
        configuration.timeout = .init(connect: hangGuard, read: hangGuard)
        // A refused certificate is reported at once instead of being retried until the time-out.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: testEventLoops, configuration: configuration)
        do {
            try await body(client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    // MARK: Proxy mode

    @Test(arguments: ["https://api.example.test/users", "https://api.example.test:8443/users", "http://api.example.test/users"])
    func asyncHTTPClientThroughTheProxyGetsTheStubWithVerificationOn(url: String) async throws {
        try await Self.withCAFolder { folder in
            try await Self.withTLSServer(caFolder: folder) { server, mock in
                try await Self.withClient(server.httpClientConfiguration()) { client in
                    let response = try await send(client, url)
                    #expect(response.status == 200)
                    #expect(response.text == "secure users")
                }
                // The stub saw the URL the client called, scheme included.
                #expect(mock.requests.map(\.url) == [url])
            }
        }
    }

    @Test func aClientThatDoesNotTrustTheCAFailsVerification() async throws {
        try await Self.withCAFolder { folder in
            try await Self.withTLSServer(caFolder: folder) { server, mock in
                var configuration = HTTPClient.Configuration()
                configuration.proxy = .server(host: "127.0.0.1", port: server.port)
                try await Self.withClient(configuration) { client in
                    let error = await #expect(throws: (any Error).self) { _ = try await send(client, "https://api.example.test/users") }
                    #expect("\(error.map { "\($0)" } ?? "")".contains("CERTIFICATE_VERIFY_FAILED"), "\(String(describing: error))")
                }
                #expect(mock.requests.isEmpty, "no request may pass an unverified handshake")
            }
        }
    }

    @Test func anotherCAIsNotTrustedEither() async throws {
        try await Self.withCAFolder { folder in
            try await Self.withCAFolder { otherFolder in
                let other = try CertificateAuthority.loadOrCreate(in: otherFolder)
                try await Self.withTLSServer(caFolder: folder) { server, _ in
                    var configuration = HTTPClient.Configuration()
                    configuration.proxy = .server(host: "127.0.0.1", port: server.port)
                    var tls = TLSConfiguration.makeClientConfiguration()
                    tls.trustRoots = .certificates([try other.nioSSLCertificate])
                    configuration.tlsConfiguration = tls
                    try await Self.withClient(configuration) { client in
                        let error = await #expect(throws: (any Error).self) { _ = try await send(client, "https://api.example.test/users") }
                        #expect("\(error.map { "\($0)" } ?? "")".contains("CERTIFICATE_VERIFY_FAILED"), "\(String(describing: error))")
                    }
                }
            }
        }
    }

    @Test func connectToPort443IsNoLongerRefused() async throws {
        try await Self.withCAFolder { folder in
            try await Self.withTLSServer(caFolder: folder) { server, _ in
                let answer = try await withRawConnection(to: server) { connection in
                    try await connection.send("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
                    await connection.read { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
                    return connection.text
                }
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            }
        }
    }

    // MARK: Origin mode

    @Test func originModeServesHTTPSAtTheBaseURL() async throws {
        try await Self.withCAFolder { folder in
            let mock = HTTPMock()
            mock.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("origin users", lifetime: .eternal) }
            try await withServer(mock, configuration: .init(tls: .init(certificateAuthorityDirectory: folder))) { server in
                #expect(server.baseURL.scheme == "https")
                var configuration = HTTPClient.Configuration()
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.additionalTrustRoots = [.file(try #require(server.certificateAuthority).certificateFile.path)]
                configuration.tlsConfiguration = tls
                // By address (the certificate names 127.0.0.1), and by a name mapped to it (SNI).
                configuration.dnsOverride = ["api.example.test": "127.0.0.1"]
                try await Self.withClient(configuration) { client in
                    let byAddress = try await send(client, "\(server.baseURL.absoluteString)/users")
                    #expect(byAddress.status == 200 && byAddress.text == "origin users")
                    let byName = try await send(client, "https://api.example.test:\(server.port)/users")
                    #expect(byName.status == 200 && byName.text == "origin users")
                }
                #expect(mock.requests.map(\.url) == ["\(server.baseURL.absoluteString)/users", "https://api.example.test:\(server.port)/users"])
            }
        }
    }

    /// The traffic page's "Add as stub" over HTTPS: a browser sends the page's own origin,
    /// `https://127.0.0.1:PORT`, with its POST; the admin API takes it, and still refuses another
    /// origin and the same host and port under the other scheme. A plain-HTTP connection to the
    /// same port (one port serves both) is the other way round.
    @Test func theAdminAPIAcceptsItsOwnHTTPSOriginAndRefusesOthers() async throws {
        try await Self.withCAFolder { folder in
            try await withServer(HTTPMock(), configuration: .init(tls: .init(certificateAuthorityDirectory: folder))) { server in
                var configuration = HTTPClient.Configuration()
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.additionalTrustRoots = [.file(try #require(server.certificateAuthority).certificateFile.path)]
                configuration.tlsConfiguration = tls
                try await Self.withClient(configuration) { (client: HTTPClient) async throws -> Void in
                    let add = { (path: String, base: String, origin: String) async throws -> Int in
                        let stub = #"{"stubs": [{"path": "\#(path)", "responses": [{"body": "added", "lifetime": "eternal"}]}]}"#
                        return try await send(client, base + "/__admin/stubs", method: .POST, headers: [("Content-Type", "application/json"), ("Origin", origin)], body: stub).status
                    }
                    let https = "https://127.0.0.1:\(server.port)"
                    let http = "http://127.0.0.1:\(server.port)"
                    #expect(server.baseURL.absoluteString == https)
                    #expect(try await add("/own", https, https) == 201)
                    #expect(try await add("/own-localhost", https, "https://localhost:\(server.port)") == 201)
                    #expect(try await add("/foreign", https, "https://evil.example") == 403)
                    #expect(try await add("/other-port", https, "https://127.0.0.1:\(server.port == 1 ? 2 : server.port - 1)") == 403)
                    #expect(try await add("/wrong-scheme", https, http) == 403)
                    #expect(try await add("/plain", http, http) == 201)
                    #expect(try await add("/plain-wrong-scheme", http, https) == 403)
                    #expect(try await send(client, https + "/own").text == "added")
                    #expect(try await send(client, https + "/foreign").status == 404)
                    #expect(try await send(client, https + "/wrong-scheme").status == 404)
                    #expect(try await send(client, https + "/plain-wrong-scheme").status == 404)
                }
            }
        }
    }

    // MARK: Certificates

    @Test(arguments: [("api.example.test", GeneralName.dnsName("api.example.test")), (nil, GeneralName.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))])
    func theServedCertificateNamesTheHostAndIsSignedByTheCA(serverName: String?, expectedName: GeneralName) async throws {
        try await Self.withCAFolder { folder in
            try await Self.withTLSServer(caFolder: folder) { server, _ in
                let authority = try #require(server.certificateAuthority)
                let served = try await Self.handshake(port: server.port, serverName: serverName, trusting: authority)
                let leaf = try Certificate(derEncoded: try served.toDERBytes())

                #expect(try leaf.extensions.subjectAlternativeNames.map(Array.init) == [expectedName])
                #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
                #expect(try leaf.extensions.extendedKeyUsage.map(Array.init) == [.serverAuth])
                #expect(try leaf.extensions.keyUsage?.digitalSignature == true)
                #expect(try leaf.extensions.keyUsage?.keyCertSign == false)
                #expect(leaf.issuer == authority.certificate.subject)
                #expect(leaf.notValidBefore < Date() && leaf.notValidAfter > Date().addingTimeInterval(7 * 24 * 3600))
                // Signed by the CA's key.
                #expect(authority.certificate.publicKey.isValidSignature(leaf.signature, for: leaf))
            }
        }
    }

    @Test func theCACertificateIsAConstrainedCAAndItsKeyIsPrivate() async throws {
        try await Self.withCAFolder { folder in
            let authority = try CertificateAuthority.loadOrCreate(in: folder)
            // Parsed back from the file clients are given.
            let certificate = try Certificate(pemEncoded: String(contentsOf: authority.certificateFile, encoding: .utf8))
            #expect(certificate == authority.certificate)
            #expect(try certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
            #expect(certificate.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
            let usage = try #require(try certificate.extensions.keyUsage)
            #expect(usage.keyCertSign && usage.cRLSign && !usage.digitalSignature)
            #expect(certificate.extensions[oid: .X509ExtensionID.keyUsage]?.critical == true)
            #expect(certificate.subject == certificate.issuer)
            #expect(certificate.notValidBefore < Date())

            let keyAttributes = try FileManager.default.attributesOfItem(atPath: authority.privateKeyFile.path)
            #expect((keyAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let keyText = try String(contentsOf: authority.privateKeyFile, encoding: .utf8)
            #expect(keyText.contains("PRIVATE KEY"))
            #expect(!(try String(contentsOf: authority.certificateFile, encoding: .utf8)).contains("PRIVATE KEY"))
        }
    }

    @Test func theCASurvivesARestart() async throws {
        try await Self.withCAFolder { folder in
            var first: [UInt8] = []
            try await Self.withTLSServer(caFolder: folder) { server, _ in
                first = try #require(server.certificateAuthority).derRepresentation
            }
            try await Self.withTLSServer(caFolder: folder) { server, _ in
                #expect(try #require(server.certificateAuthority).derRepresentation == first)
                // A client that trusts the file written by the first run is served by the second.
                var configuration = HTTPClient.Configuration()
                configuration.proxy = .server(host: "127.0.0.1", port: server.port)
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.additionalTrustRoots = [.file(folder.appendingPathComponent(CertificateAuthority.certificateFileName).path)]
                configuration.tlsConfiguration = tls
                try await Self.withClient(configuration) { client in
                    let response = try await send(client, "https://api.example.test/users")
                    #expect(response.text == "secure users")
                }
            }
            #expect(!first.isEmpty)
        }
    }

    @Test func concurrentFirstUsesAgreeOnOneCA() async throws {
        try await Self.withCAFolder { folder in
            let certificates = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for _ in 0..<8 {
                    group.addTask { try CertificateAuthority.loadOrCreate(in: folder).derRepresentation }
                }
                return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
            }
            #expect(Set(certificates).count == 1)
            let inFile = try Certificate(pemEncoded: String(contentsOf: folder.appendingPathComponent(CertificateAuthority.certificateFileName), encoding: .utf8))
            let returned = try Certificate(derEncoded: certificates[0])
            #expect(inFile == returned)
        }
    }

    // MARK: Bad input

    @Test func aCorruptKeyFileIsReportedWithTheFileAndTheFix() async throws {
        try await Self.withCAFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let keyFile = folder.appendingPathComponent(CertificateAuthority.privateKeyFileName)
            try Data("not a key\n".utf8).write(to: keyFile)
            let server = MockServer(configuration: .init(eventLoopGroup: testEventLoops, tls: .init(certificateAuthorityDirectory: folder)))
            let error = await #expect(throws: MockServerError.self) { try await server.start() }
            #expect(error?.code == .certificateAuthorityInvalid)
            #expect(error?.description.contains(keyFile.path) == true, "\(String(describing: error))")
            #expect(error?.description.contains("Delete the folder") == true, "\(String(describing: error))")
        }
    }

    @Test func aCAFolderThatCannotBeMadeIsReportedWithTheFolder() async throws {
        try await Self.withCAFolder { folder in
            // A folder inside a regular file cannot be created, even by root.
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            let inside = file.appendingPathComponent("ca")
            let error = #expect(throws: MockServerError.self) { _ = try CertificateAuthority.loadOrCreate(in: inside) }
            #expect(error?.code == .certificateAuthorityUnavailable)
            #expect(error?.description.contains(inside.path) == true, "\(String(describing: error))")
        }
    }

    // MARK: curl

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed at /usr/bin/curl"))
    func curlWithTheCACertificateThroughTheProxy() async throws {
        try await Self.withCAFolder { folder in
            try await Self.withTLSServer(caFolder: folder) { server, _ in
                let caFile = try #require(server.certificateAuthority).certificateFile.path
                let trusted = try await Self.curl(["--proxy", "http://127.0.0.1:\(server.port)", "--cacert", caFile, "https://api.example.test/users"])
                #expect(trusted.status == 0, "\(trusted.errors)")
                #expect(trusted.output == "secure users")
                // The same call without the CA: curl refuses the certificate (exit 60).
                let untrusted = try await Self.curl(["--proxy", "http://127.0.0.1:\(server.port)", "https://api.example.test/users"])
                #expect(untrusted.status == 60, "\(untrusted.errors)")
                // An HTTPS proxy (TLS to the server, then CONNECT and TLS again inside), and origin mode.
                let httpsProxy = try await Self.curl(["--proxy", "https://127.0.0.1:\(server.port)", "--proxy-cacert", caFile, "--cacert", caFile, "https://api.example.test/users"])
                #expect(httpsProxy.status == 0, "\(httpsProxy.errors)")
                #expect(httpsProxy.output == "secure users")
                let origin = try await Self.curl(["--cacert", caFile, "-H", "Host: api.example.test", "\(server.baseURL.absoluteString)/users"])
                #expect(origin.status == 0, "\(origin.errors)")
                #expect(origin.output == "secure users")
            }
        }
    }

    // MARK: Helpers

    /// Runs curl quietly (no configuration file of the user's) and returns its exit status and output.
    static func curl(_ arguments: [String]) async throws -> (status: Int32?, output: String, errors: String) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--disable", "--silent", "--show-error", "--max-time", "60"] + arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "CURL_CA_BUNDLE", "SSL_CERT_FILE"] {
            environment[name] = nil
        }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let status = await (try ChildProcess(running: process)).status()
        return (
            status,
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    /// Connects to the server directly, completes a TLS handshake that verifies the certificate
    /// against `authority` only (and the host name, or the address without one), and returns the
    /// certificate the server showed.
    static func handshake(port: Int, serverName: String?, trusting authority: CertificateAuthority) async throws -> NIOSSLCertificate {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try authority.nioSSLCertificate])
        let context = try NIOSSLContext(configuration: tls)
        let handshaken = testEventLoops.next().makePromise(of: NIOSSLCertificate.self)
        let channel = try await connectToLoopback(port: port, completing: handshaken) { pipeline in
            try pipeline.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
            try pipeline.addHandler(HandshakeWatcher(handshaken))
        }
        let deadline = channel.eventLoop.scheduleTask(in: hangGuard) { channel.close(promise: nil) }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        return try await handshaken.futureResult.get()
    }
}

/// Hands over the peer's certificate when the TLS handshake completes, or the error.
private final class HandshakeWatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let handshaken: EventLoopPromise<NIOSSLCertificate>
    private var isDone = false

    init(_ handshaken: EventLoopPromise<NIOSSLCertificate>) {
        self.handshaken = handshaken
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent, !isDone {
            isDone = true
            let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
            if let certificate = handler?.peerCertificate {
                handshaken.succeed(certificate)
            } else {
                handshaken.fail(ChannelError.inappropriateOperationForState)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !isDone {
            isDone = true
            handshaken.fail(error)
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !isDone {
            isDone = true
            handshaken.fail(ChannelError.ioOnClosedChannel)
        }
        context.fireChannelInactive()
    }
}
#endif
