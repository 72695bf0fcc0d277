import Foundation
import Testing

/// The layering the Architecture article draws holds in the sources: the core names no format,
/// the base names nothing above it, Airgap stands on the base alone, and every module in the
/// graph is in the article.
struct ModuleLayoutTests {
    /// The Swift files of a target, comments dropped (a comment may name a format as an example).
    private func code(of target: String) throws -> [(file: String, code: String)] {
        let folder = Documentation.root.appendingPathComponent("Sources/\(target)")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var result: [(String, String)] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .map { $0.components(separatedBy: " // ").first ?? String($0) }
                .joined(separator: "\n")
            result.append((String(url.path.dropFirst(Documentation.root.path.count + 1)), code))
        }
        #expect(!result.isEmpty, "no Swift files in Sources/\(target)")
        return result
    }

    /// The modules a target's files import.
    private func imports(of target: String) throws -> Set<String> {
        var modules = Set<String>()
        for (_, code) in try code(of: target) {
            for match in code.matches(of: #/^(?:@\w+(?:\(\w+\))? )*import (\w+)/#.anchorsMatchLineEndings()) {
                modules.insert(String(match.output.1))
            }
        }
        return modules
    }

    static let formatTypes = [
        "StubFile", "JSONNode", "JSONObject", "ResponseTemplate", "TemplatedResponse", "Cassette", "HTTPArchive", "HARFormat",
        "WireMock", "JSONLocation", "GRPC", "Protobuf", "grpc",
    ]

    @Test func theCoreNamesNoFormat() throws {
        var named: [String] = []
        for (file, code) in try code(of: "AirlockCore") {
            for type in Self.formatTypes where code.contains(try Regex("\\b\(type)\\w*\\b")) {
                named.append("\(file) names \(type)")
            }
        }
        #expect(named.isEmpty, "the core must not name a format; give the registry a hook instead: \(named)")
        let imported = try imports(of: "AirlockCore")
        // Atomics: the registry's route snapshot is published through an atomic reference.
        #expect(imported.isSubset(of: ["AirlockBase", "Atomics", "CZlib", "Dispatch", "Foundation", "FoundationNetworking", "HTTPTypes"]), "AirlockCore imports \(imported.sorted())")
    }

    /// What only WireMock needs lives in AirlockWireMock: the core keeps an opaque stub id, an
    /// ordering key and a wait added to every response, not a format's values read back with a
    /// cast, WireMock's priorities and their default, or an adjustment a format plugs in.
    @Test func theCoreKeepsNoFormatsStubValuesPrioritiesOrAdjustments() throws {
        let names = [
            "StubSource", "SourceIndex", "sourceID", "ResponseAdjustment", "responseAdjustment", "any Sendable",
            "priority", "Priority", "fixedDelay", "StubMapping",
        ]
        var named: [String] = []
        for (file, code) in try code(of: "AirlockCore") {
            for name in names where code.contains(name) {
                named.append("\(file) names \(name)")
            }
        }
        #expect(named.isEmpty, "the core keeps only generic hooks (stubID, Precedence.key, addedDelay, attachment): \(named)")
        // The default priority is WireMock's, and the core's key 0 stands for it.
        let mapping = try code(of: "AirlockWireMock").first { $0.file.hasSuffix("/StubMapping.swift") }
        #expect(mapping?.code.contains("static let defaultPriority = 5") == true)
    }

    /// The C library, as each platform names it.
    static let platform: Set<String> = ["Android", "Darwin", "Glibc", "Musl"]

    @Test(arguments: [
        ("AirlockBase", Set(["Foundation"]).union(ModuleLayoutTests.platform)),
        ("Airgap", Set(["AirlockBase", "CAirgap", "Foundation", "FoundationNetworking", "ObjectiveC", "Runtime", "Testing", "XCTest"]).union(ModuleLayoutTests.platform)),
        ("AirlockStubFiles", Set(["AirlockBase", "AirlockCore", "Foundation", "HTTPTypes"])),
        ("AirlockCassettes", Set(["AirlockBase", "AirlockCore", "AirlockStubFiles", "Foundation", "HTTPTypes"])),
        ("AirlockWireMock", Set(["AirlockBase", "AirlockCore", "AirlockStubFiles", "AirlockCassettes", "AirlockJSONSchema", "Foundation", "HTTPTypes"])),
        ("AirlockJSONSchema", Set(["AirlockBase", "Foundation"])),
        ("AirlockWireMockXML", Set(["AirlockStubFiles", "AirlockWireMock", "CLibXML2", "Foundation"])),
        ("AirlockGRPCCore", Set(["AirlockBase", "CZlib", "Foundation", "SwiftProtobuf"])),
        ("AirlockGRPC", Set(["AirlockBase", "AirlockCore", "AirlockGRPCCore", "Foundation", "HTTPTypes"])),
        ("AirlockGRPCInProcess", Set(["AirlockBase", "AirlockCore", "AirlockGRPCCore", "Foundation", "FoundationNetworking", "GRPCCore", "HTTPTypes", "URLProtocolSupport"])),
    ])
    func eachLayerImportsOnlyWhatIsBelowIt(target: String, allowed: Set<String>) throws {
        let imported = try imports(of: target)
        #expect(imported.isSubset(of: allowed), "\(target) imports \(imported.subtracting(allowed).sorted()), which the layering does not allow")
    }

    @Test func theArchitectureArticleDrawsEveryModule() throws {
        let article = try String(
            contentsOf: Documentation.root.appendingPathComponent("Sources/HTTPMock/Documentation.docc/Architecture.md"),
            encoding: .utf8
        )
        let graph = try #require(article.components(separatedBy: "## Modules").dropFirst().first, "Architecture.md has no Modules section")
        for module in ["AirlockBase", "AirlockCore", "AirlockStubFiles", "AirlockCassettes", "AirlockWireMock", "AirlockWireMockXML", "AirlockJSONSchema", "URLProtocolSupport", "HTTPMock",
                       "HTTPMockTesting", "HTTPLogging", "MockServer", "MockServerHTTPClient", "AirlockOpenAPICore", "AirlockOpenAPI", "Airgap", "AirlockGRPC", "AirlockGRPCCore", "AirlockGRPCInProcess"] {
            #expect(graph.contains(module), "Architecture.md's module graph leaves out \(module)")
        }
    }
}

/// Every public type of a documented module is listed in its DocC landing page's topics, so the
/// reference a user browses has no type left out (types behind an `@_spi` are not API). A nested
/// type (`MockServer.Configuration`, each error's `Code`) is left to DocC, which lists it on its
/// parent's page under the parent's own topics; only top-level types need a place here.
struct DocumentationTopicsTests {
    static let modules = [
        "AirlockCore", "AirlockStubFiles", "AirlockCassettes", "AirlockWireMock", "HTTPMock", "HTTPMockTesting", "HTTPLogging",
        "MockServer", "MockServerHTTPClient", "Airgap", "AirlockOpenAPI", "AirlockOpenAPICore", "AirlockWireMockXML", "AirlockGRPC", "AirlockGRPCInProcess",
    ]

    @Test(arguments: modules)
    func everyPublicTypeIsInTheTopics(module: String) throws {
        let root = Documentation.root
        let landing = try String(
            contentsOf: root.appendingPathComponent("Sources/\(module)/Documentation.docc/\(module).md"),
            encoding: .utf8
        )
        let folder = root.appendingPathComponent("Sources/\(module)")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var types: [String] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                guard let match = line.firstMatch(of: #/^public (?:struct|enum|final class|class|protocol|typealias|actor) (\w+)/#) else { continue }
                let attributes = lines[..<index].reversed().prefix { $0.hasPrefix("@") || $0.hasPrefix("///") || $0.hasPrefix("//") }
                if attributes.contains(where: { $0.hasPrefix("@_spi") }) { continue }
                types.append(String(match.output.1))
            }
        }
        #expect(!types.isEmpty || module == "HTTPMockTesting" || module == "MockServerHTTPClient", "no public type found in \(module)")
        let missing = types.filter { !landing.contains("``\($0)``") }
        #expect(missing.isEmpty, "Sources/\(module)/Documentation.docc/\(module).md lists no topic for \(missing.sorted()); add each under its Topics")
    }
}
