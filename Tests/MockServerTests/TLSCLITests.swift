#if HTTPS
import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOSSL
import SwiftASN1
import Testing
import X509
import ProcessSupport

/// `airlock serve --tls` and `airlock ca`, run as child processes.
struct TLSCLITests {
    /// Runs `airlock` to completion; returns its exit status, standard output and standard error.
    static func run(_ arguments: [String]) async throws -> (status: Int32?, output: Data, errors: String) {
        let path = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["AIRLOCK_CA_DIR"] = nil
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let status = await (try ChildProcess(running: process)).status()
        // The child has exited: reading its (short) output to the end returns at once.
        return (
            status,
            output.fileHandleForReading.readDataToEndOfFile(),
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    @Test func serveWithTLSSaysHowToTrustTheCAAndServesHTTPS() async throws {
        try await TLSTests.withCAFolder { folder in
            let airlock = try LaunchedAirlock(["serve", CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0", "--tls", "--ca-dir", folder.path])
            defer { airlock.stopIfRunning() }
            let (process, exit, lines) = (airlock.process, airlock.exit, airlock.lines)
            let base = try await airlock.banner(scheme: "https").base
            _ = await lines.next()  // the admin API
            let trust = try #require(await lines.next())
            let curl = try #require(await lines.next())
            let caFile = folder.appendingPathComponent(CertificateAuthority.certificateFileName).path
            #expect(trust.contains("trust \(caFile)"), "\(trust)")
            #expect(curl.contains("curl --cacert \(caFile) --proxy http://127.0.0.1:"), "\(curl)")
            #expect(FileManager.default.fileExists(atPath: caFile))

            // A client that trusts the file the banner names is served over HTTPS, checks on.
            var configuration = HTTPClient.Configuration()
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
            try await TLSTests.withClient(configuration) { client in
                let users = try await send(client, "\(base)/users")
                #expect(users.status == 200 && users.text.contains("Alice"))
            }

            process.interrupt()
            #expect(await exit.status() == 0)
        }
    }

    @Test func recordWithTLSTakesHTTPSClientsAndRecordsUnderTheTarget() async throws {
        let api = HTTPMock()
        api.addResponses(forPath: "/items", host: "**") { MockResponse.plaintext("one") }
        try await TLSTests.withCAFolder { folder in
            let cassette = folder.appendingPathComponent("api.har")
            var target = ""
            try await withServer(api) { real in
                target = real.baseURL.absoluteString
                let airlock = try LaunchedAirlock(["record", "--target", real.baseURL.absoluteString, "--cassette", cassette.path, "--port", "0", "--tls", "--ca-dir", folder.path])
                defer { airlock.stopIfRunning() }
                let base = try await airlock.banner(scheme: "https").base
                #expect(base.hasPrefix("https://127.0.0.1:"))

                var configuration = HTTPClient.Configuration()
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.additionalTrustRoots = [.file(folder.appendingPathComponent(CertificateAuthority.certificateFileName).path)]
                configuration.tlsConfiguration = tls
                try await TLSTests.withClient(configuration) { client in
                    let response = try await send(client, "\(base)/items")
                    #expect(response.text == "one")
                }
                airlock.process.interrupt()
                #expect(await airlock.exit.status() == 0)
            }
            #expect(api.requests.count == 1)
            let archive = try HTTPArchive(contentsOf: cassette)
            // Recorded under the target's URL, not the HTTPS address the client called.
            #expect(archive.entries.map(\.url) == ["\(target)/items"])
        }
    }

    @Test func caPathAndExportShowTheSameCAAcrossRuns() async throws {
        try await TLSTests.withCAFolder { folder in
            let path = try await Self.run(["ca", "path", "--ca-dir", folder.path])
            #expect(path.status == 0, "\(path.errors)")
            let caFile = folder.appendingPathComponent(CertificateAuthority.certificateFileName).path
            #expect(String(decoding: path.output, as: UTF8.self) == caFile + "\n")
            let fileText = try String(contentsOfFile: caFile, encoding: .utf8)

            let pem = try await Self.run(["ca", "export", "--ca-dir", folder.path])
            #expect(pem.status == 0, "\(pem.errors)")
            #expect(String(decoding: pem.output, as: UTF8.self) == fileText)
            #expect(!String(decoding: pem.output, as: UTF8.self).contains("PRIVATE KEY"))

            let der = try await Self.run(["ca", "export", "--format", "der", "--ca-dir", folder.path])
            #expect(der.status == 0, "\(der.errors)")
            let fromDER = try Certificate(derEncoded: Array(der.output))
            #expect(fromDER == (try Certificate(pemEncoded: fileText)))
            #expect(try fromDER.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))

            // A later run keeps the CA.
            _ = try await Self.run(["ca", "path", "--ca-dir", folder.path])
            #expect(try String(contentsOfFile: caFile, encoding: .utf8) == fileText)
        }
    }

    @Test func aCorruptCAExitsWithBadInputNamingTheFile() async throws {
        try await TLSTests.withCAFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let keyFile = folder.appendingPathComponent(CertificateAuthority.privateKeyFileName)
            try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: keyFile)
            let result = try await Self.run(["ca", "path", "--ca-dir", folder.path])
            #expect(result.status == 65)
            #expect(result.errors.contains(keyFile.path), "\(result.errors)")
            #expect(result.errors.contains("Delete the folder"), "\(result.errors)")
            let serve = try await Self.run(["serve", CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0", "--tls", "--ca-dir", folder.path])
            #expect(serve.status == 65)
            #expect(serve.errors.contains(keyFile.path), "\(serve.errors)")
        }
    }
}
#endif
