#if HTTPS
import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

// The certificate authority's key and certificate, with swift-certificates and swift-crypto: the
// package's `HTTPS` trait. Without it (below) no CA can be made.

extension CertificateAuthority {
    /// The CA's key and its self-signed certificate.
    struct Material: Sendable {
        let certificate: Certificate
        let privateKey: P256.Signing.PrivateKey

        var certificatePEM: String {
            // Serialising a certificate this type parsed or made cannot fail.
            (try? certificate.serializeAsPEM().pemString) ?? ""
        }

        var certificateDER: [UInt8] {
            var serializer = DER.Serializer()
            try? serializer.serialize(certificate)
            return serializer.serializedBytes
        }
    }

    /// This build can make and load a CA.
    static let canMakeCertificates = true

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
        return CertificateAuthority(directory: directory, material: Material(certificate: certificate, privateKey: key))
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
        return CertificateAuthority(directory: directory, material: Material(certificate: certificate, privateKey: key))
    }

    /// The text of the key file: the private key, then the certificate.
    var keyFileText: String {
        material.privateKey.pemRepresentation + "\n" + pemRepresentation + "\n"
    }

    /// The CA certificate.
    ///
    /// With the package's `HTTPS` trait only (it is swift-certificates' type).
    public var certificate: Certificate { material.certificate }

    /// What a server shows for `host`: a certificate this CA makes for it (see
    /// ``issueCertificate(for:now:)``), its key, and when to make a new one.
    func serverIdentity(for host: String, now: Date) throws -> ServerIdentity {
        let (certificate, key) = try issueCertificate(for: host, now: now)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return ServerIdentity(
            certificate: try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der),
            privateKey: try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem),
            renewAfter: certificate.notValidAfter.addingTimeInterval(-24 * 3600)
        )
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
            issuerPrivateKey: Certificate.PrivateKey(material.privateKey)
        )
        return (leaf, key)
    }
}
#else
import Foundation
import NIOSSL

// Without the package's `HTTPS` trait no type conforms to `CertificateAuthorityMaterial`, so no
// `CertificateAuthority` can be made, and `CertificateAuthority.loadOrCreate(in:)` throws
// `MockServerError.Kind.httpsUnavailable`.

/// What a certificate authority's key and certificate give; nothing provides it in this build.
protocol CertificateAuthorityMaterial: Sendable {
    var certificatePEM: String { get }
    var certificateDER: [UInt8] { get }
    var keyFileText: String { get }
    func serverIdentity(for host: String, now: Date) throws -> CertificateAuthority.ServerIdentity
}

extension CertificateAuthority {
    typealias Material = any CertificateAuthorityMaterial

    /// This build cannot make or load a CA.
    static let canMakeCertificates = false

    var keyFileText: String { material.keyFileText }

    func serverIdentity(for host: String, now: Date) throws -> ServerIdentity {
        try material.serverIdentity(for: host, now: now)
    }

    static func generate(in directory: URL, now: Date = Date()) throws -> CertificateAuthority {
        throw MockServerError.httpsUnavailable()
    }

    static func parse(keyFileText text: String, directory: URL, now: Date = Date()) throws(CertificateAuthorityProblem) -> CertificateAuthority {
        throw CertificateAuthorityProblem("this build of Airlock has no HTTPS (the package's HTTPS trait is off)")
    }
}
#endif

extension CertificateAuthority {
    /// A host's certificate and key as SwiftNIO's TLS takes them, and when to make new ones.
    struct ServerIdentity {
        let certificate: NIOSSLCertificate
        let privateKey: NIOSSLPrivateKey
        let renewAfter: Date
    }
}
