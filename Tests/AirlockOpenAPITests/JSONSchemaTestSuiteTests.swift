import AirlockBase
@testable import AirlockJSONSchema
@testable import AirlockOpenAPICore
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing
import ProcessSupport

/// The official JSON-Schema-Test-Suite (`Tests/Fixtures/JSONSchemaTestSuite`, see its
/// SOURCE.md), draft 4 and draft 2020-12, run through ``SchemaValidator``. Every test must pass
/// except those of the groups in ``unsupported``, each naming the keyword it needs.
@Suite struct JSONSchemaTestSuiteTests {
    /// Groups (file and group description) the validator is known to fail, and why.
    struct Unsupported {
        let file: String
        let group: String
        let keyword: String
        let reason: String
    }

    static let unsupported: [Unsupported] = [
        Unsupported(file: "draft2020-12/vocabulary.json", group: "schema that uses custom metaschema with with no validation vocabulary",
                    keyword: "$vocabulary", reason: "a metaschema's $vocabulary is not read: the validation keywords still apply"),
        Unsupported(file: "draft4/definitions.json", group: "validate definition against metaschema",
                    keyword: "metaschema", reason: "needs the draft-04 metaschema, which the suite's remotes do not hold"),
        Unsupported(file: "draft4/ref.json", group: "remote ref, containing refs itself",
                    keyword: "metaschema", reason: "needs the draft-04 metaschema, which the suite's remotes do not hold"),
        Unsupported(file: "draft2020-12/defs.json", group: "validate definition against metaschema",
                    keyword: "metaschema", reason: "needs the draft 2020-12 metaschema, which the suite's remotes do not hold"),
        Unsupported(file: "draft2020-12/ref.json", group: "remote ref, containing refs itself",
                    keyword: "metaschema", reason: "needs the draft 2020-12 metaschema, which the suite's remotes do not hold"),
    ]

    /// One test of the suite and what the validator made of it.
    struct Result {
        let file: String
        let group: String
        let test: String
        let expected: Bool
        let violations: [SchemaViolation]
        var passed: Bool { violations.isEmpty == expected }
    }

    static let suiteFolder: URL = Repository.jsonSchemaTestSuite

    @Test(arguments: [("draft4", SchemaDialect.draft4), ("draft2020-12", SchemaDialect.draft2020_12)])
    func passesTheSuite(draft: String, dialect: SchemaDialect) throws {
        let folder = Self.suiteFolder
        try #require(FileManager.default.fileExists(atPath: folder.appendingPathComponent("tests/\(draft)").path),
                     "JSON-Schema-Test-Suite not found at \(folder.path)/tests/\(draft): it is vendored in the repository (Tests/Fixtures/JSONSchemaTestSuite)")
        let results = try Self.run(folder.appendingPathComponent("tests/\(draft)"), prefix: draft, dialect: dialect, assertFormats: false)
        let listed = Self.unsupported.filter { $0.file.hasPrefix(draft + "/") }
        var tally: [String: Int] = [:]
        for result in results where !result.passed {
            if let entry = listed.first(where: { $0.file == result.file && $0.group == result.group }) {
                tally[entry.keyword, default: 0] += 1
            } else {
                Issue.record("\(result.file): \(result.group): \(result.test): expected \(result.expected ? "valid" : "invalid"), got \(result.violations.isEmpty ? "valid" : result.violations.map(\.description).joined(separator: "; "))")
            }
        }
        for entry in listed where !results.contains(where: { !$0.passed && $0.file == entry.file && $0.group == entry.group }) {
            Issue.record("\(entry.file): \(entry.group) passes now: remove it from the table of unsupported groups")
        }
        let passed = results.filter(\.passed).count
        let unsupported = tally.sorted { $0.key < $1.key }.map { "\($0.key) (\(counted($0.value, "case")))" }
        print("JSON-Schema-Test-Suite \(draft): \(passed) of \(results.count) cases pass (\(Self.percent(passed, results.count)) %)"
            + (unsupported.isEmpty ? "" : "; unsupported: " + unsupported.joined(separator: ", ")))
    }

    /// The optional tests (`optional/*.json`), and the format tests with `format` asserted:
    /// reported, not required.
    @Test(arguments: [("draft4", SchemaDialect.draft4), ("draft2020-12", SchemaDialect.draft2020_12)])
    func reportsTheOptionalTests(draft: String, dialect: SchemaDialect) throws {
        for (folderName, assertFormats) in [("optional", false), ("optional/format", true)] {
            let folder = Self.suiteFolder.appendingPathComponent("tests/\(draft)/\(folderName)")
            try #require(FileManager.default.fileExists(atPath: folder.path), "JSON-Schema-Test-Suite not found at \(folder.path)")
            let results = try Self.run(folder, prefix: "\(draft)/\(folderName)", dialect: dialect, assertFormats: assertFormats)
            let byFile = Dictionary(grouping: results, by: \.file)
            let files = byFile.keys.sorted().map { file in
                let results = byFile[file]!
                return "\((file as NSString).lastPathComponent.replacingOccurrences(of: ".json", with: "")) \(results.filter(\.passed).count)/\(results.count)"
            }
            print("JSON-Schema-Test-Suite \(draft) \(folderName): \(results.filter(\.passed).count) of \(results.count) cases pass; by file: "
                + files.joined(separator: ", "))
            #expect(!results.isEmpty)
        }
    }

    // MARK: - Running the suite

    static func run(_ folder: URL, prefix: String, dialect: SchemaDialect, assertFormats: Bool) throws -> [Result] {
        let remotes = try remoteDocuments()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        var results: [Result] = []
        for file in files {
            let groups = try JSONValue.parse(Data(contentsOf: folder.appendingPathComponent(file)))
            guard case .array(let groups) = groups else { throw SuiteError(message: "\(file) is not a list of groups") }
            for case .object(let group) in groups {
                guard let schema = group["schema"], case .string(let groupName)? = group["description"],
                      case .array(let tests)? = group["tests"]
                else { throw SuiteError(message: "\(file) has a group without schema, description or tests") }
                let validator = SchemaValidator(document: schema, dialect: dialect, resources: remotes, assertFormats: assertFormats)
                for case .object(let test) in tests {
                    guard let data = test["data"], case .bool(let valid)? = test["valid"], case .string(let name)? = test["description"] else {
                        throw SuiteError(message: "\(file): \(groupName) has a test without data, valid or description")
                    }
                    let violations = validator.validate(data, against: JSONPointer())
                    results.append(Result(file: prefix + "/" + file, group: groupName, test: name, expected: valid, violations: violations))
                }
            }
        }
        return results
    }

    /// Every file under `remotes/`, by the URI the suite serves it at: `http://localhost:1234/<path>`.
    static func remoteDocuments() throws -> [String: JSONValue] {
        let root = suiteFolder.appendingPathComponent("remotes")
        var documents: [String: JSONValue] = [:]
        guard let files = FileManager.default.enumerator(atPath: root.path) else { return [:] }
        for case let file as String in files where file.hasSuffix(".json") {
            documents["http://localhost:1234/" + file] = try JSONValue.parse(Data(contentsOf: root.appendingPathComponent(file)))
        }
        return documents
    }

    static func percent(_ part: Int, _ whole: Int) -> String {
        String(format: "%.1f", whole == 0 ? 0 : Double(part) * 100 / Double(whole))
    }

    struct SuiteError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
