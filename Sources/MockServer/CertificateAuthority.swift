import AirlockBase
import AirlockCore
import Foundation
import NIOSSL

/// The certificate authority that signs the certificates a ``MockServer`` shows when it serves
/// HTTPS: made once, kept in a folder, and reused across runs, so that a client trusts it once.
///
/// A server with ``MockServer/Configuration/tls`` loads the CA from its folder when it starts (and
/// makes it there on first use), then makes a certificate for each host name a client asks for (by
/// SNI, or by its `CONNECT` target) on demand. Clients trust the CA, not each certificate:
///
/// ```swift
/// let server = MockServer(configuration: .init(tls: .init()))
/// try await server.start()
/// let client = HTTPClient(configuration: server.httpClientConfiguration())   // trusts the CA
/// // curl --proxy http://127.0.0.1:<port> --cacert <server.certificateAuthority!.certificateFile.path> https://api.example.com/
/// ```
///
/// The folder holds two files: ``certificateFile`` (`airlock-ca.pem`, the certificate to trust)
/// and `airlock-ca-key.pem` (the private key with the certificate, written with permissions
/// `0600`). The CA certificate is `CA:true` (critical, path length 0) with key usages
/// `keyCertSign` and `cRLSign`; each host's certificate names the host in its subject alternative
/// names (a DNS name, or an IP address for an IP host) and allows `serverAuth` only.
///
/// Making and loading a CA needs the package's `HTTPS` trait (swift-certificates and swift-crypto):
/// `.package(path: "../Airlock", traits: ["HTTPS"])`. Without it ``loadOrCreate(in:)`` — and so a
/// server with ``MockServer/Configuration/tls`` — throws ``MockServerError/Code/httpsUnavailable``.
///
/// > Warning: Whoever holds the key can make certificates for any host name that your machine then
/// > trusts. Keep the folder out of version control (the default, under `.build/`, is), and trust
/// > the CA only in test clients, not in your system's or browser's store.
public final class CertificateAuthority: Sendable {
    /// The folder the CA lives in.
    public let directory: URL
    /// The key and certificate (see `CertificateAuthority+Material.swift`).
    let material: Material

    /// The name of the file with the CA certificate (PEM), the file clients trust.
    public static let certificateFileName = "airlock-ca.pem"
    /// The name of the file with the CA's private key and certificate (PEM, permissions `0600`).
    public static let privateKeyFileName = "airlock-ca-key.pem"

    /// How long the certificates made for hosts are valid. They live in memory only and are made
    /// again when they come near their end.
    static let leafValidity: TimeInterval = 30 * 24 * 3600
    /// How far in the past validity starts, so that a client whose clock is a little behind still
    /// accepts a certificate made a moment ago.
    static let backdating: TimeInterval = 3600

    /// The file with the CA certificate (PEM): give it to clients (`curl --cacert`,
    /// `TLSConfiguration.additionalTrustRoots`, `NODE_EXTRA_CA_CERTS`).
    public var certificateFile: URL { directory.appendingPathComponent(Self.certificateFileName) }

    /// The file with the CA's private key (and its certificate).
    public var privateKeyFile: URL { directory.appendingPathComponent(Self.privateKeyFileName) }

    /// The CA certificate as PEM text.
    public var pemRepresentation: String { material.certificatePEM }

    /// The CA certificate as DER bytes.
    public var derRepresentation: [UInt8] { material.certificateDER }

    /// The CA certificate for SwiftNIO's TLS configuration (`trustRoots`, `additionalTrustRoots`).
    public var nioSSLCertificate: NIOSSLCertificate {
        get throws { try NIOSSLCertificate(bytes: derRepresentation, format: .der) }
    }

    /// The folder a CA is kept in unless one is given: `$AIRLOCK_CA_DIR` when set, otherwise
    /// `.build/airlock-ca` in the current directory (the package's build folder when run by
    /// `swift test` or `swift run`), which version control already ignores.
    public static var defaultDirectory: URL {
        if let configured = ProcessInfo.processInfo.environment["AIRLOCK_CA_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
            .appendingPathComponent(".build", isDirectory: true)
            .appendingPathComponent("airlock-ca", isDirectory: true)
    }

    init(directory: URL, material: Material) {
        self.directory = directory
        self.material = material
    }

    /// Loads the CA kept in a folder, or makes one there when the folder has none.
    ///
    /// Making is safe when several processes start at once: the key file is put in place with
    /// one atomic link, and whoever comes second loads the first one's CA.
    ///
    /// - Parameter directory: The folder; it is created (with permissions `0700`) if missing.
    /// - Returns: The CA.
    /// - Throws: ``MockServerError`` with code ``MockServerError/Code/certificateAuthorityUnavailable``
    ///   when the folder or its files cannot be created or read, and
    ///   ``MockServerError/Code/certificateAuthorityInvalid`` when the key file is not an Airlock CA;
    ///   each names the file and the fix; ``MockServerError/Code/httpsUnavailable`` when the package
    ///   was built without its `HTTPS` trait.
    public static func loadOrCreate(in directory: URL) throws -> CertificateAuthority {
        guard canMakeCertificates else { throw MockServerError.httpsUnavailable() }
        let directory = directory.standardizedFileURL
        return try creation.withLock {
            try FileStore(directory: directory).loadOrCreate()
        }
    }

    /// One CA made at a time in this process (other processes are handled by the atomic link).
    private static let creation = Locked()

    /// A host as certificates name it: lowercased, without brackets or a trailing dot.
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// The bytes of an IPv4 or IPv6 literal, or `nil` for a host name.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

/// Why a key file is not a usable CA, for the error message.
struct CertificateAuthorityProblem: Error {
    let reason: String

    init(_ reason: String) { self.reason = reason }
}
