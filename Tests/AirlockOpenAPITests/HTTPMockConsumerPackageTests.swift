import Foundation
import ProcessSupport
import Testing

/// A package of a user's that depends on `HTTPMock` only, with Getting Started's manifest
/// verbatim, builds its tests without OpenAPIKit, Yams or swift-openapi-runtime: contract testing
/// costs only the targets that ask for `AirlockOpenAPI`.
struct HTTPMockConsumerPackageTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Getting Started's complete manifest (its first ```swift block that starts the file).
    static func gettingStartedManifest() throws -> String {
        let article = try String(contentsOf: root.appendingPathComponent("Sources/HTTPMock/Documentation.docc/GettingStarted.md"), encoding: .utf8)
        let blocks = article.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
        return try #require(blocks.first { $0.hasPrefix("// swift-tools-version") }, "GettingStarted.md has no manifest") + "\n"
    }

    static let consumerTest = #"""
        import Foundation
        import HTTPMock
        import Testing

        @Test func answersFromTheMock() async throws {
            let mock = HTTPMock()
            mock.addResponses(forPath: "/ping", host: "api.example.com") { MockResponse.plaintext("pong") }
            let (data, _) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/ping")!)
            #expect(String(decoding: data, as: UTF8.self) == "pong")
        }
        """#

    @Test(.enabled(if: ConsumerPackages.areTested, Comment(rawValue: ConsumerPackages.reason)))
    func anHTTPMockOnlyPackageBuildsNoOpenAPIDependency() async throws {
        let manifest = try Self.gettingStartedManifest()
        #expect(!manifest.contains("AirlockOpenAPI"))
        let package = try ConsumerPackage(named: "httpmock-consumer", airlock: Self.root, files: [
            "Package.swift": manifest, "Tests/MyAppTests/PingTests.swift": Self.consumerTest,
        ])
        let (work, consumer, scratch) = (package.work, package.folder, package.build)
        let files = FileManager.default

        let result = try await runShellCommand(
            "swift build --build-tests", in: consumer,
            log: work.appendingPathComponent("build.log"), hangGuard: .seconds(40 * 60)
        )
        let tail = result.output.split(separator: "\n").suffix(30).joined(separator: "\n")
        #expect(result.status == 0, "swift build --build-tests of the consumer failed:\n\(tail)")
        // SwiftPM plans a folder for every target of the graph; the modules it compiled are in
        // Modules/.
        let compiled = Set(((try? files.contentsOfDirectory(atPath: scratch.appendingPathComponent("debug/Modules").path)) ?? [])
            .filter { $0.hasSuffix(".swiftmodule") }.map { String($0.dropLast(".swiftmodule".count)) })
        #expect(compiled.isSuperset(of: ["HTTPMock", "AirlockCore", "MyAppTests"]), "the consumer did not build HTTPMock: \(compiled.sorted())")
        for heavy in ["OpenAPIKit", "OpenAPIKit30", "OpenAPIKitCompat", "OpenAPIKitCore", "Yams", "OpenAPIRuntime", "AirlockOpenAPI", "AirlockOpenAPICore", "WebSocketKit"] {
            #expect(!compiled.contains(heavy), "an HTTPMock-only package built \(heavy): \(compiled.sorted())")
        }
    }
}
