import AirlockBase
import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPMock
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
import ProcessSupport
#endif

/// What "Contract Testing" quotes is what the code prints: its failing test, run here with the
/// OpenAPI Initiative's petstore.yaml, reports exactly the quoted message.
struct ContractTestingDocumentationTests {
    static let article = "Sources/AirlockOpenAPI/Documentation.docc/ContractTesting.md"

    @Test(arguments: [article, "README.md"])
    func theQuotedFailureIsTheOneTheSampleGets(file: String) async throws {
        let quoted = try #require(
            Documentation.blocks.first { $0.file == file && $0.lines.first?.hasPrefix("Contract violation:") == true },
            "\(file) no longer quotes the failure; update this test with the article"
        )
        let spec = Repository.openAPIExamples.appendingPathComponent("v3.0/petstore.yaml")
        let messages = Locked<[String]>([])
        let mock = HTTPMock()
        mock.validate(against: try OpenAPIContract(contentsOf: spec)) { violation in
            messages.withLock { $0.append("Contract violation: \(violation)") }
        }
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") {
            MockResponse.empty(status: .created)
        }
        var request = URLRequest(url: URL(string: "https://petstore.swagger.io/v1/pets")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name": "Rex"}"#.utf8)
        let (_, response) = try await mock.urlSession.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(messages.withLock { $0 } == quoted.lines.filter { !$0.isEmpty })
    }

    /// The schema the article quotes is petstore.yaml's.
    @Test func theQuotedSchemaIsTheDocumentsOwn() throws {
        let quoted = try #require(Documentation.blocks.first { $0.file == Self.article && $0.language == "yaml" })
        let spec = Repository.openAPIExamples.appendingPathComponent("v3.0/petstore.yaml")
        let text = try String(contentsOf: spec, encoding: .utf8)
        #expect(text.contains(quoted.lines.joined(separator: "\n")))
    }
}
