import ArgumentParser
import Foundation
import MockServer

/// `--upstream-ca`, shared by `serve`, `record` and `cassette verify`: what the forwarder trusts
/// besides the system's roots.
struct UpstreamTrustOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A PEM file of certificates to trust, besides the system's, for https upstreams (a staging server's private CA); repeat for more (none by default).", valueName: "file"), completion: .file(extensions: ["pem", "crt"]))
    var upstreamCa: [String] = []

    /// The files of `--upstream-ca`.
    var files: [URL] {
        upstreamCa.map { URL(fileURLWithPath: $0) }
    }
}

/// `--tls`, `--ca-dir` and `--upstream-ca`, shared by `serve` and `record`.
struct TLSOptions: ParsableArguments {
    @Flag(help: "Serve HTTPS too: origin mode at an https:// base URL, and TLS inside CONNECT tunnels (proxy mode), with certificates from the Airlock CA. Needs the package's HTTPS trait (swift run --traits HTTPS airlock …).")
    var tls = false

    @Option(help: "The folder the Airlock CA is kept in (made on first use). Defaults to $AIRLOCK_CA_DIR, or .build/airlock-ca in the current folder.")
    var caDir: String?

    @OptionGroup var upstreamTrust: UpstreamTrustOptions

    /// The files of `--upstream-ca`.
    var upstreamTrustedCertificates: [URL] { upstreamTrust.files }

    /// The folder the CA is kept in.
    var directory: URL {
        caDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? CertificateAuthority.defaultDirectory
    }

    /// The server's TLS options, `nil` without `--tls`.
    var configuration: MockServer.TLS? {
        tls ? MockServer.TLS(certificateAuthorityDirectory: directory) : nil
    }

    /// Prints how a client trusts the CA of a started server.
    func announce(_ server: MockServer) {
        guard let authority = server.certificateAuthority else { return }
        let caFile = authority.certificateFile.path
        let host = server.configuration.host.contains(":") ? "[\(server.configuration.host)]" : server.configuration.host
        printStatus("HTTPS: certificates are signed by the Airlock CA; have test clients trust \(caFile)")
        printStatus("  curl:            curl --cacert \(caFile) --proxy http://\(host):\(server.port) https://api.example.com/…")
        printStatus("  AsyncHTTPClient: tlsConfiguration.additionalTrustRoots = [.file(\"\(caFile)\")], proxy .server(host: \"\(server.configuration.host)\", port: \(server.port))")
        printStatus("  Node, Python:    NODE_EXTRA_CA_CERTS=\(caFile), REQUESTS_CA_BUNDLE=\(caFile)")
    }
}

/// `airlock ca path`, `airlock ca export`
struct CertificateAuthorityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Show the Airlock CA that signs the certificates of `airlock serve --tls` (made on first use).",
        discussion: """
            Test clients trust this CA to call https:// URLs through Airlock with certificate checks on: \
            curl --cacert "$(airlock ca path)", NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, or AsyncHTTPClient's \
            tlsConfiguration.additionalTrustRoots. Trust it in test clients only, not in your system or browser: \
            its key (beside it, readable only by you) can sign a certificate for any host. \
            Making a CA needs the package's HTTPS trait (swift run --traits HTTPS airlock ca …).
            """,
        subcommands: [Path.self, Export.self]
    )

    /// `airlock ca path`
    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the path of the CA certificate file (PEM), making the CA if there is none.")

        @Option(help: "The folder the Airlock CA is kept in. Defaults to $AIRLOCK_CA_DIR, or .build/airlock-ca in the current folder.")
        var caDir: String?

        func run() async throws {
            let authority = try loadAuthority(caDir)
            printStatus(authority.certificateFile.path)
        }
    }

    /// `airlock ca export`
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the CA certificate (never its key) to standard output or a file, as PEM or DER, making the CA if there is none."
        )

        /// The encodings `export` writes.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case pem, der
        }

        @Option(help: "pem (text, the default) or der (binary).")
        var format: Format = .pem

        @Option(help: "The file to write; standard output when omitted.")
        var output: String?

        @Option(help: "The folder the Airlock CA is kept in. Defaults to $AIRLOCK_CA_DIR, or .build/airlock-ca in the current folder.")
        var caDir: String?

        func run() async throws {
            let authority = try loadAuthority(caDir)
            let bytes = format == .pem ? Data((authority.pemRepresentation + "\n").utf8) : Data(authority.derRepresentation)
            guard let output else {
                Console.standardOutput.write(bytes)
                return
            }
            do {
                try bytes.write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                printError("airlock: cannot write \(output): \((error as NSError).localizedDescription)")
                throw ExitCode.unavailable
            }
        }
    }
}

/// Loads (or makes) the CA in a folder, turning its errors into a message and an exit code.
private func loadAuthority(_ caDir: String?) throws -> CertificateAuthority {
    let directory = caDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? CertificateAuthority.defaultDirectory
    do {
        return try CertificateAuthority.loadOrCreate(in: directory)
    } catch let error as MockServerError {
        printError("airlock: \(error.description)")
        throw error.code == .certificateAuthorityInvalid ? ExitCode.badInput : ExitCode.unavailable
    }
}
