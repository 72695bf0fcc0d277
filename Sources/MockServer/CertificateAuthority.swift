import AirlockCore
import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

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
/// > Warning: Whoever holds the key can make certificates for any host name that your machine then
/// > trusts. Keep the folder out of version control (the default, under `.build/`, is), and trust
/// > the CA only in test clients, not in your system's or browser's store.
public final class CertificateAuthority: Sendable {
    /// The folder the CA lives in.
    public let directory: URL
    /// The CA certificate.
    public let certificate: Certificate
    private let privateKey: P256.Signing.PrivateKey

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
    public var pemRepresentation: String {
        // Serialising a certificate this type parsed or made cannot fail.
        (try? certificate.serializeAsPEM().pemString) ?? ""
    }

    /// The CA certificate as DER bytes.
    public var derRepresentation: [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(certificate)
        return serializer.serializedBytes
    }

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

    private init(directory: URL, certificate: Certificate, privateKey: P256.Signing.PrivateKey) {
        self.directory = directory
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Loads the CA kept in a folder, or makes one there when the folder has none.
    ///
    /// Making is safe when several processes start at once: the key file is put in place with
    /// one atomic link, and whoever comes second loads the first one's CA.
    ///
    /// - Parameter directory: The folder; it is created (with permissions `0700`) if missing.
    /// - Returns: The CA.
    /// - Throws: ``MockServerError`` of kind ``MockServerError/Kind/certificateAuthorityUnavailable``
    ///   when the folder or its files cannot be created or read, and
    ///   ``MockServerError/Kind/certificateAuthorityInvalid`` when the key file is not an Airlock CA;
    ///   each names the file and the fix.
    public static func loadOrCreate(in directory: URL) throws -> CertificateAuthority {
        let directory = directory.standardizedFileURL
        return try creation.withLock {
            try FileStore(directory: directory).loadOrCreate()
        }
    }

    /// One CA made at a time in this process (other processes are handled by the atomic link).
    private static let creation = Locked()

    // MARK: Making certificates

    /// Makes a new CA (a key and a self-signed certificate).
    static func generate(in directory: URL, now: Date = Date()) throws -> CertificateAuthority {
        let key = P256.Signing.PrivateKey()
        let signingKey = Certificate.PrivateKey(key)
        let suffix = Certificate.SerialNumber().description.filter(\.isHexDigit).prefix(8)
        let name = try DistinguishedName {
            OrganizationName("Airlock")
            OrganizationalUnitName("Tests only: do not trust outside tests")
            CommonName("Airlock Test CA \(suffix)")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: signingKey.publicKey)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: signingKey.publicKey,
            notValidBefore: now.addingTimeInterval(-backdating),
            notValidAfter: now.addingTimeInterval(10 * 365 * 24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: signingKey
        )
        return CertificateAuthority(directory: directory, certificate: certificate, privateKey: key)
    }

    /// Reads a CA from the text of its key file, checking that the key and certificate belong
    /// together and make a usable CA.
    static func parse(keyFileText text: String, directory: URL, now: Date = Date()) throws(CertificateAuthorityProblem) -> CertificateAuthority {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: text)
        } catch {
            throw CertificateAuthorityProblem("it is not PEM text (\(error))")
        }
        guard let keyDocument = documents.first(where: { $0.discriminator.hasSuffix("PRIVATE KEY") }) else {
            throw CertificateAuthorityProblem("it holds no private key")
        }
        guard let certificateDocument = documents.first(where: { $0.discriminator == "CERTIFICATE" }) else {
            throw CertificateAuthorityProblem("it holds no certificate")
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: keyDocument.pemString)
        } catch {
            throw CertificateAuthorityProblem("its private key is not a P-256 key (\(error))")
        }
        let certificate: Certificate
        do {
            certificate = try Certificate(pemDocument: certificateDocument)
        } catch {
            throw CertificateAuthorityProblem("its certificate cannot be read (\(error))")
        }
        guard certificate.publicKey == Certificate.PrivateKey(key).publicKey else {
            throw CertificateAuthorityProblem("its private key does not belong to its certificate")
        }
        guard case .isCertificateAuthority = try? certificate.extensions.basicConstraints else {
            throw CertificateAuthorityProblem("its certificate is not a CA certificate")
        }
        guard certificate.notValidAfter > now.addingTimeInterval(leafValidity) else {
            throw CertificateAuthorityProblem("its certificate expires on \(certificate.notValidAfter)")
        }
        return CertificateAuthority(directory: directory, certificate: certificate, privateKey: key)
    }

    /// The text of the key file: the private key, then the certificate.
    var keyFileText: String {
        privateKey.pemRepresentation + "\n" + pemRepresentation + "\n"
    }

    /// Makes a certificate for one host, signed by this CA, and its private key.
    ///
    /// The subject alternative names hold the host (a DNS name, or an IP address for an IPv4 or
    /// IPv6 literal; `localhost` also gets `127.0.0.1` and `::1`); the extended key usage is
    /// `serverAuth`; validity starts an hour ago and lasts 30 days.
    ///
    /// - Parameters:
    ///   - host: The host name or IP address the certificate is for.
    ///   - now: The time validity is counted from.
    /// - Returns: The certificate and its private key.
    /// - Throws: When the host cannot be put in a certificate.
    package func issueCertificate(for host: String, now: Date = Date()) throws -> (certificate: Certificate, privateKey: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PrivateKey(key).publicKey
        let host = Self.normalized(host)
        var names: [GeneralName] = []
        if let address = Self.ipAddressBytes(host) {
            names.append(.ipAddress(ASN1OctetString(contentBytes: address[...])))
        } else {
            names.append(.dnsName(host))
            if host == "localhost" {
                names.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
                names.append(.ipAddress(ASN1OctetString(contentBytes: Self.ipAddressBytes("::1")![...])))
            }
        }
        let caKeyIdentifier = (try? certificate.extensions.subjectKeyIdentifier)?.keyIdentifier
            ?? SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(names)
            SubjectKeyIdentifier(hash: publicKey)
            AuthorityKeyIdentifier(keyIdentifier: caKeyIdentifier)
        }
        // A common name is limited to 64 characters; the subject alternative names are what
        // clients check, so a longer host keeps a generic one.
        let commonName = host.utf8.count <= 64 ? host : "Airlock host certificate"
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-Self.backdating),
            notValidAfter: min(now.addingTimeInterval(Self.leafValidity), certificate.notValidAfter),
            issuer: certificate.subject,
            subject: try DistinguishedName {
                OrganizationName("Airlock")
                CommonName(commonName)
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(privateKey)
        )
        return (leaf, key)
    }

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
